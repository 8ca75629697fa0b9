"""LLM calls: every call an LLM author makes (tokens, cost, latency, outcome, transcript), and their totals.

A call is written when it starts, at the worst case its budget check assumed (outcome "in flight"),
and completed when it ends. The totals add every row, so a call whose process was killed before it
ended still counts, at that worst case: a budget can be overestimated by a kill, never undercounted.
"""

from __future__ import annotations

from testjack_tui.store.connection import Connection, from_row, now
from testjack_tui.model import LLMCall


class LLMCalls(Connection):
    def add_llm_call(self, c: LLMCall) -> int:
        """Record ``c``; a call recorded before (it has an id: written when it started, outcome
        "in flight") is completed in place, so a call killed in flight keeps its first row."""
        c.created_at = c.created_at or now()
        if c.id is not None:
            with self._tx() as db:
                db.execute(
                    "UPDATE llm_calls SET prompt_tokens = ?, completion_tokens = ?, cost_usd = ?, latency_s = ?, "
                    "outcome = ?, transcript = ?, cached_tokens = ? WHERE id = ?",
                    (c.prompt_tokens, c.completion_tokens, c.cost_usd, c.latency_s, c.outcome, c.transcript,
                     c.cached_tokens, c.id),
                )
            return int(c.id)
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO llm_calls(run_id, trial_id, task_id, model, purpose, prompt_tokens, completion_tokens, "
                "cost_usd, latency_s, outcome, transcript, created_at, cached_tokens) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    c.cached_tokens,
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
            from_row(LLMCall, r)
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
