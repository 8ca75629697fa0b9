"""What an importer hands back (``ImportedRun``), how it names bad input (``ImportProblem``,
``ImportError_``), and the content digest that identifies a snapshot tree."""

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
