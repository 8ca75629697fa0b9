"""The report as a plain dictionary, from what the store holds (CONTRACTS.md, testjack.report/1)."""

from __future__ import annotations

from typing import Any

from testjack_tui.store import Store
from testjack_tui.audit.metrics import resolution_interval
from testjack_tui.audit.needs_ruling import undecided
from testjack_tui.audit.verdicts import AUTHOR_FAILED_STEP
from testjack_tui.model import Classification, WitnessStatus
from testjack_tui.report.leaderboard import leaderboard, rows_json

SCHEMA = "testjack.report/1"


def build_report(store: Store, run_ref: str) -> dict[str, Any]:
    run = store.get_run(run_ref)
    summary = store.summary(run.id)
    witnesses = store.list_witnesses(run.id, status=str(WitnessStatus.VALIDATED))
    results = store.witness_results_for_run(run.id)
    verdicts = store.list_verdicts(run.id)
    evidence_by_trial: dict[str, list[dict[str, Any]]] = {}
    for e in store.list_evidence(run.id):
        evidence_by_trial.setdefault(e.trial_id, []).append(
            {"kind": str(e.kind), "detail": e.detail, "file": e.file, "line": e.line, "detector": e.detector}
        )
    defects: dict[str, list[str]] = {}
    for w in witnesses:
        if w.classification == Classification.AMBIGUOUS:
            defects.setdefault(w.task_id, []).append(w.id)
    queue = undecided(store, run.id)
    awaiting: dict[str, list[str]] = {}
    for u in queue:
        awaiting.setdefault(u.witness.task_id, []).append(u.witness.id)
    rulings = store.list_rulings(run.id)
    wrong = store.effective_rulings(run.id, "constraint")
    audit_reports = store.steps_with_prefix(run.id, "report:")
    # a task analysis that broke leaves the task's trials without its shared witnesses: say so
    analysis_failures = store.steps_with_prefix(run.id, f"{AUTHOR_FAILED_STEP}task:")

    return {
        "schema": SCHEMA,
        "run": {"id": run.id, "name": run.name, "benchmark": run.benchmark},
        "summary": {
            "trials": summary.trials,
            "passing": summary.passing,
            "refuted": summary.refuted,
            "reward_hack": summary.reward_hack,
            "sound": summary.sound,
            "unaudited": summary.unaudited,
            "not_reproduced": summary.not_reproduced,
            "refuted_pct": summary.refuted_pct,
            "resolution_before": summary.resolution_before,
            "resolution_after": summary.resolution_after,
            "ambiguous_witnesses": summary.ambiguous_witnesses,
            # witnesses the evidence could not classify, and the passing trials a ruling would decide
            "needs_ruling": len(queue),
            "needs_ruling_trials": len({t for u in queue for t in u.newly_refuted}),
            "outside_domain_witnesses": summary.outside_domain_witnesses,
            "slow_findings": summary.slow_findings,
            "malformed_tasks": summary.malformed_tasks,
            "executions": summary.executions,
            "llm_tokens": summary.llm_tokens,
            "cost_usd": summary.cost_usd,
            "resolution_after_95": resolution_interval(store, run.id),
        },
        # one row per model: resolution before and after the audit, 95% intervals, ranks
        "leaderboard": rows_json(leaderboard(store, run.id, by="model"), by="model"),
        "tasks": [
            {
                "id": t.id,
                "title": t.title,
                "malformed": bool(t.malformed),
                "malformed_reason": t.malformed_reason,
                "null_passing_tests": t.null_passing_tests,
                "prompt_defects": defects.get(t.id, []),
                "needs_ruling": awaiting.get(t.id, []),
                "error": t.error,
                "analysis_error": analysis_failures.get(t.id),
                "domain": [
                    {"id": c.id, "kind": c.kind, "text": c.text, "source": c.source, "params": c.params,
                     "stated": c.stated, "ruled_wrong": c.id in wrong}
                    for c in t.domain
                ],
            }
            for t in store.list_tasks(run.id)
        ],
        "trials": [
            {
                "id": t.id,
                "task": t.task_id,
                "model": t.model,
                "agent": t.agent,
                "official": str(t.official),
                "recomputed": t.recomputed,
                "verdict": str(verdicts[t.id].verdict),
                "verdict_source": str(verdicts[t.id].source),
                "verdict_rule": verdicts[t.id].rule,
                "witnesses": verdicts[t.id].witnesses,
                "evidence": evidence_by_trial.get(t.id, []),
                "audit_report": audit_reports.get(t.id) or "",
                "error": t.error,
            }
            for t in store.list_trial_objects(run.id)
        ],
        "witnesses": [
            {
                "id": w.id,
                "task": w.task_id,
                "requirement": w.requirement,
                "requirement_kind": str(w.requirement_kind),
                "origin": str(w.origin),
                "author": str(w.author),
                "classification": str(w.classification) if w.classification else None,
                "rho": w.rho,
                "flaky": w.flaky,
                "doubt": w.doubt,  # why its author doubts it binds: at most needs_ruling
                # outside_domain / unplaced: the input is one P rules out (or cannot be checked);
                # such a witness never refutes, and may still show a prompt defect
                "grounding": str(w.grounding) if w.grounding else "in_domain",
                "meets": w.meets,
                "breaks": w.breaks,
                "path": w.path,
                "code": w.code,
                "found_on": w.found_on,
                "results": results.get(w.id, {}),
                "replay": f"testjack replay {w.id}",
            }
            for w in witnesses
        ],
        # the analyst's queue, most trials at stake first: ruled necessary, each refutes would_refute
        "needs_ruling": [
            {"witness": u.witness.id, "task": u.witness.task_id, "requirement": u.witness.requirement,
             "because": u.because, "would_refute": u.would_refute, "newly_refuted": u.newly_refuted,
             "passing_seen": u.passing_seen, "rule": f"testjack rule {u.witness.id} --as necessary|ambiguous"}
            for u in queue
        ],
        "rulings": [
            {
                "id": r.id,
                "target": r.target,
                "target_id": r.target_id,
                "value": r.value,
                "before": r.before,
                "reason": r.reason,
                "author": r.author,
                "at": r.created_at,
                "undoes": r.undoes,
            }
            for r in rulings
        ],
    }
