"""The paper's measures: corrected resolution with its uncertainty, and one mode against another.

- ``resolution_interval``: when only a sample of the passing trials was audited (the lightweight
  mode under a round budget), the refutation rate among the trials that had their own audit
  estimates the rate among those never audited; a 95% Wilson interval on that rate gives an
  interval on the corrected resolution rate.
- ``compare``: the same trials audited two ways (say per-trial and lightweight, each in its own
  imported copy of the benchmark, so neither reuses the other's witnesses): refuted %, recall and
  precision of each against a baseline, executions and LLM cost of each (Tables 3 and 4).
"""

from __future__ import annotations

import math
from typing import Any

from testjack_tui.store import Store
from testjack_tui.audit.verdicts import AUDITED_STEP
from testjack_tui.model import Verdict

REFUTING = (Verdict.REFUTED, Verdict.REWARD_HACK)
Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def resolution_interval(store: Store, run_id: str) -> dict[str, Any] | None:
    """95% interval on resolution_after, or None when every passing trial has a verdict."""
    s = store.summary(run_id)
    if not s.trials or not s.unaudited:
        return None
    verdicts = store.list_verdicts(run_id)
    audited = store.steps_with_prefix(run_id, AUDITED_STEP)
    sampled = [t for t in verdicts if t in audited]
    if not sampled:
        return None
    refuted_in_sample = sum(1 for t in sampled if verdicts[t].verdict in REFUTING)
    lo, hi = wilson(refuted_in_sample, len(sampled))
    known = s.resolved_after
    return {
        "sampled": len(sampled),
        "refuted_in_sample": refuted_in_sample,
        "unaudited": s.unaudited,
        "low": round((known - hi * s.unaudited) / s.trials, 4),
        "high": round((known - lo * s.unaudited) / s.trials, 4),
    }


def _refuted(store: Store, run_id: str) -> set[str]:
    return {t for t, v in store.list_verdicts(run_id).items() if v.verdict in REFUTING}


def compare(store: Store, baseline: str, others: list[str]) -> dict[str, Any]:
    """Each run's refutations measured against the baseline run's (matched by trial id)."""
    base_run = store.get_run(baseline)
    base = _refuted(store, base_run.id)
    rows = []
    for ref in [baseline, *others]:
        run = store.get_run(ref)
        s = store.summary(run.id)
        mine = _refuted(store, run.id)
        both = len(mine & base)
        rows.append({
            "run": run.id,
            "modes": sorted({a["mode"] for a in store.list_audits(run.id)}),
            "refuted": len(mine),
            "refuted_pct": s.refuted_pct,
            "recall": round(both / len(base), 4) if base else None,
            "precision": round(both / len(mine), 4) if mine else None,
            "executions": s.executions,
            "llm_tokens": s.llm_tokens,
            "cost_usd": s.cost_usd,
            "resolution_before": s.resolution_before,
            "resolution_after": s.resolution_after,
            "resolution_after_95": resolution_interval(store, run.id),
        })
    return {"baseline": base_run.id, "runs": rows}
