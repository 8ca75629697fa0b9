"""Analyst rulings: rule a witness necessary or ambiguous, override a verdict, undo.

Rulings are append-only (the store refuses updates and deletes); an undo is a new ruling that
names the one it cancels. After each ruling the task's classifications and verdicts are
recomputed from the store at once.
"""

from __future__ import annotations

from testjack_tui.store import NotFound, Store
from testjack_tui.audit.verdicts import recompute_task
from testjack_tui.model import Ruling, Verdict, Witness


def rule_witness(store: Store, witness_id: str, value: str, reason: str, author: str = "analyst") -> tuple[Ruling, Witness]:
    if value not in ("necessary", "ambiguous"):
        raise ValueError("a witness is ruled necessary or ambiguous")
    w = store.get_witness(witness_id)
    before = str(w.classification) if w.classification else "unclassified"
    ruling = Ruling(run_id=w.run_id, target="witness", target_id=w.id, value=value, before=before,
                    reason=reason, author=author)
    store.add_ruling(ruling)
    recompute_task(store, store.get_task(w.run_id, w.task_id))
    return ruling, store.get_witness(witness_id)


def rule_constraint(store: Store, run_ref: str, constraint_id: str, reason: str, author: str = "analyst") -> Ruling:
    """Rule one of a task's domain constraints wrong: witnesses are placed again without it.

    A constraint read wrongly from P (or seen in too few inputs) would keep true defects from
    refuting; after this ruling grounding ignores it, and an undo brings it back.
    """
    run = store.get_run(run_ref)
    task = task_of_constraint(store, run.id, constraint_id)
    ruling = Ruling(run_id=run.id, target="constraint", target_id=constraint_id, value="wrong", before="in force",
                    reason=reason, author=author)
    store.add_ruling(ruling)
    recompute_task(store, task)
    return ruling


def task_of_constraint(store: Store, run_id: str, constraint_id: str):
    for task in store.list_tasks(run_id):
        if any(c.id == constraint_id for c in task.domain):
            return task
    raise NotFound(f"no domain constraint {constraint_id!r} in run {run_id!r}")


def override_verdict(store: Store, trial_id: str, value: str, reason: str, author: str = "analyst",
                     run_ref: str | None = None) -> Ruling:
    Verdict(value)  # raises on a bad value
    run_id = store.get_run(run_ref).id if run_ref else None
    trial = store.find_trial(trial_id, run_id)
    before = str(store.get_verdict(trial.run_id, trial.id).verdict)
    ruling = Ruling(run_id=trial.run_id, target="trial", target_id=trial.id, value=value, before=before,
                    reason=reason, author=author)
    store.add_ruling(ruling)
    recompute_task(store, store.get_task(trial.run_id, trial.task_id))
    return ruling


def undo_ruling(store: Store, ruling_id: int, reason: str = "undone", author: str = "analyst",
                run_ref: str | None = None) -> Ruling:
    runs = [store.get_run(run_ref)] if run_ref else store.list_runs()
    for run in runs:
        for r in store.list_rulings(run.id):
            if r.id == ruling_id:
                if r.undoes is not None:
                    raise ValueError(f"ruling #{ruling_id} is itself an undo")
                if any(x.undoes == ruling_id for x in store.list_rulings(run.id)):
                    raise ValueError(f"ruling #{ruling_id} is already undone")
                undo = Ruling(run_id=r.run_id, target=r.target, target_id=r.target_id, value="undo",
                              before=r.value, reason=reason, author=author, undoes=r.id)
                store.add_ruling(undo)
                if r.target == "constraint":
                    task = task_of_constraint(store, r.run_id, r.target_id)
                else:
                    task_id = (store.get_witness(r.target_id).task_id if r.target == "witness"
                               else store.get_trial(r.run_id, r.target_id).task_id)
                    task = store.get_task(r.run_id, task_id)
                recompute_task(store, task)
                return undo
    raise NotFound(f"no ruling #{ruling_id}")
