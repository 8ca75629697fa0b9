"""The SQLite store: the only code in TestJack that speaks SQL.

Built on sqlite-utils. The database runs in WAL mode so that the console can read while audit
workers write; each thread gets its own connection (SQLite connections must not cross threads).
Every write is one transaction (``sqlite_utils.Database.atomic``), so a crash leaves each step
either fully recorded or not at all. Task snapshots (R as plain files) live beside the database
in ``<store>.files/snapshots/<digest>``, read-only, shared by every run that has the same tree.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sqlite3
import stat
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

import sqlite_utils

try:
    import fcntl
except ImportError:  # not POSIX: no lock can be taken, so no staging directory counts as left over
    fcntl = None

from store.schema import CURRENT_VERSION, MIGRATIONS
from testjack_tui.model import (
    AuthorKind,
    Backend,
    Classification,
    Constraint,
    Environment,
    Evidence,
    EvidenceKind,
    Grounding,
    LLMCall,
    Official,
    Origin,
    Requirement,
    RequirementKind,
    Ruling,
    Run,
    RunSummary,
    Task,
    TestSpec,
    Trial,
    Verdict,
    VerdictRecord,
    VerdictSource,
    Witness,
    WitnessResult,
    WitnessStatus,
    Outcome,
)


class StoreError(Exception):
    """A problem with the store the user can act on; the message says what."""


class StoreTooNew(StoreError):
    pass


class NotFound(StoreError):
    pass


class StoreDamaged(StoreError):
    """SQLite says the store's file is damaged, or is not a database at all."""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def default_store_path() -> str:
    return os.environ.get("TESTJACK_STORE") or "testjack.db"


@dataclass
class TrialRow:
    """One line of the console's trial table: a trial with its current verdict."""

    run_id: str
    id: str
    task_id: str
    model: str
    agent: str
    official: str
    recomputed: str
    verdict: str
    verdict_source: str
    reviewed: bool
    evidence: int
    error: str


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


class Store:
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
        if problem:
            raise StoreError(problem)
        if access is not None:
            self._refuse_if_damaged()
        self._migrate()
        if access == "write":
            self.removed_staging = self.clean_staging()

    # ------------------------------------------------------------------ connections

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

    # ------------------------------------------------------------------ schema

    def _migrate(self) -> None:
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = self.db
            db.enable_wal()
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            version = self.schema_version()
            if version > CURRENT_VERSION:
                raise StoreTooNew(
                    f"{self.path}: this store has schema version {version}, made by a newer TestJack; "
                    f"this one knows versions up to {CURRENT_VERSION}. Upgrade testjack to open it."
                )
            for number in range(version + 1, CURRENT_VERSION + 1):
                self.migrate_to(number)
        except sqlite3.DatabaseError as exc:  # not a database, damaged, read-only, locked
            self.close()
            raise store_problem(self.path, exc) from exc

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

    def migrate_to(self, number: int) -> None:
        """Apply migration ``number`` (1-based). Public so tests can build an old store."""
        _title, ddl = MIGRATIONS[number - 1]
        with self._tx() as db:
            for statement in _split_sql(ddl):
                db.execute(statement)
            db.execute(
                "INSERT INTO meta(key, value) VALUES('schema_version', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(number),),
            )

    def schema_version(self) -> int:
        row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(row[0]) if row else 0

    def integrity_check(self) -> str:
        return str(self._scalar("PRAGMA integrity_check"))

    # ------------------------------------------------------------------ import

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

    def import_run(self, run: Run, tasks: list[Task], trials: list[Trial]) -> tuple[str, bool]:
        """Store a whole run in one transaction. Returns (run id, created).

        Importing content that is already in the store (same digest) returns the existing run.
        """
        if run.digest:
            existing = self._one("SELECT id FROM runs WHERE digest = ? AND name = ?", (run.digest, run.name))
            if existing:
                return existing["id"], False
        clash = self._one("SELECT id FROM runs WHERE name = ?", (run.name,))
        if clash:
            raise StoreError(
                f"a run named {run.name!r} is already in the store with different content "
                f"(id {clash['id']}); import it under another name with --name"
            )
        run.id = run.id or self._new_run_id(run.name)
        run.created_at = run.created_at or now()
        for task in tasks:
            task.snapshot = self._adopt_snapshot(task.snapshot, task.snapshot_digest)
        stamp = now()
        with self._tx() as db:
            db["runs"].insert(
                {
                    "id": run.id,
                    "name": run.name,
                    "benchmark": run.benchmark,
                    "description": run.description,
                    "source": run.source,
                    "format": run.format,
                    "default_backend": str(run.default_backend),
                    "image": run.image,
                    "digest": run.digest,
                    "created_at": run.created_at,
                }
            )
            db["tasks"].insert_all(
                (self._task_row(run.id, seq, t) for seq, t in enumerate(tasks)), batch_size=200
            )
            db["trials"].insert_all(
                (
                    {
                        "run_id": run.id,
                        "id": t.id,
                        "seq": seq,
                        "task_id": t.task_id,
                        "model": t.model,
                        "agent": t.agent,
                        "patch": t.patch,
                        "official": str(t.official),
                        "cost_usd": t.cost_usd,
                        "tokens": t.tokens,
                        "metadata": json.dumps(t.metadata),
                        "recomputed": t.recomputed,
                        "error": t.error,
                    }
                    for seq, t in enumerate(trials)
                ),
                batch_size=500,
            )
            db["verdicts"].insert_all(
                (
                    {
                        "run_id": run.id,
                        "trial_id": t.id,
                        "verdict": str(
                            Verdict.NOT_PASSING if t.official == Official.FAILED else Verdict.UNAUDITED
                        ),
                        "source": "auto",
                        "rule": "benchmark verdict" if t.official == Official.FAILED else "not audited yet",
                        "witnesses": "[]",
                        "updated_at": stamp,
                    }
                    for t in trials
                ),
                batch_size=500,
            )
        return run.id, True

    def _task_row(self, run_id: str, seq: int, t: Task) -> dict[str, Any]:
        return {
            "run_id": run_id,
            "id": t.id,
            "seq": seq,
            "title": t.title,
            "prompt": t.prompt,
            "snapshot": t.snapshot,
            "snapshot_digest": t.snapshot_digest,
            "reference_patch": t.reference_patch,
            "test_patch": t.test_patch,
            "tests": json.dumps(
                {
                    "command": t.tests.command,
                    "fail_to_pass": t.tests.fail_to_pass,
                    "pass_to_pass": t.tests.pass_to_pass,
                    "timeout": t.tests.timeout,
                    "log_parser": t.tests.log_parser,
                }
            ),
            "environment": json.dumps(
                {
                    "backend": str(t.environment.backend) if t.environment.backend else None,
                    "image": t.environment.image,
                    "requirements": t.environment.requirements,
                    "setup": t.environment.setup,
                }
            ),
            "malformed": None if t.malformed is None else int(t.malformed),
            "malformed_reason": t.malformed_reason,
            "null_passing_tests": json.dumps(t.null_passing_tests),
            "error": t.error,
            "domain": _domain_json(t.domain),
        }

    def _new_run_id(self, name: str) -> str:
        base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "run"
        candidate, n = base, 2
        while self._one("SELECT 1 AS x FROM runs WHERE id = ?", (candidate,)):
            candidate, n = f"{base}-{n}", n + 1
        return candidate

    def _adopt_snapshot(self, staged: str, digest: str) -> str:
        """Move a staged snapshot into the shared, read-only snapshot directory."""
        final = self.files / "snapshots" / digest
        if final.exists():
            if Path(staged).resolve() != final.resolve():
                shutil.rmtree(staged, ignore_errors=True)
            return str(final)
        final.parent.mkdir(parents=True, exist_ok=True)
        src = Path(staged)
        if src.resolve().is_relative_to(self.files.resolve()):
            os.replace(src, final)
        else:
            tmp = final.with_name(final.name + f".tmp-{uuid.uuid4().hex[:8]}")
            shutil.copytree(src, tmp, symlinks=True)
            os.replace(tmp, final)
        _make_read_only(final)
        return str(final)

    def discard_staging(self, staging: Path) -> None:
        shutil.rmtree(staging, ignore_errors=True)
        fd = self._staging_locks.pop(str(staging), None)
        if fd is not None:
            os.close(fd)  # releases the lock

    # ------------------------------------------------------------------ runs

    def _run(self, row: dict[str, Any]) -> Run:
        return Run(
            id=row["id"],
            name=row["name"],
            benchmark=row["benchmark"],
            description=row["description"],
            source=row["source"],
            format=row["format"],
            default_backend=Backend(row["default_backend"]),
            image=row["image"],
            digest=row["digest"],
            created_at=row["created_at"],
        )

    def list_runs(self) -> list[Run]:
        return [self._run(r) for r in self._rows("SELECT * FROM runs ORDER BY created_at, id")]

    def get_run(self, ref: str) -> Run:
        """A run by id, else by name. Raises NotFound naming what is in the store."""
        row = self._one("SELECT * FROM runs WHERE id = ?", (ref,))
        if row is None:
            rows = self._rows("SELECT * FROM runs WHERE name = ? ORDER BY created_at", (ref,))
            if len(rows) > 1:
                ids = ", ".join(r["id"] for r in rows)
                raise NotFound(f"several runs are named {ref!r} ({ids}); use the id")
            row = rows[0] if rows else None
        if row is None:
            known = ", ".join(r.id for r in self.list_runs()) or "none"
            raise NotFound(f"no run {ref!r} in {self.path} (runs: {known})")
        return self._run(row)

    def find_run_by_source(self, source: str) -> Run | None:
        row = self._one("SELECT * FROM runs WHERE source = ? ORDER BY created_at DESC", (source,))
        return self._run(row) if row else None

    def summary(self, run_id: str) -> RunSummary:
        s = RunSummary()
        s.trials = self._scalar("SELECT count(*) FROM trials WHERE run_id = ?", (run_id,)) or 0
        s.passing = (
            self._scalar(
                "SELECT count(*) FROM trials WHERE run_id = ? AND official = 'passed'", (run_id,)
            )
            or 0
        )
        for verdict, count in self.db.execute(
            "SELECT verdict, count(*) FROM verdicts WHERE run_id = ? GROUP BY verdict", (run_id,)
        ).fetchall():
            if verdict == Verdict.REFUTED:
                s.refuted += count
            elif verdict == Verdict.REWARD_HACK:
                s.reward_hack += count
                s.refuted += count
            elif verdict == Verdict.SOUND:
                s.sound = count
            elif verdict == Verdict.UNAUDITED:
                s.unaudited = count
            elif verdict == Verdict.NOT_PASSING:
                s.not_passing = count
            elif verdict == Verdict.NOT_REPRODUCED:
                s.not_reproduced = count
        s.ambiguous_witnesses = (
            self._scalar(
                "SELECT count(*) FROM witnesses WHERE run_id = ? AND status = 'validated' "
                "AND classification = 'ambiguous'",
                (run_id,),
            )
            or 0
        )
        s.outside_domain_witnesses = (
            self._scalar(
                "SELECT count(*) FROM witnesses WHERE run_id = ? AND status = 'validated' "
                "AND grounding IN ('outside_domain', 'unplaced')",
                (run_id,),
            )
            or 0
        )
        s.slow_findings = (
            self._scalar("SELECT count(*) FROM evidence WHERE run_id = ? AND kind = 'slow'", (run_id,)) or 0
        )
        s.malformed_tasks = (
            self._scalar("SELECT count(*) FROM tasks WHERE run_id = ? AND malformed = 1", (run_id,)) or 0
        )
        s.executions = self._scalar("SELECT count(*) FROM executions WHERE run_id = ?", (run_id,)) or 0
        row = self.db.execute(
            "SELECT coalesce(sum(prompt_tokens + completion_tokens), 0), coalesce(sum(cost_usd), 0) "
            "FROM llm_calls WHERE run_id = ?",
            (run_id,),
        ).fetchone()
        s.llm_tokens, s.cost_usd = int(row[0]), round(float(row[1]), 6)
        return s

    # ------------------------------------------------------------------ tasks

    def _task(self, row: dict[str, Any]) -> Task:
        tests = json.loads(row["tests"])
        env = json.loads(row["environment"])
        return Task(
            run_id=row["run_id"],
            id=row["id"],
            title=row["title"],
            prompt=row["prompt"],
            snapshot=row["snapshot"],
            snapshot_digest=row["snapshot_digest"],
            reference_patch=row["reference_patch"],
            test_patch=row["test_patch"],
            tests=TestSpec(**tests),
            environment=Environment(
                backend=Backend(env["backend"]) if env.get("backend") else None,
                image=env.get("image"),
                requirements=list(env.get("requirements") or []),
                setup=env.get("setup"),
            ),
            malformed=None if row["malformed"] is None else bool(row["malformed"]),
            malformed_reason=row["malformed_reason"],
            null_passing_tests=json.loads(row["null_passing_tests"]),
            error=row["error"],
            domain=[Constraint(**c) for c in json.loads(row.get("domain") or "[]")],
        )

    def list_tasks(self, run_id: str) -> list[Task]:
        return [self._task(r) for r in self._rows("SELECT * FROM tasks WHERE run_id = ? ORDER BY seq", (run_id,))]

    def get_task(self, run_id: str, task_id: str) -> Task:
        row = self._one("SELECT * FROM tasks WHERE run_id = ? AND id = ?", (run_id, task_id))
        if row is None:
            raise NotFound(f"no task {task_id!r} in run {run_id!r}")
        return self._task(row)

    def set_task_evaluation(
        self, run_id: str, task_id: str, *, malformed: bool, reason: str, null_passing: list[str], error: str = ""
    ) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE tasks SET malformed = ?, malformed_reason = ?, null_passing_tests = ?, error = ? "
                "WHERE run_id = ? AND id = ?",
                (int(malformed), reason, json.dumps(null_passing), error, run_id, task_id),
            )

    def set_task_domain(self, run_id: str, task_id: str, domain: list[Constraint]) -> None:
        """Keep the input domain built from P (and the inputs P and T0 show) on the task."""
        with self._tx() as db:
            db.execute("UPDATE tasks SET domain = ? WHERE run_id = ? AND id = ?",
                       (_domain_json(domain), run_id, task_id))

    # ------------------------------------------------------------------ trials

    def _trial(self, row: dict[str, Any]) -> Trial:
        return Trial(
            run_id=row["run_id"],
            id=row["id"],
            task_id=row["task_id"],
            model=row["model"],
            agent=row["agent"],
            patch=row["patch"],
            official=Official(row["official"]),
            cost_usd=row["cost_usd"],
            tokens=row["tokens"],
            metadata=json.loads(row["metadata"]),
            recomputed=row["recomputed"],
            error=row["error"],
            reviewed=bool(row["reviewed"]),
        )

    def list_trial_objects(self, run_id: str, task_id: str | None = None) -> list[Trial]:
        if task_id is None:
            rows = self._rows("SELECT * FROM trials WHERE run_id = ? ORDER BY seq", (run_id,))
        else:
            rows = self._rows(
                "SELECT * FROM trials WHERE run_id = ? AND task_id = ? ORDER BY seq", (run_id, task_id)
            )
        return [self._trial(r) for r in rows]

    def get_trial(self, run_id: str, trial_id: str) -> Trial:
        row = self._one("SELECT * FROM trials WHERE run_id = ? AND id = ?", (run_id, trial_id))
        if row is None:
            raise NotFound(f"no trial {trial_id!r} in run {run_id!r}")
        return self._trial(row)

    def find_trial(self, trial_id: str, run_id: str | None = None) -> Trial:
        """A trial by its id alone (the CLI's TRIAL); ambiguous ids ask for the run."""
        if run_id:
            return self.get_trial(run_id, trial_id)
        rows = self._rows("SELECT * FROM trials WHERE id = ?", (trial_id,))
        if not rows:
            raise NotFound(f"no trial {trial_id!r} in {self.path}")
        if len(rows) > 1:
            runs = ", ".join(r["run_id"] for r in rows)
            raise NotFound(f"trial {trial_id!r} is in several runs ({runs}); name the run with --run")
        return self._trial(rows[0])

    def _trial_filter(
        self,
        run_id: str,
        *,
        verdict: str | None = None,
        task: str | None = None,
        model: str | None = None,
        evidence_kind: str | None = None,
        search: str | None = None,
        reviewed: bool | None = None,
    ) -> tuple[str, list[Any]]:
        where = ["t.run_id = ?"]
        params: list[Any] = [run_id]
        if verdict:
            where.append("v.verdict = ?")
            params.append(verdict)
        if task:
            where.append("t.task_id = ?")
            params.append(task)
        if model:
            where.append("t.model = ?")
            params.append(model)
        if reviewed is not None:
            where.append("t.reviewed = ?")
            params.append(int(reviewed))
        if evidence_kind:
            where.append(
                "EXISTS (SELECT 1 FROM evidence e WHERE e.run_id = t.run_id AND e.trial_id = t.id AND e.kind = ?)"
            )
            params.append(evidence_kind)
        if search:
            where.append("(t.id LIKE ? OR t.task_id LIKE ? OR t.model LIKE ? OR t.agent LIKE ?)")
            params.extend([f"%{search}%"] * 4)
        return " AND ".join(where), params

    def list_trials(
        self, run_id: str, *, sort: str = "seq", offset: int = 0, limit: int = 200, **filters: Any
    ) -> list[TrialRow]:
        """A page of the trial table, filtered and sorted in SQL (indexed for large runs).

        Filters: verdict, task, model, evidence_kind, search, reviewed.
        """
        where, params = self._trial_filter(run_id, **filters)
        order = {
            "seq": "t.seq",
            "id": "t.id",
            "task": "t.task_id, t.seq",
            "model": "t.model, t.seq",
            "verdict": "v.verdict, t.seq",
        }.get(sort, "t.seq")
        sql = (
            "SELECT t.run_id, t.id, t.task_id, t.model, t.agent, t.official, t.recomputed, t.reviewed, t.error, "
            "v.verdict, v.source, "
            "(SELECT count(*) FROM evidence e WHERE e.run_id = t.run_id AND e.trial_id = t.id) AS evidence "
            "FROM trials t JOIN verdicts v ON v.run_id = t.run_id AND v.trial_id = t.id "
            f"WHERE {where} ORDER BY {order} LIMIT ? OFFSET ?"
        )
        params.extend([limit, offset])
        return [
            TrialRow(
                run_id=r["run_id"],
                id=r["id"],
                task_id=r["task_id"],
                model=r["model"],
                agent=r["agent"],
                official=r["official"],
                recomputed=r["recomputed"],
                verdict=r["verdict"],
                verdict_source=r["source"],
                reviewed=bool(r["reviewed"]),
                evidence=r["evidence"],
                error=r["error"],
            )
            for r in self._rows(sql, params)
        ]

    def count_trials(self, run_id: str, *, sort: str | None = None, **filters: Any) -> int:
        """How many trials the same filters as ``list_trials`` select (``sort`` changes nothing)."""
        where, params = self._trial_filter(run_id, **filters)
        return int(self._scalar(
            "SELECT count(*) FROM trials t JOIN verdicts v ON v.run_id = t.run_id AND v.trial_id = t.id "
            f"WHERE {where}", params) or 0)

    def trial_facets(self, run_id: str) -> dict[str, list[str]]:
        """Distinct tasks and models of a run, for the console's filters."""
        return {
            "task": [r[0] for r in self.db.execute(
                "SELECT id FROM tasks WHERE run_id = ? ORDER BY seq", (run_id,)).fetchall()],
            "model": [r[0] for r in self.db.execute(
                "SELECT DISTINCT model FROM trials WHERE run_id = ? ORDER BY model", (run_id,)).fetchall()],
        }

    def set_trial_recomputed(self, run_id: str, trial_id: str, recomputed: str, error: str = "") -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE trials SET recomputed = ?, error = ? WHERE run_id = ? AND id = ?",
                (recomputed, error, run_id, trial_id),
            )

    def set_trial_official(self, run_id: str, trial_id: str, official: Official) -> None:
        """For inputs that carried no verdict: the evaluator's T0 result becomes the benchmark's."""
        with self._tx() as db:
            db.execute(
                "UPDATE trials SET official = ? WHERE run_id = ? AND id = ?", (str(official), run_id, trial_id)
            )

    def set_reviewed(self, run_id: str, trial_id: str, reviewed: bool = True) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE trials SET reviewed = ? WHERE run_id = ? AND id = ?", (int(reviewed), run_id, trial_id)
            )

    # ------------------------------------------------------------------ verdicts

    def _verdict(self, row: dict[str, Any]) -> VerdictRecord:
        return VerdictRecord(
            run_id=row["run_id"],
            trial_id=row["trial_id"],
            verdict=Verdict(row["verdict"]),
            source=VerdictSource(row["source"]),
            rule=row["rule"],
            ruling_id=row["ruling_id"],
            witnesses=json.loads(row["witnesses"]),
            updated_at=row["updated_at"],
        )

    def get_verdict(self, run_id: str, trial_id: str) -> VerdictRecord:
        row = self._one("SELECT * FROM verdicts WHERE run_id = ? AND trial_id = ?", (run_id, trial_id))
        if row is None:
            raise NotFound(f"no verdict for trial {trial_id!r} in run {run_id!r}")
        return self._verdict(row)

    def list_verdicts(self, run_id: str) -> dict[str, VerdictRecord]:
        return {
            r["trial_id"]: self._verdict(r)
            for r in self._rows("SELECT * FROM verdicts WHERE run_id = ?", (run_id,))
        }

    def set_verdicts(self, records: list[VerdictRecord]) -> None:
        stamp = now()
        with self._tx() as db:
            for v in records:
                db.execute(
                    "INSERT INTO verdicts(run_id, trial_id, verdict, source, rule, ruling_id, witnesses, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id, trial_id) DO UPDATE SET "
                    "verdict = excluded.verdict, source = excluded.source, rule = excluded.rule, "
                    "ruling_id = excluded.ruling_id, witnesses = excluded.witnesses, updated_at = excluded.updated_at",
                    (
                        v.run_id,
                        v.trial_id,
                        str(v.verdict),
                        str(v.source),
                        v.rule,
                        v.ruling_id,
                        json.dumps(v.witnesses),
                        stamp,
                    ),
                )

    # ------------------------------------------------------------------ executions (the cache)

    def get_execution(self, key: str) -> dict[str, Any] | None:
        row = self._one("SELECT result FROM executions WHERE key = ?", (key,))
        return json.loads(row["result"]) if row else None

    def put_execution(self, key: str, run_id: str | None, label: str, request: dict, result: dict) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR IGNORE INTO executions(key, run_id, label, status, duration, request, result, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    run_id,
                    label,
                    result.get("status", ""),
                    float(result.get("duration") or 0.0),
                    json.dumps(request),
                    json.dumps(result),
                    now(),
                ),
            )

    # ------------------------------------------------------------------ requirements

    def put_requirements(self, reqs: list[Requirement]) -> None:
        with self._tx() as db:
            for r in reqs:
                db["requirements"].upsert(
                    {
                        "run_id": r.run_id,
                        "task_id": r.task_id,
                        "id": r.id,
                        "text": r.text,
                        "kind": str(r.kind),
                        "covered_by_t0": None if r.covered_by_t0 is None else int(r.covered_by_t0),
                        "trial_id": r.trial_id,
                        "implemented": None if r.implemented is None else int(r.implemented),
                    },
                    pk=("run_id", "task_id", "id"),
                )

    def list_requirements(self, run_id: str, task_id: str) -> list[Requirement]:
        return [
            Requirement(
                run_id=r["run_id"],
                task_id=r["task_id"],
                id=r["id"],
                text=r["text"],
                kind=RequirementKind(r["kind"]),
                covered_by_t0=None if r["covered_by_t0"] is None else bool(r["covered_by_t0"]),
                trial_id=r["trial_id"],
                implemented=None if r["implemented"] is None else bool(r["implemented"]),
            )
            for r in self._rows(
                "SELECT * FROM requirements WHERE run_id = ? AND task_id = ? ORDER BY rowid", (run_id, task_id)
            )
        ]

    # ------------------------------------------------------------------ evidence

    def replace_evidence(self, run_id: str, trial_id: str, items: list[Evidence]) -> None:
        """Evidence of a trial is recomputed as a whole; the new list replaces the old one."""
        with self._tx() as db:
            db.execute("DELETE FROM evidence WHERE run_id = ? AND trial_id = ?", (run_id, trial_id))
            for e in items:
                db.execute(
                    "INSERT INTO evidence(run_id, trial_id, kind, detector, detail, file, line, mentioned_in_prompt) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        run_id,
                        trial_id,
                        str(e.kind),
                        e.detector,
                        e.detail,
                        e.file,
                        int(e.line or 0),
                        None if e.mentioned_in_prompt is None else int(e.mentioned_in_prompt),
                    ),
                )

    def list_evidence(self, run_id: str, trial_id: str | None = None, task_id: str | None = None) -> list[Evidence]:
        if task_id is not None:
            rows = self._rows(
                "SELECT e.* FROM evidence e JOIN trials t ON t.run_id = e.run_id AND t.id = e.trial_id "
                "WHERE e.run_id = ? AND t.task_id = ? ORDER BY e.trial_id, e.id",
                (run_id, task_id),
            )
        elif trial_id is None:
            rows = self._rows("SELECT * FROM evidence WHERE run_id = ? ORDER BY trial_id, id", (run_id,))
        else:
            rows = self._rows(
                "SELECT * FROM evidence WHERE run_id = ? AND trial_id = ? ORDER BY id", (run_id, trial_id)
            )
        return [
            Evidence(
                id=r["id"],
                run_id=r["run_id"],
                trial_id=r["trial_id"],
                kind=EvidenceKind(r["kind"]),
                detector=r["detector"],
                detail=r["detail"],
                file=r["file"],
                line=r["line"],
                mentioned_in_prompt=None if r["mentioned_in_prompt"] is None else bool(r["mentioned_in_prompt"]),
            )
            for r in rows
        ]

    # ------------------------------------------------------------------ witnesses

    def _witness(self, row: dict[str, Any]) -> Witness:
        return Witness(
            id=row["id"],
            run_id=row["run_id"],
            task_id=row["task_id"],
            requirement=row["requirement"],
            requirement_kind=RequirementKind(row["requirement_kind"]),
            origin=Origin(row["origin"]),
            author=AuthorKind(row["author"]),
            code=row["code"],
            path=row["path"],
            status=WitnessStatus(row["status"]),
            classification=Classification(row["classification"]) if row["classification"] else None,
            rho=row["rho"],
            flaky=bool(row["flaky"]),
            found_on=row["found_on"],
            discard_reason=row["discard_reason"],
            attempts=row["attempts"],
            created_at=row["created_at"],
            grounding=Grounding(row["grounding"]) if row.get("grounding") else None,
            meets=json.loads(row.get("meets") or "[]"),
            breaks=json.loads(row.get("breaks") or "[]"),
            slow_only=bool(row.get("slow_only") or 0),
        )

    def put_witness(self, w: Witness) -> None:
        w.created_at = w.created_at or now()
        with self._tx() as db:
            seq = self._scalar(
                "SELECT coalesce((SELECT seq FROM witnesses WHERE id = ?), "
                "(SELECT coalesce(max(seq), -1) + 1 FROM witnesses WHERE run_id = ? AND task_id = ?))",
                (w.id, w.run_id, w.task_id),
            )
            db["witnesses"].upsert(
                {
                    "id": w.id,
                    "run_id": w.run_id,
                    "task_id": w.task_id,
                    "seq": seq,
                    "requirement": w.requirement,
                    "requirement_kind": str(w.requirement_kind),
                    "origin": str(w.origin),
                    "author": str(w.author),
                    "code": w.code,
                    "path": w.path,
                    "status": str(w.status),
                    "classification": str(w.classification) if w.classification else None,
                    "rho": w.rho,
                    "flaky": int(w.flaky),
                    "found_on": w.found_on,
                    "discard_reason": w.discard_reason,
                    "attempts": w.attempts,
                    "created_at": w.created_at,
                    "grounding": str(w.grounding) if w.grounding else None,
                    "meets": json.dumps(w.meets),
                    "breaks": json.dumps(w.breaks),
                    "slow_only": int(w.slow_only),
                },
                pk="id",
            )

    def get_witness(self, witness_id: str) -> Witness:
        row = self._one("SELECT * FROM witnesses WHERE id = ?", (witness_id,))
        if row is None:
            raise NotFound(f"no witness {witness_id!r} in {self.path}")
        return self._witness(row)

    def list_witnesses(
        self, run_id: str, task_id: str | None = None, status: str | None = None
    ) -> list[Witness]:
        where, params = ["run_id = ?"], [run_id]
        if task_id is not None:
            where.append("task_id = ?")
            params.append(task_id)
        if status is not None:
            where.append("status = ?")
            params.append(status)
        sql = f"SELECT * FROM witnesses WHERE {' AND '.join(where)} ORDER BY task_id, seq"
        return [self._witness(r) for r in self._rows(sql, params)]

    def put_witness_result(self, r: WitnessResult) -> None:
        with self._tx() as db:
            db["witness_results"].upsert(
                {
                    "witness_id": r.witness_id,
                    "world": r.world,
                    "outcome": str(r.outcome),
                    "runs": json.dumps(r.runs),
                    "log": r.log,
                    "execution_key": r.execution_key,
                },
                pk=("witness_id", "world"),
            )

    def witness_results(self, witness_id: str) -> dict[str, WitnessResult]:
        return {
            r["world"]: WitnessResult(
                witness_id=r["witness_id"],
                world=r["world"],
                outcome=Outcome(r["outcome"]),
                runs=json.loads(r["runs"]),
                log=r["log"],
                execution_key=r["execution_key"],
            )
            for r in self._rows("SELECT * FROM witness_results WHERE witness_id = ?", (witness_id,))
        }

    def witness_results_for_run(self, run_id: str) -> dict[str, dict[str, str]]:
        """witness id -> world -> outcome, for every witness of a run (one query, for reports)."""
        out: dict[str, dict[str, str]] = {}
        for wid, world, outcome in self.db.execute(
            "SELECT r.witness_id, r.world, r.outcome FROM witness_results r "
            "JOIN witnesses w ON w.id = r.witness_id WHERE w.run_id = ?",
            (run_id,),
        ).fetchall():
            out.setdefault(wid, {})[world] = outcome
        return out

    # ------------------------------------------------------------------ rulings

    def add_ruling(self, r: Ruling) -> int:
        r.created_at = r.created_at or now()
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO rulings(run_id, target, target_id, value, before, reason, author, created_at, undoes) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (r.run_id, r.target, r.target_id, r.value, r.before, r.reason, r.author, r.created_at, r.undoes),
            )
            r.id = cur.lastrowid
        return int(r.id)

    def list_rulings(self, run_id: str, target: str | None = None, target_id: str | None = None) -> list[Ruling]:
        where, params = ["run_id = ?"], [run_id]
        if target:
            where.append("target = ?")
            params.append(target)
        if target_id:
            where.append("target_id = ?")
            params.append(target_id)
        return [
            Ruling(
                id=r["id"],
                run_id=r["run_id"],
                target=r["target"],
                target_id=r["target_id"],
                value=r["value"],
                before=r["before"],
                reason=r["reason"],
                author=r["author"],
                created_at=r["created_at"],
                undoes=r["undoes"],
            )
            for r in self._rows(f"SELECT * FROM rulings WHERE {' AND '.join(where)} ORDER BY id", params)
        ]

    def effective_rulings(self, run_id: str, target: str) -> dict[str, Ruling]:
        """The ruling in force per target: the latest one that has not been undone."""
        rulings = self.list_rulings(run_id, target)
        undone = {r.undoes for r in rulings if r.undoes is not None}
        live: dict[str, Ruling] = {}
        for r in rulings:
            if r.undoes is None and r.id not in undone:
                live[r.target_id] = r
        return live

    # ------------------------------------------------------------------ LLM calls

    def add_llm_call(self, c: LLMCall) -> int:
        c.created_at = c.created_at or now()
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO llm_calls(run_id, trial_id, task_id, model, purpose, prompt_tokens, completion_tokens, "
                "cost_usd, latency_s, outcome, transcript, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    c.run_id,
                    c.trial_id,
                    c.task_id,
                    c.model,
                    c.purpose,
                    c.prompt_tokens,
                    c.completion_tokens,
                    c.cost_usd,
                    c.latency_s,
                    c.outcome,
                    c.transcript,
                    c.created_at,
                ),
            )
            c.id = cur.lastrowid
        return int(c.id)

    def list_llm_calls(self, run_id: str, trial_id: str | None = None) -> list[LLMCall]:
        where, params = ["run_id = ?"], [run_id]
        if trial_id is not None:
            where.append("trial_id = ?")
            params.append(trial_id)
        return [
            LLMCall(**{k: r[k] for k in r})
            for r in self._rows(f"SELECT * FROM llm_calls WHERE {' AND '.join(where)} ORDER BY id", params)
        ]

    def llm_totals(self, run_id: str, trial_id: str | None = None) -> tuple[int, float]:
        where, params = ["run_id = ?"], [run_id]
        if trial_id is not None:
            where.append("trial_id = ?")
            params.append(trial_id)
        row = self.db.execute(
            "SELECT coalesce(sum(prompt_tokens + completion_tokens), 0), coalesce(sum(cost_usd), 0) "
            f"FROM llm_calls WHERE {' AND '.join(where)}",
            params,
        ).fetchone()
        return int(row[0]), float(row[1])

    # ------------------------------------------------------------------ checkpoints

    def step_done(self, run_id: str, key: str) -> bool:
        return self._one("SELECT 1 AS x FROM steps WHERE run_id = ? AND key = ?", (run_id, key)) is not None

    def get_step(self, run_id: str, key: str) -> Any:
        row = self._one("SELECT value FROM steps WHERE run_id = ? AND key = ?", (run_id, key))
        return None if row is None else json.loads(row["value"])

    def mark_step(self, run_id: str, key: str, value: Any = None) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO steps(run_id, key, value, created_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(run_id, key) DO UPDATE SET value = excluded.value",
                (run_id, key, json.dumps(value), now()),
            )

    def steps_with_prefix(self, run_id: str, prefix: str) -> dict[str, Any]:
        """Every checkpoint whose key starts with ``prefix``, by the rest of its key (one query)."""
        rows = self._rows(
            "SELECT key, value FROM steps WHERE run_id = ? AND substr(key, 1, ?) = ?",
            (run_id, len(prefix), prefix),
        )
        return {r["key"][len(prefix):]: json.loads(r["value"]) for r in rows}

    def clear_steps(self, run_id: str, prefix: str) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM steps WHERE run_id = ? AND key LIKE ?", (run_id, prefix + "%"))

    # ------------------------------------------------------------------ audits (for comparing modes)

    def start_audit(self, run_id: str, mode: str, author: str, seed: int, rounds: int | None, backend: str) -> int:
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO audits(run_id, mode, author, seed, rounds, backend, status, started_at) "
                "VALUES (?, ?, ?, ?, ?, ?, 'running', ?)",
                (run_id, mode, author, seed, rounds, backend, now()),
            )
            return int(cur.lastrowid)

    def finish_audit(
        self, audit_id: int, status: str, executions: int, llm_tokens: int, cost_usd: float, verdicts: dict[str, str]
    ) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE audits SET status = ?, finished_at = ?, executions = ?, llm_tokens = ?, cost_usd = ?, "
                "verdicts = ? WHERE id = ?",
                (status, now(), executions, llm_tokens, cost_usd, json.dumps(verdicts), audit_id),
            )

    def list_audits(self, run_id: str) -> list[dict[str, Any]]:
        rows = self._rows("SELECT * FROM audits WHERE run_id = ? ORDER BY id", (run_id,))
        for r in rows:
            r["verdicts"] = json.loads(r["verdicts"])
        return rows


def _domain_json(domain: list[Constraint]) -> str:
    return json.dumps([
        {"id": c.id, "kind": c.kind, "text": c.text, "source": c.source, "params": c.params,
         "check": c.check, "stated": c.stated}
        for c in domain
    ])


def _split_sql(ddl: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies (BEGIN ... END;) whole."""
    statements, buf = [], []
    in_trigger = False
    for line in ddl.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("--"):
            continue
        buf.append(line)
        if stripped.upper().startswith("CREATE TRIGGER"):
            in_trigger = True
        if in_trigger:
            if stripped.upper().endswith("END;"):
                statements.append("\n".join(buf))
                buf, in_trigger = [], False
        elif stripped.endswith(";"):
            statements.append("\n".join(buf))
            buf = []
    if buf:
        statements.append("\n".join(buf))
    return statements


def _make_read_only(root: Path) -> None:
    """Snapshots are shared by hard links with every world: nobody may write through them."""
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            p = Path(dirpath) / name
            if not p.is_symlink():
                mode = p.stat().st_mode
                p.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


# ---------------------------------------------------------------------- opening, integrity, staging


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


def _is_damage(exc: BaseException) -> bool:
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
    if _is_damage(exc):
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
            if not _is_damage(exc):
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
        if not _is_damage(exc):
            raise
        return None
