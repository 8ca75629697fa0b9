"""The per-thread SQLite connection and the few query helpers every table module is written with.

Each table module is a mixin on :class:`Connection`; ``Store`` (``store/db.py``) is all of them. The
database runs in WAL mode so the console can read while audit workers write; each thread gets its
own connection, since SQLite connections must not cross threads. Every write is one transaction
(``_tx``), so a crash leaves each step either fully recorded or not at all.
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

import sqlite_utils


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


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
