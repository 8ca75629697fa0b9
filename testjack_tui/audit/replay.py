"""Replaying a witness: run it afresh (no cache) on the reference world and on trials' worlds.

``replay_witness`` only reports (the CLI's ``testjack replay``); ``rerun_witness`` (the console's
rerun) also keeps each world's new outcome as the witness's result there, as the audit does, and
recomputes the task's classifications and verdicts from the store.
"""

from __future__ import annotations

from dataclasses import dataclass

from testjack_tui.store import Store
from testjack_tui.audit.execution import ExecutionService
from testjack_tui.audit.grading import t0_passes
from testjack_tui.audit.validation import log_of, outcome_of
from testjack_tui.audit.verdicts import passing_trials, recompute_task
from testjack_tui.evidence import restored_harness_request
from testjack_tui.model import Outcome, WitnessResult, WorldKind


@dataclass
class Replayed:
    """One world a witness ran on again."""

    world: str  # "reference" or a trial id
    outcome: str
    detail: str  # how long it took, and why a run did not finish
    log: str = ""


def replay(store: Store, witness_id: str, trial_id: str | None = None, *, workers: int = 1,
           backend: str | None = None) -> list[Replayed]:
    """Run the witness on the reference world and on ``trial_id`` (or every passing trial)."""
    w = store.get_witness(witness_id)
    run = store.get_run(w.run_id)
    task = store.get_task(w.run_id, w.task_id)
    trials = ([store.get_trial(w.run_id, trial_id)] if trial_id
              else passing_trials(store.list_trial_objects(w.run_id, w.task_id)))
    service = ExecutionService(store, run, workers=workers, backend=backend)
    if not w.path:  # a harness witness: T0 itself, with the trial's harness changes removed
        if trial_id is None and w.found_on:
            trials = [store.get_trial(w.run_id, w.found_on)]
        requests = [service.world_request(task, WorldKind.REFERENCE, label=f"replay {w.id} reference")]
        requests += [restored_harness_request(service.world_request(task, WorldKind.MODEL, t), t.patch,
                                              task.test_patch) or service.world_request(task, WorldKind.MODEL, t)
                     for t in trials]
        judge = lambda res: "pass" if t0_passes(task, res) else "fail"  # noqa: E731
    else:
        files = ((w.path, w.code),)
        requests = [service.world_request(task, WorldKind.REFERENCE, extra_files=files, test_ids=(w.path,),
                                          label=f"replay {w.id} reference")]
        requests += [restored_harness_request(r, t.patch, task.test_patch) or r for t, r in (
            (t, service.world_request(task, WorldKind.MODEL, t, extra_files=files, test_ids=(w.path,),
                                      label=f"replay {w.id} {t.id}")) for t in trials)]
        judge = lambda res: str(outcome_of(res, w.path))  # noqa: E731
    try:
        results = service.run(requests, fresh=True)
    finally:
        service.close()
    out = []
    for name, res in zip(["reference"] + [t.id for t in trials], results):
        detail = f"{res.duration:.2f}s" + (f" {res.status}: {res.message}" if res.status != "ok" else "")
        out.append(Replayed(name, judge(res), detail, log_of(res)))
    return out


def replay_witness(store: Store, witness_id: str, trial_id: str | None = None, *, workers: int = 1,
                   backend: str | None = None) -> list[tuple[str, str, str]]:
    """(world, outcome, detail) for the reference world and each trial asked for; nothing is stored."""
    return [(r.world, r.outcome, r.detail)
            for r in replay(store, witness_id, trial_id, workers=workers, backend=backend)]


def rerun_witness(store: Store, witness_id: str, trial_id: str | None = None, *, workers: int = 1,
                  backend: str | None = None) -> list[Replayed]:
    """Replay the witness, store each world's outcome as its result there, and recompute the task."""
    ran = replay(store, witness_id, trial_id, workers=workers, backend=backend)
    for r in ran:
        store.put_witness_result(WitnessResult(witness_id, r.world, Outcome(r.outcome), [r.outcome],
                                               log=f"rerun ({r.detail})\n{r.log}", execution_key=""))
    w = store.get_witness(witness_id)
    recompute_task(store, store.get_task(w.run_id, w.task_id))
    return ran
