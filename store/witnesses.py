"""Witnesses (the tests authors propose and the audit validates) and their results in each world."""

from __future__ import annotations

import json
from typing import Any

from testjack_tui.store.connection import Connection, from_row, now
from testjack_tui.store.errors import NotFound
from testjack_tui.model import (
    AuthorKind,
    Classification,
    Grounding,
    Origin,
    Outcome,
    RequirementKind,
    Witness,
    WitnessResult,
    WitnessStatus,
)


class WitnessesAndResults(Connection):
    def _witness(self, row: dict[str, Any]) -> Witness:
        return from_row(
            Witness,
            row,
            requirement_kind=RequirementKind(row["requirement_kind"]),
            origin=Origin(row["origin"]),
            author=AuthorKind(row["author"]),
            status=WitnessStatus(row["status"]),
            classification=Classification(row["classification"]) if row["classification"] else None,
            flaky=bool(row["flaky"]),
            grounding=Grounding(row["grounding"]) if row.get("grounding") else None,
            meets=json.loads(row.get("meets") or "[]"),
            breaks=json.loads(row.get("breaks") or "[]"),
            slow_only=bool(row.get("slow_only") or 0),
            doubt=row.get("doubt") or "",
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
                    "doubt": w.doubt,
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
            r["world"]: from_row(WitnessResult, r, outcome=Outcome(r["outcome"]), runs=json.loads(r["runs"]))
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
