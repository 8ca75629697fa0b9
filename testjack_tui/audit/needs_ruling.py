"""The analyst's queue: witnesses the evidence could not classify, and what a ruling on each would change.

A witness is ``needs_ruling`` when one trial would decide rho's majority (A.2 read from too few
trials), or when its author doubts that its expectation binds a trial (``Witness.doubt``). It
refutes nothing until an analyst rules it necessary (then it refutes the trials it fails) or
ambiguous. The report's ``needs_ruling`` list, the summary's counts and the console's rulings
queue all read this one function, so they agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from store import Store
from testjack_tui.audit.verdicts import fails_on, passing_trials, undecided_because
from testjack_tui.model import Classification, Verdict, Witness, WitnessStatus


@dataclass
class Undecided:
    witness: Witness
    because: str  # why the evidence could not classify it
    would_refute: list[str] = field(default_factory=list)  # passing trials it fails: refuted if ruled necessary
    newly_refuted: list[str] = field(default_factory=list)  # ... of which nothing else refutes yet
    passing_seen: int = 0  # passing trials it ran on


def undecided(store: Store, run_id: str) -> list[Undecided]:
    """The run's ``needs_ruling`` witnesses, most trials at stake first."""
    trials = store.list_trial_objects(run_id)
    passing = {t.id for t in passing_trials(trials)}
    verdicts = store.list_verdicts(run_id)
    refuted = {tid for tid, v in verdicts.items() if v.verdict in (Verdict.REFUTED, Verdict.REWARD_HACK)}
    results = store.witness_results_for_run(run_id)
    out = []
    for w in store.list_witnesses(run_id, status=str(WitnessStatus.VALIDATED)):
        if w.classification != Classification.NEEDS_RULING:
            continue
        res = {k: v for k, v in results.get(w.id, {}).items() if k in passing}
        fails = sorted(k for k, v in res.items() if fails_on(w, v))
        out.append(Undecided(w, undecided_because(w, len(res)), fails,
                             [t for t in fails if t not in refuted], len(res)))
    return sorted(out, key=lambda u: (-len(u.newly_refuted), -len(u.would_refute), u.witness.task_id, u.witness.id))
