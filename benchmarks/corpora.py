"""The labelled corpora the benchmarks read, and slices of them written to a temporary directory.

The corpora live outside the repository, in ``../shared/corpora/<name>`` (``problems.jsonl``,
``samples.jsonl``, ``labels.jsonl``); they are read at run time and never copied into the project.
A slice (one half of the tasks, a few tasks, at most K passing samples per task) is written as
filtered copies of the three files to a directory the caller chooses (a temporary one).

Halves: HumanEval/N is in the even ("tune") half when N is even and in the odd ("check") half
when N is odd. Tuning looks at the even half; the targets are judged on the odd half.
``mbppplus-dev`` holds even task numbers only: there the "even" (tune) half is the multiples of 4
and the "odd" (check) half the rest (2 modulo 4).

``mbppplus-dev`` is in EvalPlus's MBPP+ record format (``base_input``, ``atol``, no ``check``); its
slice is written as is and imported by the product, which recognises the records
(``testjack_tui.formats.evalplus_records``: T0 is what EvalPlus grades as "base").
"""

from __future__ import annotations

import json
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


CORPORA: dict[str, Corpus] = {
    "evalplus-dev": Corpus("evalplus-dev", "per-trial", "164 GPT-4 samples, labelled false passes (HumanEval+)"),
    "codet-dev": Corpus("codet-dev", "lightweight", "2,348 CodeGen-16B programs, false passes wrong|timeout"),
    "evalperf-dev": Corpus("evalperf-dev", "per-trial", "228 correct solutions from 34 models (true negatives)"),
    "mbppplus-dev": Corpus("mbppplus-dev", "per-trial", "190 GPT-4 MBPP+ samples, one per task, false passes wrong|slow",
                           period=4),
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
