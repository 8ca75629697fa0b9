"""Export as a native run folder (CONTRACTS.md) whose tests.patch adds T1's witnesses.

Each task keeps R (``repo/``), P, G and T0's command; ``tests.patch`` is T0's patch followed by one
file per witness (its provenance in a comment at its top), and the witnesses' test ids join
``fail_to_pass`` (they fail on the null world) or ``pass_to_pass``. The trials and the benchmark's
own verdicts are copied as they are, so ``testjack import`` then ``testjack audit --author none``
re-grades every trial with T1: the refuted ones come out ``not_reproduced`` (T1 fails them).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from testjack_tui.export.t1 import T1, prepare, toml_value, write_provenance
from testjack_tui.model import Official


def write(t1: T1, out: Path) -> dict[str, int]:
    prepare(out)
    run = t1.run
    lines = [f"name = {toml_value(run.name + '-t1')}", f"benchmark = {toml_value(run.benchmark)}",
             f"description = {toml_value(_description(t1))}", "", "[defaults]",
             f"backend = {toml_value(str(run.default_backend))}"]
    if run.image:
        lines.append(f"image = {toml_value(run.image)}")
    (out / "run.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for entry in t1.tasks:
        task = entry.task
        folder = out / "tasks" / task.id
        folder.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(task.snapshot, folder / "repo", symlinks=True)
        spec, env = task.tests, task.environment
        toml = [f"id = {toml_value(task.id)}", f"title = {toml_value(task.title)}", "", "[tests]",
                f"command = {toml_value(spec.command)}", f"fail_to_pass = {toml_value(entry.fail_to_pass)}",
                f"pass_to_pass = {toml_value(entry.pass_to_pass)}", f"timeout = {toml_value(float(spec.timeout))}"]
        if spec.log_parser:
            toml.append(f"log_parser = {toml_value(spec.log_parser)}")
        environment = [f"{key} = {toml_value(value)}" for key, value in (
            ("backend", str(env.backend) if env.backend else None), ("image", env.image),
            ("requirements", env.requirements or None), ("setup", env.setup)) if value]
        if environment:
            toml += ["", "[environment]", *environment]
        (folder / "task.toml").write_text("\n".join(toml) + "\n", encoding="utf-8")
        (folder / "prompt.md").write_text(task.prompt, encoding="utf-8")
        (folder / "reference.patch").write_text(task.reference_patch, encoding="utf-8")
        patch = entry.test_patch()
        if patch.strip():
            (folder / "tests.patch").write_text(patch, encoding="utf-8")
    (out / "trials").mkdir(exist_ok=True)
    with (out / "trials.jsonl").open("w", encoding="utf-8") as f:
        for trial in t1.trials:
            (out / "trials" / f"{trial.id}.patch").write_text(trial.patch, encoding="utf-8")
            official = trial.official if trial.official != Official.UNKNOWN else (
                Official.PASSED if trial.recomputed == "passed" else Official.FAILED)
            verdict = t1.verdicts.get(trial.id)
            row = {"id": trial.id, "task": trial.task_id, "model": trial.model, "agent": trial.agent,
                   "patch": f"trials/{trial.id}.patch", "official": str(official),
                   "metadata": {**trial.metadata,
                                "testjack_verdict": str(verdict.verdict) if verdict else "",
                                "testjack_source_run": t1.run.id}}
            if trial.cost_usd is not None:
                row["cost_usd"] = trial.cost_usd
            if trial.tokens is not None:
                row["tokens"] = trial.tokens
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    write_provenance(out, t1, "native")
    return {"tasks": len(t1.tasks), "trials": len(t1.trials), "witnesses": sum(len(t.witnesses) for t in t1.tasks)}


def _description(t1: T1) -> str:
    n = sum(len(t.witnesses) for t in t1.tasks)
    return (f"{t1.run.name} with T1 as its tests: T0 and {n} TestJack witness(es) "
            f"(exported from run {t1.run.id}; provenance in testjack_t1.json)")
