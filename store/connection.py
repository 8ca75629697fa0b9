"""The per-thread SQLite connection and the few query helpers every table module is written with.

Each table module is a mixin on :class:`Connection`; ``Store`` (``store/db.py``) is all of them. The
database runs in WAL mode so the console can read while audit workers write; each thread gets its
own connection, since SQLite connections must not cross threads. Every write is one transaction
(``_tx``), so a crash leaves each step either fully recorded or not at all.

Every table's columns are named after the fields of the model class a row becomes, so one reader,
``from_row``, builds any of them; a table module names only the fields whose column needs converting.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import Any, Iterator, Mapping, TypeVar

import sqlite_utils


T = TypeVar("T")


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.init)


def from_row(cls: type[T], row: Mapping[str, Any], **converted: Any) -> T:
    """A dataclass from a table row: each field from the column of its name, as SQLite returns it,
    except the ``converted`` ones (an enum, JSON text, a 0/1 flag), given ready. A column the row
    lacks leaves its field at the default; a column no field names (``seq``) is left out."""
    values = {name: row[name] for name in _field_names(cls) if name in row}
    values.update(converted)
    return cls(**values)


def flag(value: Any) -> bool | None:
    """A 0/1 column that may be NULL (not known yet) as a bool, or None."""
    return None if value is None else bool(value)


class Connection:
    """A thread's connection to the store at ``path``; ``files`` is the folder beside it."""

    path: Path
    files: Path
    _local: threading.local

    @property
    def db(self) -> sqlite_utils.Database:
        db = getattr(self._local, "db", None)
        if db is None:
            conn = sqlite3.connect(str(self.path), timeout=30)
            db = sqlite_utils.Database(conn)
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA busy_timeout=30000")
            self._local.db = db
        return db

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None

    @contextmanager
    def _tx(self) -> Iterator[sqlite_utils.Database]:
        with self.db.atomic() as db:
            yield db

    def _rows(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        cur = self.db.execute(sql, params)
        cols = [c[0] for c in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]

    def _one(self, sql: str, params: Any = ()) -> dict[str, Any] | None:
        rows = self._rows(sql, params)
        return rows[0] if rows else None

    def _scalar(self, sql: str, params: Any = ()) -> Any:
        row = self.db.execute(sql, params).fetchone()
        return row[0] if row else None
