"""What ``testjack doctor`` reports about a store, read without changing it (no migration, no cleanup)."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from testjack_tui.store.errors import is_damage, store_problem
from testjack_tui.store.files import StagingDir, scan_staging
from testjack_tui.store.paths import path_problem


@dataclass
class StoreHealth:
    """What ``testjack doctor`` found. ``problem`` is set when the file could not be examined at all."""

    path: Path
    size: int = 0
    problem: str = ""
    integrity: list[str] | None = None  # ["ok"], or the problems PRAGMA integrity_check names
    schema_version: int | None = None
    counts: dict[str, int | None] | None = None  # runs, tasks, trials; None where unreadable
    runs: list[tuple[str, str]] | None = None  # (id, source) of each run, when readable
    staging: list[StagingDir] | None = None

    @property
    def healthy(self) -> bool:
        return not self.problem and self.integrity == ["ok"]


def examine(path: str | os.PathLike[str]) -> StoreHealth:
    """Everything ``testjack doctor`` reports, read without changing the store (no migration, no cleanup)."""
    path = Path(path)
    health = StoreHealth(path=path, staging=scan_staging(Path(f"{path}.files")))
    try:
        path.stat()
    except FileNotFoundError:
        health.problem = (f"{path}: no store here (no such file); give --store the store's file, "
                          f"or set $TESTJACK_STORE")
        return health
    except OSError:
        pass  # path_problem names it
    health.problem = path_problem(path)
    if health.problem:
        return health
    health.size = path.stat().st_size
    conn = None
    try:
        conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=30)
        try:
            health.integrity = [str(r[0]) for r in conn.execute("PRAGMA integrity_check(100)").fetchall()]
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            # The full check gave up on a page it could not read; the quick one often still says which.
            quick = _try_rows(conn, "PRAGMA quick_check(100)") or []
            health.integrity = [str(r[0]) for r in quick if r[0] != "ok"] + [f"integrity_check stopped: {exc}"]
        tables = _try_rows(conn, "SELECT name FROM sqlite_master WHERE type = 'table'")
        names = {r[0] for r in tables or []}
        if "meta" in names:
            version = _try_rows(conn, "SELECT value FROM meta WHERE key = 'schema_version'")
            health.schema_version = int(version[0][0]) if version else 0
        elif names and health.integrity == ["ok"]:
            health.problem = f"{path}: an SQLite database, but not a TestJack store (it has no meta table)"
        health.counts = {}
        for table in ("runs", "tasks", "trials"):
            rows = _try_rows(conn, f"SELECT count(*) FROM {table}") if table in names else None
            health.counts[table] = int(rows[0][0]) if rows else None
        if "runs" in names:
            rows = _try_rows(conn, "SELECT id, source FROM runs ORDER BY created_at, id")
            health.runs = None if rows is None else [(str(r[0]), str(r[1])) for r in rows]
    except sqlite3.DatabaseError as exc:
        health.problem = str(store_problem(path, exc))
    finally:
        if conn is not None:
            conn.close()
    return health


def _try_rows(conn: sqlite3.Connection, sql: str) -> list[tuple] | None:
    """The rows of a query, or None when the store is too damaged to answer it."""
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
        return None
