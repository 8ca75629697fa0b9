"""What the trial screen shows, read from the store in one go (in a thread worker, never on the UI thread)."""

from __future__ import annotations

from dataclasses import dataclass, field

from testjack_tui.store import Store
from testjack_tui.review.sidebyside import FilePair
from testjack_tui.model import (
    Constraint,
    Evidence,
    Requirement,
    Ruling,
    Task,
    Trial,
    VerdictRecord,
    Witness,
    WitnessResult,
    WitnessStatus,
)


@dataclass
class TrialData:
    trial: Trial
    task: Task
    verdict: VerdictRecord
    requirements: list[Requirement]
    evidence: list[Evidence]
    witnesses: list[Witness]
    results: dict[str, dict[str, WitnessResult]]
    rulings: list[Ruling]
    files: list[FilePair] = field(default_factory=list)
    passing: list[str] = field(default_factory=list)
    wrong: dict[str, Ruling] = field(default_factory=dict)  # constraint id -> the ruling in force
    verdicts: dict[str, VerdictRecord] = field(default_factory=dict)  # the task's trials' verdicts
    evidence_gathered: bool = False  # the audit looked for evidence on this trial
    witness_rulings: dict[str, Ruling] = field(default_factory=dict)  # witness id -> ruling in force
    analysis_error: str = ""  # the task analysis broke: this trial has none of its witnesses

    def constraint(self, constraint_id: str | None) -> Constraint | None:
        return next((c for c in self.task.domain if c.id == constraint_id), None)


def read_trial(store: Store, run_id: str, trial_id: str) -> TrialData:
    from testjack_tui.audit.execution import read_world_file
    from testjack_tui.patches import file_paths
    from testjack_tui.audit.verdicts import AUTHOR_FAILED_STEP, passing_trials

    trial = store.get_trial(run_id, trial_id)
    task = store.get_task(run_id, trial.task_id)
    witnesses = store.list_witnesses(run_id, task.id, status=str(WitnessStatus.VALIDATED))
    # the whole task's checklist: clauses found while auditing another trial belong to this one too
    requirements = store.list_requirements(run_id, task.id)
    paths: list[str] = []
    for path in file_paths(trial.patch) + file_paths(task.reference_patch):
        if path not in paths:
            paths.append(path)
    files = [
        FilePair(path, read_world_file(task, "reference", None, path), read_world_file(task, "model", trial, path))
        for path in paths
    ]
    rulings = store.list_rulings(run_id, "trial", trial.id)
    rulings += [r for w in witnesses for r in store.list_rulings(run_id, "witness", w.id)]
    ids = {c.id for c in task.domain}
    wrong = {cid: r for cid, r in store.effective_rulings(run_id, "constraint").items() if cid in ids} if ids else {}
    rulings += [r for cid in sorted(ids) for r in store.list_rulings(run_id, "constraint", cid)]
    trials = store.list_trial_objects(run_id, task.id)
    all_verdicts = store.list_verdicts(run_id)
    live = store.effective_rulings(run_id, "witness")
    return TrialData(
        trial=trial,
        task=task,
        verdict=store.get_verdict(run_id, trial.id),
        requirements=requirements,
        evidence=store.list_evidence(run_id, trial.id),
        witnesses=witnesses,
        results={w.id: store.witness_results(w.id) for w in witnesses},
        rulings=sorted(rulings, key=lambda r: r.id or 0),
        files=files,
        passing=[t.id for t in passing_trials(trials)],
        wrong=wrong,
        verdicts={t.id: all_verdicts[t.id] for t in trials if t.id in all_verdicts},
        evidence_gathered=store.step_done(run_id, f"evidence:{trial.id}"),
        witness_rulings={w.id: live[w.id] for w in witnesses if w.id in live},
        analysis_error=str(store.steps_with_prefix(run_id, f"{AUTHOR_FAILED_STEP}task:{task.id}").get("") or ""),
    )
