"""T1 = T0 + the witnesses that may refute: what every export writes, and where each witness came from.

A witness goes into T1 when it is validated (3 of 3 on the reference), not flaky, its input lies in
the task's domain, it is no timing-only witness, and its requirement is not ruled ambiguous (or,
with ``include_ambiguous``, also when it is). Harness witnesses (T0 rerun with one trial's harness
changes dropped) carry no test file of their own and stay out: T0 is in T1 already. Every witness
left out is named with the reason, so the provenance file accounts for all of them.

A witness that fails on the null world is a fail-to-pass test of T1 (the fix makes it pass), one
that passes there is pass-to-pass.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from testjack_tui.store import Store
from testjack_tui.audit.metrics import REFUTING
from testjack_tui.formats._common import text_file_diff
from testjack_tui.model import Classification, Grounding, Run, Task, Trial, VerdictRecord, Witness, WitnessStatus
from testjack_tui.worlds.placement import test_ids

PROVENANCE_FILE = "testjack_t1.json"
PROVENANCE_SCHEMA = "testjack.t1/1"


class ExportError(Exception):
    """The run cannot be written in the asked format; the message says why."""


@dataclass
class T1Witness:
    witness: Witness
    null: str  # the witness's outcome on the null world
    tests: list[str]  # its test ids (pytest node ids, file::name)

    @property
    def fail_to_pass(self) -> bool:
        return self.null != "pass"

    def file_text(self) -> str:
        """The witness's code under a comment naming where it came from."""
        w = self.witness
        header = (
            f"# TestJack witness {w.id} (T1). Requirement: {_one_line(w.requirement)}\n"
            f"# Classification: {w.classification}; rho {_rho(w.rho)}; origin {w.origin}, author {w.author}.\n"
            f"# Passed on the reference world 3 of 3 runs; {self.null} on the null world "
            f"({'fail-to-pass' if self.fail_to_pass else 'pass-to-pass'}). Replay: testjack replay {w.id}\n"
        )
        return header + w.code

    def provenance(self) -> dict[str, Any]:
        w = self.witness
        return {
            "witness": w.id, "requirement": w.requirement, "requirement_kind": str(w.requirement_kind),
            "classification": str(w.classification), "rho": w.rho, "origin": str(w.origin),
            "author": str(w.author), "file": w.path, "tests": self.tests,
            "null": self.null, "graded_as": "FAIL_TO_PASS" if self.fail_to_pass else "PASS_TO_PASS",
        }


@dataclass
class TaskT1:
    task: Task
    witnesses: list[T1Witness] = field(default_factory=list)
    left_out: list[dict[str, str]] = field(default_factory=list)

    @property
    def fail_to_pass(self) -> list[str]:
        return [*self.task.tests.fail_to_pass, *(t for w in self.witnesses if w.fail_to_pass for t in w.tests)]

    @property
    def pass_to_pass(self) -> list[str]:
        return [*self.task.tests.pass_to_pass, *(t for w in self.witnesses if not w.fail_to_pass for t in w.tests)]

    def test_patch(self) -> str:
        """T0's test patch, then one file addition per witness."""
        parts = [self.task.test_patch] if self.task.test_patch.strip() else []
        parts += [text_file_diff(w.witness.path, None, w.file_text()) for w in self.witnesses]
        return "".join(p if p.endswith("\n") else p + "\n" for p in parts)


@dataclass
class T1:
    run: Run
    tasks: list[TaskT1]
    trials: list[Trial]
    verdicts: dict[str, VerdictRecord]
    include_ambiguous: bool = False

    def refuted(self) -> set[str]:
        return {t for t, v in self.verdicts.items() if v.verdict in REFUTING}

    def provenance(self, fmt: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        analyst = [t for t, v in self.verdicts.items() if str(v.source) == "analyst"]
        return {
            "schema": PROVENANCE_SCHEMA,
            "format": fmt,
            "source_run": {"id": self.run.id, "name": self.run.name, "benchmark": self.run.benchmark},
            "include_ambiguous": self.include_ambiguous,
            "rule": "T1 = T0 + validated, non-flaky, in-domain witnesses that are not ambiguous"
                    + (" (ambiguous ones included)" if self.include_ambiguous else ""),
            "tasks": {
                t.task.id: {
                    "malformed": bool(t.task.malformed),
                    "fail_to_pass": t.fail_to_pass,
                    "pass_to_pass": t.pass_to_pass,
                    "witnesses": [w.provenance() for w in t.witnesses],
                    "left_out": t.left_out,
                }
                for t in self.tasks
            },
            "trials": {
                tr.id: {"task": tr.task_id, "model": tr.model, "agent": tr.agent, "official": str(tr.official),
                        "verdict": str(self.verdicts[tr.id].verdict) if tr.id in self.verdicts else "",
                        "refuted_by": self.verdicts[tr.id].witnesses if tr.id in self.verdicts else []}
                for tr in self.trials
            },
            # an analyst's verdict needs no witness: T1 cannot reproduce it
            "analyst_verdicts": analyst,
            **(extra or {}),
        }


def collect(store: Store, run_ref: str, include_ambiguous: bool = False) -> T1:
    run = store.get_run(run_ref)
    results = store.witness_results_for_run(run.id)
    tasks = []
    for task in store.list_tasks(run.id):
        entry = TaskT1(task)
        for w in store.list_witnesses(run.id, task.id):
            why = _left_out(w, task, include_ambiguous)
            if why:
                entry.left_out.append({"witness": w.id, "why": why})
                continue
            null = str(results.get(w.id, {}).get("null", "fail"))
            entry.witnesses.append(T1Witness(w, null, test_ids(w.path, w.code)))
        tasks.append(entry)
    return T1(run, tasks, store.list_trial_objects(run.id), store.list_verdicts(run.id), include_ambiguous)


def _left_out(w: Witness, task: Task, include_ambiguous: bool) -> str:
    if w.status != WitnessStatus.VALIDATED:
        return f"{w.status}" + (f": {w.discard_reason}" if w.discard_reason else "")
    if not w.path:
        return "harness check (T0 rerun with a trial's harness changes dropped): T0 is in T1 already"
    if task.malformed:
        return "the task is malformed: its reference fails T0, nothing of it refutes"
    if w.flaky:
        return "flaky: its runs disagree"
    if w.grounding not in (None, Grounding.IN_DOMAIN):
        return f"{w.grounding}: its input lies outside what the prompt allows"
    if w.slow_only:
        return "timing witness where the prompt states no time bound"
    if w.classification == Classification.AMBIGUOUS and not include_ambiguous:
        return "ambiguous (a prompt defect; --include-ambiguous adds it)"
    if w.classification is None:
        return "not classified yet"
    return ""




def write_provenance(out: Path, t1: T1, fmt: str, extra: dict[str, Any] | None = None) -> Path:
    path = out / PROVENANCE_FILE
    path.write_text(json.dumps(t1.provenance(fmt, extra), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def prepare(out: Path) -> None:
    """The export's folder: created, and refused when it already holds files (nothing is overwritten)."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise FileExistsError(f"{out} already exists and is not an empty folder; give a new path")
    out.mkdir(parents=True, exist_ok=True)


def toml_value(value: Any) -> str:
    """A TOML value for strings, numbers, booleans and lists of them (JSON's escapes are TOML's)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(float(value)) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        return "[\n" + "".join(f"    {toml_value(v)},\n" for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def _one_line(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ")


def _rho(rho: float | None) -> str:
    return "-" if rho is None else f"{rho:.2f}"
