"""The execution cache: each world's result kept by its request's key, so a rerun never executes twice."""

from __future__ import annotations

import json
from typing import Any

from testjack_tui.store.connection import Connection, now


class ExecutionCache(Connection):
    def get_execution(self, key: str) -> dict[str, Any] | None:
        row = self._one("SELECT result FROM executions WHERE key = ?", (key,))
        return json.loads(row["result"]) if row else None

    def has_execution(self, key: str) -> bool:
        """Whether ``key``'s result is cached, without reading it (a result with coverage is large)."""
        return self._one("SELECT 1 FROM executions WHERE key = ?", (key,)) is not None

    def list_executions(self, run_id: str) -> dict[str, dict[str, Any]]:
        """Every cached result of ``run_id``'s executions, by request key."""
        rows = self._rows("SELECT key, result FROM executions WHERE run_id = ? ORDER BY key", (run_id,))
        return {row["key"]: json.loads(row["result"]) for row in rows}

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
