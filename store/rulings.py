"""Rulings: the analyst's decisions on trials, witnesses and constraints, each undoable by a later one."""

from __future__ import annotations

from testjack_tui.store.connection import Connection, from_row, now
from testjack_tui.model import Ruling


class Rulings(Connection):
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
            from_row(Ruling, r)
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
