"""What TestJack's cache directory holds, and how to prune it.

The cache (``materialise.default_cache_dir()``: ``$TESTJACK_CACHE``, else the user's cache folder,
``~/.cache/testjack`` on Linux) holds:

- ``snapshots/<digest>``: pristine read-only trees worlds hard-link to, each with a
  ``<digest>.ready`` marker (touched each time the tree is handed out, so its mtime is the last
  use) and a ``<digest>.lock`` file taken while it is built; ``<digest>.tmp-*`` are builds in
  progress or builds that died;
- ``venvs/<key>``: virtualenvs per set of requirements (``.testjack-ready`` inside, touched on each
  use; ``venvs/<key>.lock`` beside) and ``venvs/base-<tag>``: two ``python`` shims for the
  interpreter running TestJack, a few hundred bytes;
- ``worlds/run-*``: one directory per local execution, removed when it ends; any that stay are
  leftovers of a process that was killed;
- ``docker-deps/<key>``: requirements installed for the Docker backend; pruned like virtualenvs;
- ``fetched/<key>``: task snapshots a Ray node fetched from the head (``ray_executor``), with
  ``<key>.ready`` and ``<key>.lock`` beside them like the snapshot trees; pruned like them.

``prune`` removes snapshot trees, virtualenvs and docker-deps not used for N days, base shims as old whose
interpreter no longer exists, and ``worlds/run-*`` leftovers older than a day. It takes an
entry's lock without waiting and skips the entry when someone holds it (a build in progress). It deletes the ready
marker first, so a concurrent user who arrives meanwhile waits for the lock and rebuilds instead
of linking into a half-deleted tree, then makes the directories writable and removes the tree.
Lock files stay: they are empty, and unlinking a lock file another process has open would let two
builders run at once. Worlds already made from a removed tree keep working: their files are hard
links, so the data lives on until the last link goes.

Sizes are disk usage (allocated blocks, as ``du`` counts them), each inode once per entry. This is
a few dozen lines of ``os.walk`` rather than a library: nothing in our dependencies measures trees
or knows our markers and locks.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

DAY = 24 * 3600
WORLD_LEFTOVER_AGE = DAY  # a local run is bounded by its timeout; a day-old run dir is a crash's
__all__ = ["CacheEntry", "KindTotal", "PruneSummary", "mark_used", "prune", "totals", "usage"]

KINDS = ("snapshot", "venv", "world", "docker-deps", "fetched")  # the order ``usage`` lists them in


def mark_used(ready: Path) -> bool:
    """Touch a ready marker so its mtime says when the entry was last used; False if it is gone
    (never built, or pruned a moment ago: the caller then builds under the lock)."""
    try:
        os.utime(ready)
        return True
    except FileNotFoundError:
        return False


@dataclass(frozen=True)
class CacheEntry:
    kind: str  # one of KINDS
    name: str  # the directory's name
    path: Path
    bytes: int  # disk usage
    last_used: float  # seconds since the epoch
    ready: Path | None = None  # the marker to delete first
    lock: Path | None = None  # the lock a builder holds
    prunable: bool = True  # False: listed only (a base shim whose interpreter exists)


@dataclass
class PruneSummary:
    removed: list[CacheEntry] = field(default_factory=list)  # or, with dry_run, would be
    skipped: list[tuple[CacheEntry, str]] = field(default_factory=list)  # entry, why
    dry_run: bool = False

    @property
    def freed(self) -> int:
        return sum(e.bytes for e in self.removed)


@dataclass(frozen=True)
class KindTotal:
    kind: str
    count: int
    bytes: int
    oldest_use: float | None


def _disk_usage(path: Path) -> int:
    seen: set[tuple[int, int]] = set()
    total = 0
    for root, dirs, files in os.walk(path):
        for name in [".", *dirs, *files]:
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:  # removed while we looked
                continue
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return None


def _entry(kind: str, path: Path, ready: Path | None = None, lock: Path | None = None,
           prunable: bool = True) -> CacheEntry | None:
    """None when ``path`` went away meanwhile (a run that just ended)."""
    used = (_mtime(ready) if ready else None) or _mtime(path)
    if used is None:
        return None
    return CacheEntry(kind, path.name, path, _disk_usage(path), used, ready, lock, prunable)


def _shim_interpreter(base_env: Path) -> str | None:
    try:
        line = (base_env / "bin" / "python").read_text().splitlines()[1]
    except (OSError, IndexError):
        return None
    parts = line.split()  # exec <interpreter> "$@"
    return parts[1] if len(parts) >= 2 and parts[0] == "exec" else None


def _dirs(parent: Path) -> list[Path]:
    if not parent.is_dir():
        return []
    return sorted(p for p in parent.iterdir() if p.is_dir() and not p.is_symlink())


def usage(cache_dir: Path) -> list[CacheEntry]:
    """Every entry of the cache, by kind (``KINDS`` order), least recently used first."""
    cache_dir = Path(cache_dir)
    entries: list[CacheEntry | None] = []
    snaps = cache_dir / "snapshots"
    for tree in _dirs(snaps):
        digest = tree.name.split(".tmp-")[0]
        ready = None if ".tmp-" in tree.name else snaps / f"{digest}.ready"
        entries.append(_entry("snapshot", tree, ready, snaps / f"{digest}.lock"))
    venvs = cache_dir / "venvs"
    for env in _dirs(venvs):
        if env.name.startswith("base-"):
            interpreter = _shim_interpreter(env)
            gone = interpreter is None or not os.path.exists(interpreter)
            entries.append(_entry("venv", env, prunable=gone))
        else:
            entries.append(_entry("venv", env, env / ".testjack-ready", venvs / f"{env.name}.lock"))
    for run in _dirs(cache_dir / "worlds"):
        if run.name.startswith("run-"):
            entries.append(_entry("world", run))
    deps = cache_dir / "docker-deps"
    for target in _dirs(deps):
        entries.append(_entry("docker-deps", target, deps / f"{target.name}.ready", deps / f"{target.name}.lock"))
    fetched = cache_dir / "fetched"
    for tree in _dirs(fetched):
        key = tree.name.split(".tmp-")[0]
        ready = None if ".tmp-" in tree.name else fetched / f"{key}.ready"
        entries.append(_entry("fetched", tree, ready, fetched / f"{key}.lock"))
    found = [e for e in entries if e is not None]
    found.sort(key=lambda e: (KINDS.index(e.kind), e.last_used))
    return found


def totals(entries: list[CacheEntry]) -> list[KindTotal]:
    """Per kind present: how many entries, their size, the oldest last use."""
    out = []
    for kind in KINDS:
        mine = [e for e in entries if e.kind == kind]
        if mine:
            out.append(KindTotal(kind, len(mine), sum(e.bytes for e in mine),
                                 min(e.last_used for e in mine)))
    return out


@contextmanager
def _try_lock(lock: Path | None, create: bool) -> Iterator[bool]:
    """Hold ``lock`` if nobody else does; yields False (and holds nothing) if someone does."""
    if lock is None or (not create and not lock.exists()):  # a dry run creates no lock file
        yield True
        return
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing releases the lock


def _remove_tree(path: Path) -> None:
    # pristine directories are 0o555 (and worlds may have been chmod-ed by a test): open them up
    for root, dirs, files in os.walk(path):
        os.chmod(root, 0o755)
    shutil.rmtree(path)


def _due(entry: CacheEntry, older_than: float, now: float) -> bool:
    if not entry.prunable:
        return False
    if entry.kind == "world":
        return now - entry.last_used > WORLD_LEFTOVER_AGE
    # a base shim is prunable only when its interpreter is gone (from here: another container
    # sharing the cache may still have it, so the age rule applies too)
    return now - entry.last_used > older_than


def _used_since(ready: Path, seen: float) -> bool:
    """True when ``ready`` was touched after ``usage`` read it (someone used the entry since)."""
    current = _mtime(ready)
    return current is not None and current > seen


def prune(cache_dir: Path, older_than_days: float, dry_run: bool = False) -> PruneSummary:
    """Remove snapshot trees and virtualenvs unused for ``older_than_days``, base shims as old
    whose interpreter no longer exists, and ``worlds/run-*`` left over for more than a day.

    An entry whose lock is held (being built) is skipped, and so is one that cannot be removed
    (the reason is in ``skipped``). Worlds already linked from a removed tree keep working: their
    files are hard links. With ``dry_run`` nothing changes and ``removed`` lists what would go.
    """
    if older_than_days < 0:
        raise ValueError("older_than_days must not be negative")
    now = time.time()
    summary = PruneSummary(dry_run=dry_run)
    for entry in usage(cache_dir):
        if not _due(entry, older_than_days * DAY, now):
            continue
        with _try_lock(entry.lock, create=not dry_run) as held:
            if not held:
                summary.skipped.append((entry, "locked: being built"))
                continue
            if entry.ready is not None and _used_since(entry.ready, entry.last_used):
                summary.skipped.append((entry, "used while pruning"))
                continue
            if dry_run:
                summary.removed.append(entry)
                continue
            try:
                if entry.ready is not None:
                    entry.ready.unlink(missing_ok=True)  # first: newcomers rebuild, not link
                _remove_tree(entry.path)
            except OSError as exc:
                summary.skipped.append((entry, f"cannot remove: {exc}"))
                continue
            summary.removed.append(entry)
    return summary

