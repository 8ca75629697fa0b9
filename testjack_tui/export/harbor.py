"""Export as Harbor task folders whose ``tests/`` hold T1 and whose ``tests/test.sh`` runs it.

Per task, under ``out/tasks/<task-id>/``:

- ``instruction.md`` (P) and ``task.toml`` (``[verifier] timeout_sec``);
- ``environment/``: R, with a ``Dockerfile`` when R has none (``FROM python:3.11-slim``, pytest);
- ``solution/solve.sh``: the oracle, which puts G's files in place (a task that came from Harbor
  keeps its own ``solution/``);
- ``tests/t1/``: T0's test files and the witness files (provenance in a comment at the top of
  each), and ``tests/test.sh``, which copies them into the working directory, runs T0's command on
  T1's graded ids and writes ``/logs/verifier/reward.txt`` (1 when every one passes, else 0).

Trials go to ``out/jobs/t1/<trial-id>/`` (``result.json`` naming task, agent and model, and
``patch.diff``), with no reward: importing the export re-grades each of them with T1.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from testjack_tui.audit.execution import read_world_file
from testjack_tui.export.t1 import T1, TaskT1, prepare, toml_value, write_provenance
from testjack_tui.formats.harbor import COMMAND as HARBOR_COMMAND
from testjack_tui.model import WorldKind
from testjack_tui.worlds.patching import touched_paths as patched_paths

BASE_IMAGE = "python:3.11-slim"
DOCKERFILE = f"""FROM {BASE_IMAGE}
RUN python3 -c 'import pytest' 2>/dev/null || python3 -m pip install --no-cache-dir pytest
WORKDIR /app
COPY . /app
"""
JUNIT = "/logs/verifier/junit.xml"


def write(t1: T1, out: Path) -> dict[str, int]:
    prepare(out)
    for entry in t1.tasks:
        _task(entry, out / "tasks" / folder_name(entry.task.id))
    for trial in t1.trials:
        folder = out / "jobs" / "t1" / folder_name(trial.id)
        (folder / "verifier").mkdir(parents=True)
        (folder / "patch.diff").write_text(trial.patch, encoding="utf-8")
        result = {"task_name": folder_name(trial.task_id), "trial_name": trial.id,
                  "agent_info": {"name": trial.agent, "model_info": {"name": trial.model}}}
        (folder / "result.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    write_provenance(out, t1, "harbor", {"task_folders": {e.task.id: folder_name(e.task.id) for e in t1.tasks}})
    return {"tasks": len(t1.tasks), "trials": len(t1.trials), "witnesses": sum(len(t.witnesses) for t in t1.tasks)}


def _task(entry: TaskT1, folder: Path) -> None:
    task = entry.task
    env = folder / "environment"
    _copy(Path(task.snapshot), env)
    if not (env / "Dockerfile").exists():
        (env / "Dockerfile").write_text(DOCKERFILE, encoding="utf-8")
    (folder / "instruction.md").write_text(task.prompt, encoding="utf-8")
    (folder / "task.toml").write_text(
        f'version = "1.0"\n\n[verifier]\ntimeout_sec = {toml_value(float(task.tests.timeout))}\n', encoding="utf-8")
    came_from_harbor = task.tests.command == HARBOR_COMMAND
    # the oracle: G's files as the reference world has them (a Harbor task's G is its solution/)
    solution = folder / "solution"
    changed = patched_paths(task.reference_patch)
    if came_from_harbor:
        for path in changed:
            _put(solution.parent / path, read_world_file(task, WorldKind.REFERENCE, None, path))
    else:
        lines = ["#!/bin/bash", "# The oracle: puts the reference's files (G) in the working directory.",
                 "set -e", 'HERE="$(cd "$(dirname "$0")" && pwd)"', 'cp -r "$HERE/files/." .']
        for path in changed:
            text = read_world_file(task, WorldKind.REFERENCE, None, path)
            if text is None:
                lines.append(f"rm -f {shlex.quote(path)}")
            else:
                _put(solution / "files" / path, text)
        _put(solution / "solve.sh", "\n".join(lines) + "\n", executable=True)
    tests = folder / "tests"
    if came_from_harbor:
        # Harbor's own test.sh becomes t0.sh; the new test.sh runs it, then the witnesses
        for path in patched_paths(task.test_patch):
            target = tests / "t0.sh" if path == "tests/test.sh" else tests.parent / path
            _put(target, read_world_file(task, WorldKind.NULL, None, path), executable=path.endswith(".sh"))
        for w in entry.witnesses:
            _put(tests / "t1" / w.witness.path, w.file_text())
        witness_ids = [t for w in entry.witnesses for t in w.tests]
        _put(tests / "test.sh", _harbor_test_sh(witness_ids), executable=True)
        return
    removed = []
    for path in patched_paths(task.test_patch):
        text = read_world_file(task, WorldKind.NULL, None, path)
        if text is None:
            removed.append(path)
        else:
            _put(tests / "t1" / path, text)
    for w in entry.witnesses:
        _put(tests / "t1" / w.witness.path, w.file_text())
    _put(tests / "test.sh", _test_sh(entry, task.tests.command, removed=removed), executable=True)


def _harbor_test_sh(witness_ids: list[str]) -> str:
    lines = [
        "#!/bin/bash",
        "# T1 = the task's own tests (t0.sh) + TestJack's witnesses (see testjack_t1.json).",
        'HERE="$(cd "$(dirname "$0")" && pwd)"',
        "mkdir -p /logs/verifier",
        'bash "$HERE/t0.sh"',
    ]
    if witness_ids:
        lines += ['cp -r "$HERE/t1/." .',
                  "python3 -m pytest -p no:cacheprovider -q " + " ".join(shlex.quote(t) for t in witness_ids)
                  + " || echo 0 > /logs/verifier/reward.txt"]
    return "\n".join(lines) + "\n"


def _test_sh(entry: TaskT1, command: str, removed: list[str] | None = None) -> str:
    ids = " ".join(shlex.quote(t) for t in [*entry.fail_to_pass, *entry.pass_to_pass] if t != "reward")
    run = command.replace("{tests}", ids).replace("{junit}", JUNIT)
    lines = [
        "#!/bin/bash",
        "# T1 = T0 + TestJack's witnesses (see testjack_t1.json): copy the test files into the working",
        "# directory, run T0's command on every graded id, reward 1 when all pass.",
        'HERE="$(cd "$(dirname "$0")" && pwd)"',
        "mkdir -p /logs/verifier",
        'cp -r "$HERE/t1/." .',
        *(f"rm -f {shlex.quote(p)}" for p in removed or []),
        run,
        'if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi',
    ]
    return "\n".join(lines) + "\n"


def folder_name(ident: str) -> str:
    """A task's (or trial's) folder: its id with ``/`` as ``__`` (HumanEval's ``Tiny/0`` -> ``Tiny__0``)."""
    return re.sub(r"[^A-Za-z0-9._#@+-]", "_", ident.replace("/", "__"))


def _copy(src: Path, dst: Path) -> None:
    import shutil

    shutil.copytree(src, dst, symlinks=True)


def _put(path: Path, text: str | None, executable: bool = False) -> None:
    if text is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if executable:
        path.chmod(0o755)
