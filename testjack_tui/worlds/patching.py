"""Apply one unified diff to a world, the way SWE-bench's harness does.

Three tools are tried in order and the first that exits 0 wins: ``git apply --verbose``,
``git apply --verbose --reject``, ``patch --batch --fuzz=5 -p1 -i``. Unlike the harness's shell
chain, every attempt starts from the same tree: the files the diff touches are saved before the
first attempt and put back after a failed one, so a half-applied ``--reject`` never leaves hunks
that ``patch --batch`` would then take for a reversed patch and undo.

The files a diff touches are read by ``patches.touched_paths``; they are given their own inode before any tool
writes (see ``materialise.own_copy``), so no tool ever writes through a hard link to the snapshot.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

from testjack_tui import patches

from .request import Patch


class PatchFailed(Exception):
    """A patch did not apply; the message names the patch and the failing file and hunk."""


def touched_paths(text: str) -> list[str]:
    """Repository-relative paths a diff reads or writes, inside the world: an absolute path or one
    climbing out with ``..`` is the tools' to refuse, never ours to copy or restore."""
    return [p for p in patches.touched_paths(text) if not os.path.isabs(p) and ".." not in Path(p).parts]


def _run(argv: list[str], cwd: Path) -> tuple[int, str]:
    # GIT_CEILING_DIRECTORIES: never let git discover a repository *above* the world (it would
    # then apply paths relative to that repository and silently skip ours).
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=str(cwd.parent), LC_ALL="C")
    proc = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace", timeout=120)
    return proc.returncode, proc.stdout


def _failures(output: str) -> list[str]:
    """The failing file/hunk lines of git apply's and patch's output, most precise first."""
    lines = []
    for line in output.splitlines():
        line = line.strip()
        if re.search(r"(error: patch failed|Rejected hunk|Hunk #\d+ FAILED|can't find file|"
                     r"No such file|does not exist in index|already exists|corrupt patch|"
                     r"No valid patches|Only garbage|malformed patch|does not apply)", line):
            lines.append(line)
    return lines


def apply_patch(world: Path, patch: Patch, own_copy) -> None:
    """Apply ``patch`` inside ``world``; raise PatchFailed naming the hunk when no tool manages.

    ``own_copy(path)`` gives a path its own inode (breaks a hard link); it is called on every
    existing file the diff touches before any tool runs.
    """
    if not patch.text.strip():
        return
    paths = touched_paths(patch.text)
    saved: dict[str, bytes | None] = {}
    for rel in paths:
        target = world / rel
        if target.is_file() and not target.is_symlink():
            own_copy(target)
            saved[rel] = target.read_bytes()
        elif not target.exists():
            saved[rel] = None
    with tempfile.NamedTemporaryFile("w", suffix=".diff", delete=False) as fh:
        fh.write(patch.text if patch.text.endswith("\n") else patch.text + "\n")
        diff_file = fh.name
    attempts = [
        ["git", "apply", "--verbose", diff_file],
        ["git", "apply", "--verbose", "--reject", diff_file],
        ["patch", "--batch", "--fuzz=5", "-p1", "-i", diff_file],
    ]
    outputs = []
    try:
        for argv in attempts:
            code, out = _run(argv, world)
            if code == 0:
                _drop_leftovers(world, saved)
                return
            outputs.append((argv, out))
            _restore(world, saved)
    finally:
        os.unlink(diff_file)
    details: list[str] = []
    for _, out in reversed(outputs):  # the most lenient tool's complaint first
        for line in _failures(out):
            if line not in details:
                details.append(line)
    if not details:
        details = [outputs[-1][1].strip().splitlines()[-1] if outputs[-1][1].strip() else "no output"]
    raise PatchFailed(f"patch {patch.name!r} does not apply: " + "; ".join(details[:8]))


def _restore(world: Path, saved: dict[str, bytes | None]) -> None:
    for rel, data in saved.items():
        target = world / rel
        if data is None:
            if target.is_file() or target.is_symlink():
                target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_symlink():
                target.unlink()
            target.write_bytes(data)
    _drop_leftovers(world, saved)


def _drop_leftovers(world: Path, saved: dict[str, bytes | None]) -> None:
    # .rej and .orig files the tools leave beside the files they touched
    for rel in saved:
        for suffix in (".rej", ".orig"):
            extra = world / (rel + suffix)
            if extra.is_file() and rel + suffix not in saved:
                extra.unlink()
