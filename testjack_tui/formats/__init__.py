"""Importers: each turns a benchmark's own files into model objects.

An importer reads files and returns an :class:`ImportedRun`; it never touches the store. Task
snapshots (R as plain files) are written under ``staging``, a directory the caller gives and then
hands to the store, which moves them into place and commits the run in one transaction. So an
import that fails half-way leaves nothing behind in the store.

Bad input is reported as :class:`ImportProblem` naming the file and the record. Problems with a
single record are collected in ``ImportedRun.skipped`` and the good records are imported; problems
that make the whole run unusable raise :class:`ImportError_`. What was imported but deserves a
look (an unknown key, a sample read another way than its field says) is in ``ImportedRun.warnings``.
"""

from __future__ import annotations

import os
from pathlib import Path

# What every importer hands back and reports with lives in ``base``, which the shared helpers
# (``_common``) import too; re-exported here, where the importers and their callers look for it.
from testjack_tui.formats.base import ImportedRun, ImportError_, ImportProblem, tree_digest

FORMATS = ("native", "swebench", "humaneval", "evalplus", "harbor", "swebench_pro")


def detect_format(path: str | os.PathLike[str]) -> str:
    """Guess the format from the files' contents: the keys of their first record, or their layout.

    Raises ImportError_ for a file that cannot be read at all, rather than guessing from nothing.
    """
    p = Path(path)
    if p.is_dir():
        if (p / "run.toml").exists() or (p / "trials.jsonl").exists():
            return "native"
        if _looks_like_harbor(p):
            return "harbor"
        kinds = [_format_of_record(f) for f in sorted(p.iterdir())
                 if f.is_file() and f.name.endswith((".jsonl", ".json", ".jsonl.gz", ".json.gz"))]
        if "swebench_pro" in kinds:  # its predictions are SWE-bench's: the records say which it is
            return "swebench_pro"
        return next((k for k in kinds if k), "native")
    found = _format_of_record(p)
    if found is None:
        from testjack_tui.formats._common import open_text

        open_text(p)  # a file that cannot be read (a corrupt .gz, not UTF-8) is named as such
    return found or "native"


def _format_of_record(p: Path) -> str | None:
    from testjack_tui.formats._common import first_record
    from testjack_tui.formats.evalplus_records import is_evalplus_record

    row = first_record(p)
    if not row:
        return None
    keys = set(row)
    if "dockerhub_tag" in keys or "selected_test_files_to_run" in keys:  # SWE-bench Pro's own fields
        return "swebench_pro"
    if keys & {"base_commit", "model_patch", "resolved_ids"} or ("instance_id" in keys and "patch" in keys):
        return "swebench"
    if is_evalplus_record(row):
        return "evalplus"  # EvalPlus's release files: HumanEval's fields and the inputs, no check()
    if "canonical_solution" in keys or {"entry_point", "prompt"} <= keys or (
        "task_id" in keys and keys & {"solution", "completion"}
    ):
        return "humaneval"
    return None


def _looks_like_harbor(p: Path) -> bool:
    for depth in ("", "*/", "*/*/"):
        if any(p.glob(f"{depth}instruction.md")) and any(p.glob(f"{depth}task.toml")):
            return True
    return any(
        (r.parent / "verifier").is_dir() for pattern in ("*/result.json", "*/*/result.json", "*/*/*/result.json")
        for r in p.glob(pattern)
    )


__all__ = ["FORMATS", "ImportedRun", "ImportError_", "ImportProblem", "detect_format", "tree_digest"]
