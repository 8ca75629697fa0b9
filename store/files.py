"""The files beside the database, in ``<store>.files``: staging directories and task snapshots.

An import writes task snapshots (R as plain files) into a staging directory first; the run's
transaction then adopts each into ``snapshots/<digest>``, read-only and shared by every run with the
same tree. A staging directory an interrupted import left behind is found by its lock: the process
that made it holds the lock until it is done, and the operating system drops it when that process dies.
"""

from __future__ import annotations

import os
import shutil
import stat
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: no lock can be taken, so no staging directory counts as left over
    fcntl = None

from testjack_tui.store.connection import Connection

# A staging directory is "left over" only if it is older than this process and nobody holds its lock.
PROCESS_STARTED = time.time()
STAGING_LOCK = ".lock"


@dataclass
class StagingDir:
    """A directory under ``<store>.files/staging``: in use by a live import, or left over by a dead one."""

    path: Path
    bytes: int
    modified: float
    in_use: bool


class StoreFiles(Connection):
    """Staging directories for imports; ``self._staging_locks`` holds the locks this process keeps."""

    _staging_locks: dict[str, int]

    def staging_dir(self) -> Path:
        """A fresh directory on the store's file system for an importer to write snapshots into.

        The directory holds a lock file (``.lock``, with the pid) that this process keeps locked until
        :meth:`discard_staging`; the operating system drops the lock when the process dies, which is how
        the next open for writing tells a leftover from a directory a live import is using.
        """
        path = self.files / "staging" / uuid.uuid4().hex
        path.mkdir(parents=True)
        fd = os.open(path / STAGING_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:
            os.close(fd)
            raise
        self._staging_locks[str(path)] = fd
        return path

    def staging_leftovers(self) -> list[StagingDir]:
        """Every directory under ``<store>.files/staging``, each marked in use or left over.

        A directory is left over when no process holds its lock and it is older than this process
        (so one an import is creating right now is never taken for a leftover).
        """
        return scan_staging(self.files)

    def clean_staging(self) -> list[Path]:
        """Remove staging directories left over by interrupted imports; returns the ones removed."""
        removed = []
        for leftover in self.staging_leftovers():
            if leftover.in_use or str(leftover.path) in self._staging_locks:
                continue
            _remove_tree(leftover.path)
            if not leftover.path.exists():
                removed.append(leftover.path)
        return removed

    def discard_staging(self, staging: Path) -> None:
        shutil.rmtree(staging, ignore_errors=True)
        fd = self._staging_locks.pop(str(staging), None)
        if fd is not None:
            os.close(fd)  # releases the lock


def adopt_snapshot(files: Path, staged: str, digest: str) -> str:
    """Move a staged snapshot into the shared, read-only snapshot directory under ``files``."""
    final = files / "snapshots" / digest
    if final.exists():
        if Path(staged).resolve() != final.resolve():
            shutil.rmtree(staged, ignore_errors=True)
        return str(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    src = Path(staged)
    if src.resolve().is_relative_to(files.resolve()):
        os.replace(src, final)
    else:
        tmp = final.with_name(final.name + f".tmp-{uuid.uuid4().hex[:8]}")
        shutil.copytree(src, tmp, symlinks=True)
        os.replace(tmp, final)
    _make_read_only(final)
    return str(final)


def _make_read_only(root: Path) -> None:
    """Snapshots are shared by hard links with every world: nobody may write through them."""
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            p = Path(dirpath) / name
            if not p.is_symlink():
                mode = p.stat().st_mode
                p.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def scan_staging(files: Path) -> list[StagingDir]:
    """Every directory under ``files/staging``, each marked in use or left over (see Store.staging_dir)."""
    root = files / "staging"
    try:
        entries = sorted(root.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for entry in entries:
        if entry.is_symlink() or not entry.is_dir():
            continue
        try:
            modified = entry.stat().st_mtime
        except FileNotFoundError:  # its import just finished
            continue
        in_use = modified >= PROCESS_STARTED or _staging_locked(entry)
        found.append(StagingDir(entry, _tree_size(entry), modified, in_use))
    return found


def _staging_locked(directory: Path) -> bool:
    """Whether a live process holds the lock of a staging directory."""
    if fcntl is None:
        return True
    try:
        fd = os.open(directory / STAGING_LOCK, os.O_RDONLY)
    except FileNotFoundError:
        return False  # made by a TestJack from before the lock files, or its process died first
    except OSError:
        return True  # cannot tell: keep it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # also releases the lock just taken
    return False


def _tree_size(root: Path) -> int:
    total = 0
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def _remove_tree(root: Path) -> None:
    """rmtree that also removes what sits in read-only folders (never following a symlink)."""
    for dirpath, dirnames, _filenames in os.walk(root):
        for name in dirnames:
            sub = os.path.join(dirpath, name)
            if not os.path.islink(sub):
                try:
                    os.chmod(sub, 0o700)
                except OSError:
                    pass
    try:
        os.chmod(root, 0o700)
    except OSError:
        pass
    shutil.rmtree(root, ignore_errors=True)
