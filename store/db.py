"""The SQLite store: the only code in TestJack that speaks SQL.

Built on sqlite-utils. :class:`Store` is one object made of a module per concern, each a mixin on
the thread's connection (``connection``):

- ``schema``: the tables as forward migrations, applied when a store is opened;
- ``runs``: runs and tasks (with each task's requirements), importing a whole run;
- ``trials``: trials, their verdicts and their evidence;
- ``witnesses``: witnesses and their results in each world;
- ``rulings``: the analyst's rulings;
- ``executions``: the execution cache;
- ``llm_calls``: the LLM authors' calls;
- ``steps``: audit checkpoints and the audits themselves;
- ``files``: staging directories and task snapshots beside the database, in ``<store>.files``.

``errors`` words what goes wrong, ``paths`` checks a path before SQLite opens it, and ``doctor``
examines a store without changing it.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
from pathlib import Path

from testjack_tui.store.connection import now
from testjack_tui.store.doctor import StoreHealth, examine
from testjack_tui.store.errors import NotFound, StoreDamaged, StoreError, StoreTooNew, damaged_message, store_problem
from testjack_tui.store.executions import ExecutionCache
from testjack_tui.store.files import StagingDir, StoreFiles, scan_staging
from testjack_tui.store.llm_calls import LLMCalls
from testjack_tui.store.paths import default_store_path, path_problem
from testjack_tui.store.rulings import Rulings
from testjack_tui.store.runs import RunsAndTasks
from testjack_tui.store.schema import Migrations
from testjack_tui.store.steps import AuditSteps
from testjack_tui.store.trials import TrialRow, TrialsAndVerdicts
from testjack_tui.store.witnesses import WitnessesAndResults

__all__ = [
    "Store", "StoreError", "StoreTooNew", "StoreDamaged", "NotFound", "TrialRow", "StagingDir", "StoreHealth",
    "default_store_path", "path_problem", "damaged_message", "store_problem", "scan_staging", "examine", "now",
]


class Store(
    RunsAndTasks,
    TrialsAndVerdicts,
    WitnessesAndResults,
    Rulings,
    ExecutionCache,
    LLMCalls,
    AuditSteps,
    StoreFiles,
    Migrations,
):
    """The store at ``path``.

    ``access`` says what the caller means to do. ``None`` (library use, workers) opens the store as it
    is. ``"read"`` and ``"write"`` first run SQLite's ``quick_check`` and refuse a damaged store with
    :class:`StoreDamaged`; ``"write"`` also refuses a store the user may not write, and removes staging
    directories that an interrupted import left behind (never one a live import holds).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, access: str | None = None):
        if access not in (None, "read", "write"):
            raise ValueError(f"access must be None, 'read' or 'write', not {access!r}")
        self.path = Path(path or default_store_path())
        self.files = Path(str(self.path) + ".files")
        self.access = access
        self._local = threading.local()
        self._staging_locks: dict[str, int] = {}
        self.removed_staging: list[Path] = []  # leftovers this open removed (access="write")
        problem = path_problem(self.path, write=access == "write")
        if access == "read" and not problem and not self.path.exists():
            # reading must not leave an empty store (and its folder) behind a mistyped --store
            problem = (f"{self.path}: no store here; this command only reads one, so it does not "
                       "create it (import or audit a run first, or give --store the path of your store)")
        if problem:
            raise StoreError(problem)
        if access is not None:
            self._refuse_if_damaged()
        self._migrate()
        if access == "write":
            self.removed_staging = self.clean_staging()

    def own_paths(self) -> tuple[Path, ...]:
        """Every path of the store on disk: the database, SQLite's WAL and shared-memory files,
        and the files beside it (snapshots, staging). Test processes must not see them. Absolute:
        a test runs in its own world, where a store named relative to here (``--store s.db``) is
        another path, and covering it there fails every run."""
        here = self.path.absolute()
        return (here, Path(f"{here}-wal"), Path(f"{here}-shm"), self.files.absolute())

    def remove(self) -> None:
        """Close the store and delete it from disk (every path of ``own_paths``): for a store a
        failed command created, never for one that held runs before."""
        self.close()
        for path in self.own_paths():
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)

    def _refuse_if_damaged(self) -> None:
        """Run SQLite's quick_check before anything reads or writes; raise StoreDamaged if it fails."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return  # a store about to be created
        try:
            rows = [str(r[0]) for r in self.db.execute("PRAGMA quick_check(10)").fetchall()]
        except sqlite3.DatabaseError as exc:  # too damaged for the check to run, or not a database
            self.close()
            raise store_problem(self.path, exc, unchanged=True) from exc
        if rows != ["ok"]:
            self.close()
            raise StoreDamaged(damaged_message(self.path, rows))

    def integrity_check(self) -> str:
        return str(self._scalar("PRAGMA integrity_check"))
