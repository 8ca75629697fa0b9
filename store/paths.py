"""Where the store lives, and whether a path can hold one: checked before SQLite is asked, so the
message names the real obstacle (a folder, a device, a read-only file or folder) instead of SQLite's."""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

from testjack_tui.environment import Variables, read


def default_store_path() -> str:
    return read(Variables).store


def path_problem(path: Path, write: bool = False) -> str:
    """Why ``path`` cannot hold a store (one to write, with ``write``); "" when nothing is in the way."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return _creation_problem(path)
    except NotADirectoryError:
        return f"{path}: part of this path is a file, not a folder"
    except OSError as exc:
        return f"{path}: cannot look at this path ({exc.strerror or exc})"
    if stat.S_ISDIR(st.st_mode):
        return (f"{path}: is a folder, not a store file; give --store a file path, "
                f"for example {path / 'testjack.db'}")
    if not stat.S_ISREG(st.st_mode):
        return (f"{path}: is not a regular file (a device, pipe or socket); a store is an SQLite file, "
                f"for example ./testjack.db")
    if not os.access(path, os.R_OK):
        return f"{path}: no permission to read the store"
    if not write:
        return ""
    if not os.access(path, os.W_OK):
        return (f"{path}: the store is read-only (no permission to write it); make it writable "
                f"(chmod u+w {shlex.quote(str(path))}) or give --store a writable copy")
    folder = path.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        return (f"{path}: its folder {folder} is read-only; SQLite writes {path.name}-wal and "
                f"{path.name}-shm beside the store, so the folder must be writable")
    for side in (Path(f"{path}-wal"), Path(f"{path}-shm")):
        if side.exists() and not os.access(side, os.W_OK):
            return f"{path}: {side.name} beside it is read-only; make it writable or remove it with the store closed"
    files = Path(f"{path}.files")
    for folder in (files, files / "staging", files / "snapshots"):
        if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
            return f"{path}: the folder {folder} is read-only; imports write task snapshots there"
    return ""


def _creation_problem(path: Path) -> str:
    """Why a store cannot be created at ``path`` (which does not exist yet)."""
    ancestor = path.parent
    try:
        while not ancestor.exists() and ancestor != ancestor.parent:
            ancestor = ancestor.parent
    except OSError as exc:
        return f"{path}: cannot create the store there ({exc.strerror or exc})"
    if not ancestor.is_dir():
        return f"{path}: cannot create the store there: {ancestor} is a file, not a folder"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"{path}: cannot create the store there: the folder {ancestor} is read-only"
    return ""
