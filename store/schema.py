"""The store's schema as forward migrations, and the code that applies them: the one home of DDL.

Each migration moves a store from version N-1 to N and never changes once released: a store made
by an older TestJack is brought forward when it is opened, and a store made by a newer one is
refused (its tables may mean things this version does not know).
"""

from __future__ import annotations

import sqlite3

from testjack_tui.store.connection import Connection
from testjack_tui.store.errors import StoreTooNew, store_problem

MIGRATIONS: list[tuple[str, str]] = [
    (
        "runs, tasks, trials, verdicts and the execution cache",
        """
        CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            benchmark TEXT NOT NULL DEFAULT '',
            description TEXT NOT NULL DEFAULT '',
            source TEXT NOT NULL DEFAULT '',
            format TEXT NOT NULL DEFAULT 'native',
            default_backend TEXT NOT NULL DEFAULT 'local',
            image TEXT,
            digest TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL
        );
        CREATE INDEX runs_name ON runs(name);
        CREATE INDEX runs_digest ON runs(digest);

        CREATE TABLE tasks (
            run_id TEXT NOT NULL REFERENCES runs(id),
            id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            prompt TEXT NOT NULL DEFAULT '',
            snapshot TEXT NOT NULL,
            snapshot_digest TEXT NOT NULL,
            reference_patch TEXT NOT NULL DEFAULT '',
            test_patch TEXT NOT NULL DEFAULT '',
            tests TEXT NOT NULL,
            environment TEXT NOT NULL,
            malformed INTEGER,
            malformed_reason TEXT NOT NULL DEFAULT '',
            null_passing_tests TEXT NOT NULL DEFAULT '[]',
            error TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (run_id, id)
        );

        CREATE TABLE trials (
            run_id TEXT NOT NULL REFERENCES runs(id),
            id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            task_id TEXT NOT NULL,
            model TEXT NOT NULL DEFAULT '',
            agent TEXT NOT NULL DEFAULT '',
            patch TEXT NOT NULL DEFAULT '',
            official TEXT NOT NULL,
            cost_usd REAL,
            tokens INTEGER,
            metadata TEXT NOT NULL DEFAULT '{}',
            recomputed TEXT NOT NULL DEFAULT '',
            error TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (run_id, id)
        );
        CREATE INDEX trials_task ON trials(run_id, task_id, seq);
        CREATE INDEX trials_model ON trials(run_id, model, seq);
        CREATE INDEX trials_seq ON trials(run_id, seq);

        CREATE TABLE verdicts (
            run_id TEXT NOT NULL,
            trial_id TEXT NOT NULL,
            verdict TEXT NOT NULL,
            source TEXT NOT NULL DEFAULT 'auto',
            rule TEXT NOT NULL DEFAULT '',
            ruling_id INTEGER,
            witnesses TEXT NOT NULL DEFAULT '[]',
            updated_at TEXT NOT NULL,
            PRIMARY KEY (run_id, trial_id)
        );
        CREATE INDEX verdicts_by_verdict ON verdicts(run_id, verdict, trial_id);

        CREATE TABLE executions (
            key TEXT PRIMARY KEY,
            run_id TEXT,
            label TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL,
            duration REAL NOT NULL DEFAULT 0,
            request TEXT NOT NULL,
            result TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX executions_run ON executions(run_id);
        """,
    ),
    (
        "the audit: requirements, evidence, witnesses, rulings, LLM calls, checkpoints",
        """
        ALTER TABLE trials ADD COLUMN reviewed INTEGER NOT NULL DEFAULT 0;

        CREATE TABLE requirements (
            run_id TEXT NOT NULL,
            task_id TEXT NOT NULL,
            id TEXT NOT NULL,
            text TEXT NOT NULL,
            kind TEXT NOT NULL,
            covered_by_t0 INTEGER,
            trial_id TEXT,
            implemented INTEGER,
            PRIMARY KEY (run_id, task_id, id)
        );

        CREATE TABLE evidence (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL,
            trial_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            detector TEXT NOT NULL DEFAULT '',
            detail TEXT NOT NULL,
            file TEXT NOT NULL DEFAULT '',
            line INTEGER NOT NULL DEFAULT 0,
            mentioned_in_prompt INTEGER
        );
        CREATE INDEX evidence_trial ON evidence(run_id, trial_id);
        CREATE INDEX evidence_kind ON evidence(run_id, kind, trial_id);

        CREATE TABLE witnesses (
            id TEXT PRIMARY KEY,
            run_id TEXT NOT NULL,
            task_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            requirement TEXT NOT NULL,
            requirement_kind TEXT NOT NULL,
            origin TEXT NOT NULL,
            author TEXT NOT NULL,
            code TEXT NOT NULL,
            path TEXT NOT NULL,
            status TEXT NOT NULL,
            classification TEXT,
            rho REAL,
            flaky INTEGER NOT NULL DEFAULT 0,
            found_on TEXT,
            discard_reason TEXT NOT NULL DEFAULT '',
            attempts INTEGER NOT NULL DEFAULT 1,
            created_at TEXT NOT NULL
        );
        CREATE INDEX witnesses_task ON witnesses(run_id, task_id, seq);
        CREATE INDEX witnesses_class ON witnesses(run_id, classification);

        CREATE TABLE witness_results (
            witness_id TEXT NOT NULL,
            world TEXT NOT NULL,
            outcome TEXT NOT NULL,
            runs TEXT NOT NULL DEFAULT '[]',
            log TEXT NOT NULL DEFAULT '',
            execution_key TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (witness_id, world)
        );

        CREATE TABLE rulings (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL,
            target TEXT NOT NULL,
            target_id TEXT NOT NULL,
            value TEXT NOT NULL,
            before TEXT NOT NULL DEFAULT '',
            reason TEXT NOT NULL,
            author TEXT NOT NULL,
            created_at TEXT NOT NULL,
            undoes INTEGER
        );
        CREATE INDEX rulings_target ON rulings(run_id, target, target_id, id);
        -- Rulings are append-only: the history is the record of who decided what.
        CREATE TRIGGER rulings_no_update BEFORE UPDATE ON rulings
            BEGIN SELECT RAISE(ABORT, 'rulings are append-only'); END;
        CREATE TRIGGER rulings_no_delete BEFORE DELETE ON rulings
            BEGIN SELECT RAISE(ABORT, 'rulings are append-only'); END;

        CREATE TABLE llm_calls (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL,
            trial_id TEXT,
            task_id TEXT,
            model TEXT NOT NULL,
            purpose TEXT NOT NULL DEFAULT '',
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0,
            latency_s REAL NOT NULL DEFAULT 0,
            outcome TEXT NOT NULL DEFAULT '',
            transcript TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL
        );
        CREATE INDEX llm_calls_run ON llm_calls(run_id, trial_id);

        CREATE TABLE steps (
            run_id TEXT NOT NULL,
            key TEXT NOT NULL,
            value TEXT NOT NULL DEFAULT 'null',
            created_at TEXT NOT NULL,
            PRIMARY KEY (run_id, key)
        );

        CREATE TABLE audits (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL,
            mode TEXT NOT NULL,
            author TEXT NOT NULL,
            seed INTEGER NOT NULL,
            rounds INTEGER,
            backend TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            executions INTEGER NOT NULL DEFAULT 0,
            llm_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0,
            verdicts TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX audits_run ON audits(run_id, mode, id);
        """,
    ),
    (
        "the input domain of each task, and where each witness's input lies in it",
        """
        ALTER TABLE tasks ADD COLUMN domain TEXT NOT NULL DEFAULT '[]';
        ALTER TABLE witnesses ADD COLUMN grounding TEXT;
        ALTER TABLE witnesses ADD COLUMN meets TEXT NOT NULL DEFAULT '[]';
        ALTER TABLE witnesses ADD COLUMN breaks TEXT NOT NULL DEFAULT '[]';
        ALTER TABLE witnesses ADD COLUMN slow_only INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    (
        "who runs each audit (process, host) and how far it got, for a console opened elsewhere",
        """
        ALTER TABLE audits ADD COLUMN pid INTEGER;
        ALTER TABLE audits ADD COLUMN host TEXT NOT NULL DEFAULT '';
        ALTER TABLE audits ADD COLUMN done INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE audits ADD COLUMN total INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE audits ADD COLUMN phase TEXT NOT NULL DEFAULT '';
        ALTER TABLE audits ADD COLUMN heartbeat TEXT;
        """,
    ),
    (
        "why a witness can at most need a ruling (an author's doubt about its expectation)",
        """
        ALTER TABLE witnesses ADD COLUMN doubt TEXT NOT NULL DEFAULT '';
        """,
    ),
    (
        "the prompt tokens an LLM server read from its cache, per call",
        """
        ALTER TABLE llm_calls ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    (
        "the LLM endpoint (model, base URL) an audit was started with, so resuming it uses the same",
        """
        ALTER TABLE audits ADD COLUMN endpoint TEXT NOT NULL DEFAULT '{}';
        """,
    ),
]

CURRENT_VERSION = len(MIGRATIONS)


class Migrations(Connection):
    """Bring a store to ``CURRENT_VERSION`` when it is opened; the version is kept in ``meta``."""

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

    def migrate_to(self, number: int) -> None:
        """Apply migration ``number`` (1-based). Public so tests can build an old store."""
        _title, ddl = MIGRATIONS[number - 1]
        with self._tx() as db:
            for statement in split_sql(ddl):
                db.execute(statement)
            db.execute(
                "INSERT INTO meta(key, value) VALUES('schema_version', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(number),),
            )

    def schema_version(self) -> int:
        row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(row[0]) if row else 0


def split_sql(ddl: str) -> list[str]:
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
