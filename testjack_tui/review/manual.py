"""Manual witnesses written in the console: the analyst as an author, and the three steps
(validate on the reference, run on the trial, share with the task) as plain functions that the
console calls in thread workers, each with its own Store. No Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass

from testjack_tui.store import NotFound, Store
from testjack_tui.audit.execution import ExecutionService
from testjack_tui.audit.validation import Validator, witness_id
from testjack_tui.audit.verdicts import fails_on, passing_trials, recompute_task
from testjack_tui.authors.base import AuthorContext, Candidate, NoneAuthor
from testjack_tui.model import AuthorKind, Origin, RequirementKind, Witness, WitnessStatus


class AnalystAuthor(NoneAuthor):
    """The analyst writes the test by hand; the engine never asks it for more, nor to fix one."""

    kind = AuthorKind.ANALYST


@dataclass
class ManualResult:
    witness: Witness
    outcomes: dict[str, str]  # world -> outcome, for what this step ran
    message: str
    log: str = ""


def _setup(store: Store, run_id: str, trial_id: str):
    run = store.get_run(run_id)
    trial = store.get_trial(run_id, trial_id)
    task = store.get_task(run_id, trial.task_id)
    service = ExecutionService(store, run)
    return task, trial, service, Validator(store, service, AnalystAuthor())


def validate_manual(store: Store, run_id: str, trial_id: str, requirement: str, kind: str, code: str) -> ManualResult:
    """Certify the test on the reference world (3 of 3 runs) and record it on the null world."""
    task, trial, service, validator = _setup(store, run_id, trial_id)
    try:
        ctx = AuthorContext(task=task, trial=trial, run_id=run_id)
        cand = Candidate(requirement=requirement, kind=RequirementKind(kind), code=code)
        validator.validate(ctx, [cand], Origin.MANUAL, trial.id)
    finally:
        service.close()
    w = store.get_witness(witness_id(run_id, task.id, code))
    results = store.witness_results(w.id)
    outcomes = {k: str(v.outcome) for k, v in results.items() if k in ("reference", "null")}
    if w.status == WitnessStatus.VALIDATED:
        message = f"{w.id} is validated: it passes on the reference every time"
    else:
        message = f"{w.id} is not a witness: {w.discard_reason or w.status}"
    log = results["reference"].log if "reference" in results else ""
    return ManualResult(w, outcomes, message, log)


def run_manual_on(store: Store, run_id: str, trial_id: str, code: str, share: bool) -> ManualResult:
    """Run a validated manual witness on this trial (``share``: on every passing trial of the task)."""
    task, trial, service, validator = _setup(store, run_id, trial_id)
    try:
        w = store.get_witness(witness_id(run_id, task.id, code))
    except NotFound:
        service.close()
        raise ValueError("this test is not validated on the reference yet; validate it first (F5)") from None
    if w.status != WitnessStatus.VALIDATED:
        service.close()
        raise ValueError(f"{w.id} is not validated on the reference; validate it first")
    trials = passing_trials(store.list_trial_objects(run_id, task.id)) if share else [trial]
    try:
        validator.share(task, [w], trials)
    finally:
        service.close()
    recompute_task(store, task)
    results = store.witness_results(w.id)
    outcomes = {t.id: str(results[t.id].outcome) for t in trials if t.id in results}
    w = store.get_witness(w.id)
    fails = sorted(k for k, v in outcomes.items() if fails_on(w, v))  # as rho counts them
    if share:
        message = f"{w.id} ran on {len(outcomes)} passing trial(s); it fails on {len(fails)}: {', '.join(fails) or 'none'}"
    else:
        message = f"{w.id} on {trial_id}: {outcomes.get(trial_id, 'not run')}"
    log = results[trial_id].log if trial_id in results else ""
    return ManualResult(w, outcomes, message, log)
