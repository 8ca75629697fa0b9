"""Analyst rulings: rule a witness necessary or ambiguous, override a verdict, undo.

Rulings are append-only (the store refuses updates and deletes); an undo is a new ruling that
names the one it cancels. After each ruling the task's classifications and verdicts are
recomputed from the store at once.
"""

from __future__ import annotations

from store import NotFound, Store
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
                task_id = (store.get_witness(r.target_id).task_id if r.target == "witness"
                           else store.get_trial(r.run_id, r.target_id).task_id)
                recompute_task(store, store.get_task(r.run_id, task_id))
                return undo
    raise NotFound(f"no ruling #{ruling_id}")
