"""Import EvalPlus's released HumanEval+ and MBPP+ files (``--format evalplus``).

The records (``task_id, prompt, entry_point, canonical_solution, base_input``, with ``plus_input``
and ``atol``) become tasks as the HumanEval importer makes them, with T0 written by
``evalplus_records`` from EvalPlus's own grading; samples are read as for HumanEval. The HumanEval
importer recognises such records too: this name says what the file is, and refuses problems
records of another kind rather than reading them as HumanEval's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from testjack_tui.formats import ImportedRun, ImportError_, ImportProblem
from testjack_tui.formats import humaneval
from testjack_tui.formats._common import first_records
from testjack_tui.formats.evalplus_records import RECORD_FIELDS, T1_EXPORT_MARK, is_evalplus_record

FORMAT = "evalplus"


def load(
    path: Path,
    staging: Path,
    name: str | None = None,
    samples: Path | list[Path] | None = None,
    t0: str = "base",
    **options: Any,
) -> ImportedRun:
    problems_file, _ = humaneval.locate(Path(path), samples)
    rows = first_records(problems_file, humaneval.SNIFF_ROWS)
    if rows and not any(is_evalplus_record(r) for r in rows):
        raise ImportError_([ImportProblem(str(problems_file), "", _not_a_release(rows))])
    return humaneval.load(path, staging, name=name, samples=samples, t0=t0, fmt=FORMAT, **options)


def _not_a_release(rows: list[dict[str, Any]]) -> str:
    """Why these records are not an EvalPlus release: TestJack's own T1 export (read by its ``test``,
    under ``--format humaneval``) is told apart from records of another kind."""
    if any(T1_EXPORT_MARK in str(r.get("test", "")) for r in rows):
        return ("TestJack's own EvalPlus export: its test holds T1 in full (T0 and every witness), so it "
                "imports with --format humaneval (or no --format), which reads that test")
    return "not an EvalPlus release file: its records have no base_input (each needs " + ", ".join(RECORD_FIELDS) + ")"
