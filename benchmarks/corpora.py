"""The labelled corpora the benchmarks read, and slices of them written to a temporary directory.

The corpora live outside the repository, in ``../shared/corpora/<name>`` (``problems.jsonl``,
``samples.jsonl``, ``labels.jsonl``); they are read at run time and never copied into the project.
A slice (one half of the tasks, a few tasks, at most K passing samples per task) is written as
filtered copies of the three files to a directory the caller chooses (a temporary one).

Halves: HumanEval/N is in the even ("tune") half when N is even and in the odd ("check") half
when N is odd. Tuning looks at the even half; the targets are judged on the odd half.
``mbppplus-dev`` holds even task numbers only: there the "even" (tune) half is the multiples of 4
and the "odd" (check) half the rest (2 modulo 4).

``mbppplus-dev`` is in EvalPlus's MBPP+ record format (``base_input``, ``atol``, no ``check``), which
the HumanEval importer does not read; its slice is converted here (``mbpp_as_humaneval``): T0 is
what EvalPlus grades as "base", each ``base_input`` called on the entry point and compared with
the reference's answer (exactly, or within ``atol`` and 1e-6 relative where the answer holds floats).
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

REPO = Path(__file__).resolve().parent.parent
CORPORA_ROOT = REPO.parent / "shared" / "corpora"

HALVES = ("even", "odd")
HALF_ROLE = {"even": "tune", "odd": "check"}


@dataclass(frozen=True)
class Corpus:
    name: str
    default_mode: str  # the audit mode the benchmark uses unless told otherwise
    about: str
    period: int = 2  # task number modulo this: 0 is the tune ("even") half, the rest the check half
    mbpp: bool = False  # EvalPlus MBPP+ records: converted to HumanEval records when sliced


CORPORA: dict[str, Corpus] = {
    "evalplus-dev": Corpus("evalplus-dev", "per-trial", "164 GPT-4 samples, labelled false passes (HumanEval+)"),
    "codet-dev": Corpus("codet-dev", "lightweight", "2,348 CodeGen-16B programs, false passes wrong|timeout"),
    "evalperf-dev": Corpus("evalperf-dev", "per-trial", "228 correct solutions from 34 models (true negatives)"),
    "mbppplus-dev": Corpus("mbppplus-dev", "per-trial", "190 GPT-4 MBPP+ samples, one per task, false passes wrong|slow",
                           period=4, mbpp=True),
}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    Path(path).write_text("".join(json.dumps(r) + "\n" for r in rows))


def task_number(task_id: str) -> int:
    """``HumanEval/17`` -> 17."""
    return int(str(task_id).rsplit("/", 1)[-1])


def half_of(task_id: str, period: int = 2) -> str:
    return HALVES[0 if task_number(task_id) % period == 0 else 1]


def labels_of(corpus_dir: Path) -> dict[str, dict[str, Any]]:
    """Sample id -> its label row."""
    return {row["id"]: row for row in read_jsonl(Path(corpus_dir) / "labels.jsonl")}


def false_pass_kind(label: dict[str, Any] | None) -> str | None:
    """``wrong`` or ``timeout`` for a labelled false pass (no ``failure_kind``: ``wrong``), else None."""
    if not label or not label.get("false_pass"):
        return None
    return label.get("failure_kind") or "wrong"


@dataclass
class Slice:
    directory: Path
    tasks: list[str]
    samples: int
    passing_by_label: int
    dropped_by_limit: int


def write_slice(
    corpus_dir: Path,
    out_dir: Path,
    *,
    half: str | None = None,
    tasks: set[int] | None = None,
    limit_per_task: int | None = None,
    corpus: Corpus | None = None,
) -> Slice:
    """Write the corpus's problems, samples and labels restricted to a half and/or task numbers.

    ``limit_per_task`` keeps, per task, the first K samples whose label says they pass the base
    tests, in the corpus's sample order (the sample index order: ``#cg0``, ``#cg1``, ...), whatever
    their other labels; samples that fail the base tests are then left out (they only cost a T0
    run and count in no figure: rho is taken over passing trials).
    """
    corpus_dir, out_dir = Path(corpus_dir), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    period = corpus.period if corpus else 2

    def wanted(task_id: str) -> bool:
        if half is not None and half_of(task_id, period) != half:
            return False
        return tasks is None or task_number(task_id) in tasks

    problems = [p for p in read_jsonl(corpus_dir / "problems.jsonl") if wanted(p["task_id"])]
    keep_tasks = {p["task_id"] for p in problems}
    labels = labels_of(corpus_dir)
    samples = [s for s in read_jsonl(corpus_dir / "samples.jsonl") if s["task_id"] in keep_tasks]
    dropped = 0
    if limit_per_task is not None:
        kept, per_task = [], {}
        for s in samples:
            if (labels.get(s["id"]) or {}).get("base_status") != "pass":
                dropped += 1
                continue
            n = per_task.get(s["task_id"], 0)
            if n >= limit_per_task:
                dropped += 1
                continue
            per_task[s["task_id"]] = n + 1
            kept.append(s)
        samples = kept
    ids = {s["id"] for s in samples}
    if corpus is not None and corpus.mbpp:
        problems = [mbpp_as_humaneval(p) for p in problems]
    write_jsonl(out_dir / "problems.jsonl", problems)
    write_jsonl(out_dir / "samples.jsonl", samples)
    # the labels file is not read by the importer (its rows have no program), only by the benchmark
    write_jsonl(out_dir / "labels.jsonl", (labels[i] for i in labels if i in ids))
    return Slice(
        directory=out_dir,
        tasks=sorted(keep_tasks, key=task_number),
        samples=len(samples),
        passing_by_label=sum(1 for i in ids if (labels.get(i) or {}).get("base_status") == "pass"),
        dropped_by_limit=dropped,
    )


# Runs the reference on every base input in a child process (a reference may loop or print), one
# task at a time, and prints each answer as a literal (or, for a value with no literal, a pickle).
_ANSWERS = r"""
import json, pickle, sys
problem = pickle.loads(bytes.fromhex(sys.stdin.read()))
space = {}
exec(problem["prompt"] + problem["canonical_solution"], space)
f = space[problem["entry_point"]]
out = []
for args in problem["base_input"]:
    value = f(*args)
    if problem["entry_point"] in problem["not_none"]:
        value = value is not None
    try:
        text = repr(value)
        ok = eval(text, {}) == value
    except Exception:
        ok = False
    out.append(text if ok else "__import__('pickle').loads(bytes.fromhex(%r))" % pickle.dumps(value).hex())
print(json.dumps(out))
"""


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, (list, tuple, set)):
        return any(_has_float(v) for v in value)
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    return False


def _literal(value: Any) -> str:
    text = repr(value)
    try:
        if eval(text, {}) == value:
            return text
    except Exception:
        pass
    import pickle
    return f"__import__('pickle').loads(bytes.fromhex({pickle.dumps(value).hex()!r}))"


def mbpp_as_humaneval(problem: dict[str, Any]) -> dict[str, Any]:
    """An MBPP+ record as a HumanEval record whose ``check`` is EvalPlus's base grading.

    JSON has no tuples: EvalPlus turns the inputs of the tasks that take tuples back into tuples
    when it loads MBPP+ (``mbpp_deserialize_inputs``); its own function does that here too. Its
    grader compares some entry points as sets, and some only by whether the answer is None (its
    ``_special_oracle`` lists): T0 compares them so too.
    """
    from evalplus.data.mbpp import mbpp_deserialize_inputs
    from evalplus.eval._special_oracle import MBPP_OUTPUT_NOT_NONE_TASKS, MBPP_OUTPUT_SET_EQ_TASKS

    problem = dict(problem, base_input=mbpp_deserialize_inputs(problem["task_id"], problem["base_input"]))
    import pickle

    done = subprocess.run([sys.executable, "-c", _ANSWERS], input=pickle.dumps(dict(problem, not_none=MBPP_OUTPUT_NOT_NONE_TASKS)).hex(), capture_output=True,
                          text=True, timeout=120)
    if done.returncode != 0:
        raise SystemExit(f"{problem['task_id']}: the reference fails on its base inputs:\n{done.stderr[-2000:]}")
    answers = json.loads(done.stdout.strip().splitlines()[-1])
    atol = float(problem.get("atol") or 0)
    lines = ["def check(candidate):", "    import pytest"]
    for args, expected in zip(problem["base_input"], answers):
        call = f"candidate({', '.join(_literal(a) for a in args)})"
        value = eval(expected, {})
        entry = problem["entry_point"]
        if entry in MBPP_OUTPUT_NOT_NONE_TASKS:
            lines.append(f"    assert ({call} is not None) == {expected}")
        elif entry in MBPP_OUTPUT_SET_EQ_TASKS:
            lines.append(f"    assert set({call}) == set({expected})")
        elif _has_float(value) or atol:
            lines.append(f"    assert {call} == pytest.approx({expected}, rel=1e-6, abs={max(atol, 1e-6)!r})")
        else:
            lines.append(f"    assert {call} == {expected}")
    row = {k: problem[k] for k in ("task_id", "prompt", "canonical_solution", "entry_point")}
    row["test"] = "\n".join(lines) + "\n"
    return row
