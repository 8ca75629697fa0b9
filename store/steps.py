"""Audit steps: the checkpoints a resumed audit skips by, and one row per audit (to compare modes)."""

from __future__ import annotations

import json
import os
import socket
from typing import Any

from testjack_tui.store.connection import Connection, now


class AuditSteps(Connection):
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

    def start_audit(
        self, run_id: str, mode: str, author: str, seed: int, rounds: int | None, backend: str,
        endpoint: dict[str, str] | None = None,
    ) -> int:
        """A new audit row, 'running', owned by this process on this host (so that another
        process can tell a live audit from one that was killed). ``endpoint``: the LLM author's
        model and base URL as given (never a key), for resuming with the same."""
        stamp = now()
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO audits(run_id, mode, author, seed, rounds, backend, status, started_at, pid, host, "
                "heartbeat, endpoint) VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)",
                (run_id, mode, author, seed, rounds, backend, stamp, os.getpid(), socket.gethostname(), stamp,
                 json.dumps(endpoint or {})),
            )
            return int(cur.lastrowid)

    def audit_progress(self, audit_id: int, done: int, total: int, phase: str) -> None:
        """How far a running audit got: its steps so far, of how many, and when it last said so."""
        with self._tx() as db:
            db.execute("UPDATE audits SET done = ?, total = ?, phase = ?, heartbeat = ? WHERE id = ?",
                       (done, total, phase, now(), audit_id))

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
            r["endpoint"] = json.loads(r.get("endpoint") or "{}")
        return rows
