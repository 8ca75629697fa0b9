"""What goes wrong with a store, in words the user can act on: the exceptions, and the messages for
the errors SQLite raises (damaged, not a database, read-only, locked)."""

from __future__ import annotations

import shlex
from pathlib import Path


class StoreError(Exception):
    """A problem with the store the user can act on; the message says what."""


class StoreTooNew(StoreError):
    pass


class NotFound(StoreError):
    pass


class StoreDamaged(StoreError):
    """SQLite says the store's file is damaged, or is not a database at all."""


def is_damage(exc: BaseException) -> bool:
    """SQLite says the file is damaged or is not a database (rather than locked, read-only, ...)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith("SQLITE_CORRUPT") or name == "SQLITE_NOTADB":
        return True
    text = str(exc)
    return "malformed" in text or "not a database" in text


def _what_to_do(path: Path) -> str:
    return (f"Run `testjack doctor --store {shlex.quote(str(path))}` for the full check, then restore "
            f"{path.name} (with {path.name}.files) from a copy, or import the runs again into a new store.")


def damaged_message(path: Path, problems: list[str], unchanged: bool = True) -> str:
    """The message for a store SQLite's check failed: what it found, and what to do."""
    lines = [
        line.strip()
        for problem in problems
        for line in str(problem).splitlines()
        if line.strip() and not line.startswith("*** in database")
    ] or ["unknown problem"]
    more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
    kept = " Nothing was written to it." if unchanged else ""
    return f"{path}: the store is damaged (SQLite: {lines[0]}{more}).{kept} {_what_to_do(path)}"


def store_problem(path: Path, exc: BaseException, unchanged: bool = False) -> StoreError:
    """A StoreError for an sqlite3 error met on the store at ``path``, naming the file and what to do."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    if is_damage(exc):
        if name == "SQLITE_NOTADB" or "not a database" in text:
            return StoreDamaged(
                f"{path}: cannot open as a TestJack store: SQLite says {text!r} (a file of another kind, "
                f"or a store whose header is damaged). {_what_to_do(path)}"
            )
        return StoreDamaged(damaged_message(path, [text], unchanged=unchanged))
    if name == "SQLITE_READONLY_DIRECTORY":
        return StoreError(
            f"{path}: its folder {path.parent} is read-only; SQLite must create {path.name}-wal and "
            f"{path.name}-shm beside the store, even to read it; make the folder writable or copy the store"
        )
    if name.startswith("SQLITE_READONLY") or "readonly" in text:
        return StoreError(f"{path}: the store is read-only ({text}); make it writable or give --store a writable copy")
    if name.startswith("SQLITE_BUSY") or "locked" in text:
        return StoreError(f"{path}: the store is locked by another program ({text}); try again when it is done")
    if name.startswith("SQLITE_CANTOPEN") or "unable to open" in text:
        return StoreError(f"{path}: SQLite cannot open this file ({text}); --store must be a file you may read and write")
    return StoreError(f"{path}: cannot open as a TestJack store ({text})")
