"""The official evaluator: T0 on the null, reference and model worlds of a task (paper A.1).

The reference runs three times: a graded test that fails on it in any run makes the task
malformed, and no trial of a malformed task is refuted. Graded tests that already pass on the
null world verify nothing; they are recorded. Each trial's recomputed T0 result is stored beside
the benchmark's own verdict so that a disagreement is shown, not hidden. Model-world runs collect
branch coverage: it is what ghost-branch evidence is made from.
"""

from __future__ import annotations

from dataclasses import dataclass

from testjack_tui.store import Store
from testjack_tui.audit.execution import ExecutionService
from testjack_tui.audit.grading import graded_outcomes, harness_graded, reference_failures, t0_passes
from testjack_tui.model import Official, Task, Trial, WorldKind
from testjack_tui.worlds.request import STATUS_ERROR, STATUS_SETUP_FAILED, STATUS_OK, ExecRequest, ExecResult

REFERENCE_RUNS = 3


@dataclass
class TaskEvaluation:
    malformed: bool
    reason: str
    null_passing: list[str]
    model: dict[str, ExecResult]  # trial id -> its T0 result
    # a world could not be set up (no engine, an image missing): the machine's fault, not the
    # task's, so the next audit evaluates the task again instead of keeping it malformed
    environment_failed: bool = False


def t0_status(result: ExecResult, graded: list[str], task: Task | None = None) -> str:
    """What T0 says of one world: passed, failed, patch_failed, timeout, setup_failed or error.

    With ``task``, by the task's grader (``grading``: the harness's rules for SWE-bench tasks).
    """
    if result.status != STATUS_OK:
        return result.status
    passed = t0_passes(task, result, graded) if task is not None else result.passed(graded)
    return "passed" if passed else "failed"


def t0_requests(service: ExecutionService, task: Task, trials: list[Trial]) -> list[ExecRequest]:
    """T0 on the null world, on the reference ``REFERENCE_RUNS`` times, and on every trial's world."""
    requests = [service.world_request(task, WorldKind.NULL, label=f"T0 {task.id} null")]
    requests += [
        service.world_request(task, WorldKind.REFERENCE, attempt=i, label=f"T0 {task.id} reference #{i + 1}")
        for i in range(REFERENCE_RUNS)
    ]
    requests += [
        service.world_request(
            task,
            WorldKind.MODEL,
            trial,
            coverage=trial.official != Official.FAILED,
            label=f"T0 {task.id} model {trial.id}",
        )
        for trial in trials
    ]
    return requests


def evaluate_task(store: Store, service: ExecutionService, task: Task, trials: list[Trial]) -> TaskEvaluation:
    graded = task.tests.graded
    results = service.run(t0_requests(service, task, trials))
    null, refs, models = results[0], results[1 : 1 + REFERENCE_RUNS], results[1 + REFERENCE_RUNS :]

    reasons: list[str] = []
    for i, ref in enumerate(refs, start=1):
        if ref.status != STATUS_OK:
            reasons.append(f"the reference world does not run ({ref.status}: {ref.message})".strip())
            continue
        # the harness's grader asks nothing of the exit code (the backend cross-checked it)
        if (not harness_graded(task) and ref.exit_code != 0
                and all(o == "pass" for o in graded_outcomes(task, ref).values())):
            reasons.append(f"the test command exits {ref.exit_code} on the reference world")
    # per graded id: what happened (failed, error, skipped, not collected, missing from the log),
    # one line for progress output, then the full list (the report shows it)
    summary, details = reference_failures(task, refs)
    if summary:
        reasons.append(summary)
    reason = "; ".join(dict.fromkeys(reasons))
    if details:
        reason += "\n" + details
    # Only fail-to-pass tests are meant to fail without the fix; one that passes verifies nothing.
    null_passing = [
        t for t in task.tests.fail_to_pass if null.status == STATUS_OK and null.outcomes.get(t) == "pass"
    ]
    store.set_task_evaluation(
        task.run_id, task.id, malformed=bool(reasons), reason=reason, null_passing=null_passing,
        error="" if null.status != "patch_failed" else f"the official test patch does not apply: {null.message}",
    )

    model_results: dict[str, ExecResult] = {}
    for trial, res in zip(trials, models):
        status = t0_status(res, graded, task)
        error = res.message if res.status != STATUS_OK else ""
        if status == "patch_failed":
            error = f"the trial's patch does not apply: {res.message}"
        store.set_trial_recomputed(task.run_id, trial.id, status, error)
        if trial.official == Official.UNKNOWN:
            official = Official.PASSED if status == "passed" else Official.FAILED
            store.set_trial_official(task.run_id, trial.id, official)
        model_results[trial.id] = res
    unset = {STATUS_SETUP_FAILED, STATUS_ERROR}
    return TaskEvaluation(bool(reasons), reason, null_passing, model_results,
                          environment_failed=any(r.status in unset for r in results))
