"""Trials, their verdicts and their evidence: the console's trial table (filtered and paged in SQL),
what the audit records on a trial, and the verdict each trial currently has."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Collection

from testjack_tui.store.connection import Connection, flag, from_row, now
from testjack_tui.store.errors import NotFound
from testjack_tui.model import Evidence, EvidenceKind, Official, Trial, Verdict, VerdictRecord, VerdictSource


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
    ruling_id: int | None = None  # the ruling that decided the verdict (source "analyst")


class TrialsAndVerdicts(Connection):
    # ------------------------------------------------------------------ trials

    def _trial(self, row: dict[str, Any]) -> Trial:
        return from_row(Trial, row, official=Official(row["official"]), metadata=json.loads(row["metadata"]),
                        reviewed=bool(row["reviewed"]))

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
        verdicts: Collection[str] | None = None,
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
        if verdicts is not None:  # any of them (an empty set selects nothing)
            wanted = sorted(set(verdicts))
            where.append(f"v.verdict IN ({', '.join('?' * len(wanted))})" if wanted else "0")
            params.extend(wanted)
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

        Filters: verdict, verdicts (any of a set, e.g. refuted or reward hack), task, model,
        evidence_kind, search, reviewed.
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
            "v.verdict, v.source, v.ruling_id, "
            "(SELECT count(*) FROM evidence e WHERE e.run_id = t.run_id AND e.trial_id = t.id) AS evidence "
            "FROM trials t JOIN verdicts v ON v.run_id = t.run_id AND v.trial_id = t.id "
            f"WHERE {where} ORDER BY {order} LIMIT ? OFFSET ?"
        )
        params.extend([limit, offset])
        return [
            from_row(TrialRow, r, verdict_source=r["source"], reviewed=bool(r["reviewed"]))
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
        return from_row(VerdictRecord, row, verdict=Verdict(row["verdict"]), source=VerdictSource(row["source"]),
                        witnesses=json.loads(row["witnesses"]))

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
            from_row(Evidence, r, kind=EvidenceKind(r["kind"]), mentioned_in_prompt=flag(r["mentioned_in_prompt"]))
            for r in rows
        ]
