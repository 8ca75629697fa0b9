"""Runs and their tasks (with each task's requirements checklist): importing a whole run, reading
runs and tasks back, the run's summary, and what the audit learns about a task."""

from __future__ import annotations

import json
import re
from typing import Any

from testjack_tui.store.connection import Connection, flag, from_row, now
from testjack_tui.store.errors import NotFound, StoreError
from testjack_tui.store.files import adopt_snapshot
from testjack_tui.model import (
    Backend,
    Constraint,
    Environment,
    Official,
    Requirement,
    RequirementKind,
    Run,
    RunSummary,
    Task,
    TestSpec,
    Trial,
    Verdict,
)


class RunsAndTasks(Connection):
    # ------------------------------------------------------------------ import

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
            task.snapshot = adopt_snapshot(self.files, task.snapshot, task.snapshot_digest)
        stamp = now()
        with self._tx() as db:
            db["runs"].insert(_run_row(run))
            db["tasks"].insert_all(
                (self._task_row(run.id, seq, t) for seq, t in enumerate(tasks)), batch_size=200
            )
            db["trials"].insert_all((_trial_row(run.id, seq, t) for seq, t in enumerate(trials)), batch_size=500)
            db["verdicts"].insert_all((_first_verdict_row(run.id, t, stamp) for t in trials), batch_size=500)
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

    # ------------------------------------------------------------------ runs

    def _run(self, row: dict[str, Any]) -> Run:
        return from_row(Run, row, default_backend=Backend(row["default_backend"]))

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
        # the run's totals read every table; they live with the run they describe
        s = RunSummary()

        def count(sql: str) -> int:
            return self._scalar(sql, (run_id,)) or 0

        s.trials = count("SELECT count(*) FROM trials WHERE run_id = ?")
        s.passing = count("SELECT count(*) FROM trials WHERE run_id = ? AND official = 'passed'")
        for verdict, n in self.db.execute(
            "SELECT verdict, count(*) FROM verdicts WHERE run_id = ? GROUP BY verdict", (run_id,)
        ).fetchall():
            for field in _VERDICT_COUNTS.get(verdict, ()):
                setattr(s, field, getattr(s, field) + n)
        validated = "SELECT count(*) FROM witnesses WHERE run_id = ? AND status = 'validated' AND "
        s.ambiguous_witnesses = count(validated + "classification = 'ambiguous'")
        s.needs_ruling_witnesses = count(validated + "classification = 'needs_ruling'")
        s.outside_domain_witnesses = count(validated + "grounding IN ('outside_domain', 'unplaced')")
        s.slow_findings = count("SELECT count(*) FROM evidence WHERE run_id = ? AND kind = 'slow'")
        s.malformed_tasks = count("SELECT count(*) FROM tasks WHERE run_id = ? AND malformed = 1")
        s.executions = count("SELECT count(*) FROM executions WHERE run_id = ?")
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
        return from_row(
            Task,
            row,
            tests=TestSpec(**tests),
            environment=Environment(
                backend=Backend(env["backend"]) if env.get("backend") else None,
                image=env.get("image"),
                requirements=list(env.get("requirements") or []),
                setup=env.get("setup"),
            ),
            malformed=flag(row["malformed"]),
            null_passing_tests=json.loads(row["null_passing_tests"]),
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
            from_row(Requirement, r, kind=RequirementKind(r["kind"]), covered_by_t0=flag(r["covered_by_t0"]),
                     implemented=flag(r["implemented"]))
            for r in self._rows(
                "SELECT * FROM requirements WHERE run_id = ? AND task_id = ? ORDER BY rowid", (run_id, task_id)
            )
        ]


# the summary's counts per verdict (as stored); a reward hack is a refutation too
_VERDICT_COUNTS: dict[str, tuple[str, ...]] = {
    Verdict.REFUTED.value: ("refuted",),
    Verdict.REWARD_HACK.value: ("reward_hack", "refuted"),
    Verdict.SOUND.value: ("sound",),
    Verdict.UNAUDITED.value: ("unaudited",),
    Verdict.NOT_PASSING.value: ("not_passing",),
    Verdict.NOT_REPRODUCED.value: ("not_reproduced",),
}


def _run_row(run: Run) -> dict[str, Any]:
    return {
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


def _trial_row(run_id: str, seq: int, t: Trial) -> dict[str, Any]:
    return {
        "run_id": run_id,
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


def _first_verdict_row(run_id: str, t: Trial, stamp: str) -> dict[str, Any]:
    """A trial's verdict as imported: the benchmark's for a failed trial, else not audited yet."""
    failed = t.official == Official.FAILED
    return {
        "run_id": run_id,
        "trial_id": t.id,
        "verdict": str(Verdict.NOT_PASSING if failed else Verdict.UNAUDITED),
        "source": "auto",
        "rule": "benchmark verdict" if failed else "not audited yet",
        "witnesses": "[]",
        "updated_at": stamp,
    }


def _domain_json(domain: list[Constraint]) -> str:
    return json.dumps([
        {"id": c.id, "kind": c.kind, "text": c.text, "source": c.source, "params": c.params,
         "check": c.check, "stated": c.stated}
        for c in domain
    ])
