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

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from testjack_tui.model import Run, Task, Trial


@dataclass
class ImportProblem:
    file: str
    record: str  # "line 7", "task add-ints", "instance django__django-1234"
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.record}" if self.record else self.file
        return f"{where}: {self.message}"


class ImportError_(Exception):
    """The input cannot be imported. ``problems`` name each file and record at fault."""

    def __init__(self, problems: list[ImportProblem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass
class ImportedRun:
    run: Run
    tasks: list[Task]
    trials: list[Trial]
    skipped: list[ImportProblem] = field(default_factory=list)
    # imported as given, but worth a look: unknown keys, samples read another way than labelled
    warnings: list[ImportProblem] = field(default_factory=list)


def tree_digest(root: str | os.PathLike[str]) -> str:
    """Content hash of a directory: relative paths, modes and bytes, in sorted order."""
    h = hashlib.sha256()
    base = Path(root)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(base).as_posix()
            h.update(rel.encode() + b"\0")
            if path.is_symlink():
                h.update(b"L" + os.readlink(path).encode())
            else:
                h.update(b"X" if os.access(path, os.X_OK) else b"F")
                h.update(path.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


FORMATS = ("native", "swebench", "humaneval", "harbor")


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
        for f in sorted(p.iterdir()):
            if f.is_file() and f.name.endswith((".jsonl", ".json", ".jsonl.gz", ".json.gz")):
                found = _format_of_record(f)
                if found:
                    return found
        return "native"
    found = _format_of_record(p)
    if found is None:
        from testjack_tui.formats._common import open_text

        open_text(p)  # a file that cannot be read (a corrupt .gz, not UTF-8) is named as such
    return found or "native"


def _format_of_record(p: Path) -> str | None:
    from testjack_tui.formats._common import first_record

    row = first_record(p)
    if not row:
        return None
    keys = set(row)
    if keys & {"base_commit", "model_patch", "resolved_ids"} or ("instance_id" in keys and "patch" in keys):
        return "swebench"
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
