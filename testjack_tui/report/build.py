"""The report of a run, read from the store one section at a time (CONTRACTS.md, testjack.report/1)."""

from __future__ import annotations

from typing import Any

from testjack_tui.store import Store
from testjack_tui.audit.metrics import resolution_interval
from testjack_tui.audit.needs_ruling import Undecided, undecided
from testjack_tui.audit.verdicts import AUTHOR_FAILED_STEP
from testjack_tui.model import Classification, Run, Witness, WitnessStatus
from testjack_tui.report import model as m
from testjack_tui.report.leaderboard import entries, leaderboard

SCHEMA = m.SCHEMA


def build_report(store: Store, run_ref: str) -> dict[str, Any]:
    """The report as its JSON form: what ``testjack report --format json`` writes."""
    return read_report(store, run_ref).model_dump(mode="json")


def read_report(store: Store, run_ref: str) -> m.Report:
    run = store.get_run(run_ref)
    witnesses = store.list_witnesses(run.id, status=str(WitnessStatus.VALIDATED))
    queue = undecided(store, run.id)
    return m.Report(
        run=m.RunRef(id=run.id, name=run.name, benchmark=run.benchmark),
        summary=_summary(store, run, queue),
        # one row per model: resolution before and after the audit, 95% intervals, ranks
        leaderboard=entries(leaderboard(store, run.id, by="model")),
        tasks=_tasks(store, run, witnesses, queue),
        trials=_trials(store, run),
        witnesses=_witnesses(store, run, witnesses),
        needs_ruling=[_undecided(u) for u in queue],
        rulings=_rulings(store, run),
    )


def _summary(store: Store, run: Run, queue: list[Undecided]) -> m.Summary:
    s = store.summary(run.id)
    interval = resolution_interval(store, run.id)
    return m.Summary(
        trials=s.trials, passing=s.passing, refuted=s.refuted, reward_hack=s.reward_hack, sound=s.sound,
        unaudited=s.unaudited, not_reproduced=s.not_reproduced, refuted_pct=s.refuted_pct,
        resolution_before=s.resolution_before, resolution_after=s.resolution_after,
        ambiguous_witnesses=s.ambiguous_witnesses,
        # witnesses the evidence could not classify, and the passing trials a ruling would decide
        needs_ruling=len(queue),
        needs_ruling_trials=len({t for u in queue for t in u.newly_refuted}),
        outside_domain_witnesses=s.outside_domain_witnesses, slow_findings=s.slow_findings,
        malformed_tasks=s.malformed_tasks, executions=s.executions, llm_tokens=s.llm_tokens,
        cost_usd=s.cost_usd,
        resolution_after_95=m.SampledInterval(**interval) if interval else None,
    )


def _by_task(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for task_id, item in pairs:
        out.setdefault(task_id, []).append(item)
    return out


def _tasks(store: Store, run: Run, witnesses: list[Witness], queue: list[Undecided]) -> list[m.TaskEntry]:
    defects = _by_task([(w.task_id, w.id) for w in witnesses if w.classification == Classification.AMBIGUOUS])
    awaiting = _by_task([(u.witness.task_id, u.witness.id) for u in queue])
    wrong = store.effective_rulings(run.id, "constraint")
    # a task analysis that broke leaves the task's trials without its shared witnesses: say so
    analysis_failures = store.steps_with_prefix(run.id, f"{AUTHOR_FAILED_STEP}task:")
    return [
        m.TaskEntry(
            id=t.id, title=t.title, malformed=bool(t.malformed), malformed_reason=t.malformed_reason,
            null_passing_tests=t.null_passing_tests, prompt_defects=defects.get(t.id, []),
            needs_ruling=awaiting.get(t.id, []), error=t.error, analysis_error=analysis_failures.get(t.id),
            domain=[
                m.Constraint(id=c.id, kind=c.kind, text=c.text, source=c.source, params=c.params,
                             stated=c.stated, ruled_wrong=c.id in wrong)
                for c in t.domain
            ],
        )
        for t in store.list_tasks(run.id)
    ]


def _trials(store: Store, run: Run) -> list[m.TrialEntry]:
    verdicts = store.list_verdicts(run.id)
    audit_reports = store.steps_with_prefix(run.id, "report:")
    evidence: dict[str, list[m.EvidenceEntry]] = {}
    for e in store.list_evidence(run.id):
        evidence.setdefault(e.trial_id, []).append(
            m.EvidenceEntry(kind=e.kind, detail=e.detail, file=e.file, line=e.line, detector=e.detector))
    return [
        m.TrialEntry(
            id=t.id, task=t.task_id, model=t.model, agent=t.agent, official=t.official,
            recomputed=t.recomputed, verdict=verdicts[t.id].verdict, verdict_source=verdicts[t.id].source,
            verdict_rule=verdicts[t.id].rule, witnesses=verdicts[t.id].witnesses,
            evidence=evidence.get(t.id, []), audit_report=audit_reports.get(t.id) or "", error=t.error,
        )
        for t in store.list_trial_objects(run.id)
    ]


def _witnesses(store: Store, run: Run, witnesses: list[Witness]) -> list[m.WitnessEntry]:
    results = store.witness_results_for_run(run.id)
    return [
        m.WitnessEntry(
            id=w.id, task=w.task_id, requirement=w.requirement, requirement_kind=w.requirement_kind,
            origin=w.origin, author=w.author, classification=w.classification, rho=w.rho, flaky=w.flaky,
            doubt=w.doubt,
            # outside_domain / unplaced: the input is one P rules out (or cannot be checked);
            # such a witness never refutes, and may still show a prompt defect
            grounding=w.grounding or "in_domain",
            meets=w.meets, breaks=w.breaks, path=w.path, code=w.code, found_on=w.found_on,
            results=results.get(w.id, {}), replay=f"testjack replay {w.id}",
        )
        for w in witnesses
    ]


def _undecided(u: Undecided) -> m.Undecided:
    # ruled necessary, the witness refutes would_refute; newly_refuted are those nothing else refutes
    return m.Undecided(
        witness=u.witness.id, task=u.witness.task_id, requirement=u.witness.requirement, because=u.because,
        would_refute=u.would_refute, newly_refuted=u.newly_refuted, passing_seen=u.passing_seen,
        rule=f"testjack rule {u.witness.id} --as necessary|ambiguous",
    )


def _rulings(store: Store, run: Run) -> list[m.RulingEntry]:
    return [
        m.RulingEntry(id=r.id, target=r.target, target_id=r.target_id, value=r.value, before=r.before,
                      reason=r.reason, author=r.author, at=r.created_at, undoes=r.undoes)
        for r in store.list_rulings(run.id)
    ]
