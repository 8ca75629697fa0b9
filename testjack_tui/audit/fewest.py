"""Fewest witnesses: of the witnesses that fail exactly the same trials, the analyst reads one.

Once a task's audit is over, every validated witness has run on every passing trial, so two
witnesses that fail the same trials (and are classified alike) say the same thing about this run:
the simplest one stays, the others are set aside (status ``discarded``, with a reason naming the
one kept). The verdicts cannot change: the kept witness refutes exactly the trials the others did.

Left alone: witnesses that fail no trial (each documents a requirement that future trials may
miss), flaky ones, the harness witness (T0 with the harness restored: no test file of its own),
and manual witnesses (an analyst wrote each on purpose).
"""

from __future__ import annotations

from testjack_tui.store import Store
from testjack_tui.model import Origin, Task, Witness, WitnessStatus

WORLDS_OF_THE_TASK = ("reference", "null")


def twins(witnesses: list[Witness], results: dict[str, dict[str, str]]) -> dict[str, str]:
    """Witness id -> the id of the simpler witness that fails the same trials, for each set aside."""
    groups: dict[tuple, list[Witness]] = {}
    for w in witnesses:
        if w.flaky or not w.path or w.origin == Origin.MANUAL or w.status != WitnessStatus.VALIDATED:
            continue
        failing = frozenset(world for world, outcome in results.get(w.id, {}).items()
                            if world not in WORLDS_OF_THE_TASK and outcome == "fail")
        if failing:
            # a twin that refutes is never set aside for one that cannot (a timing witness where
            # P bounds no time, one outside the domain): the verdicts would change
            groups.setdefault((failing, w.classification, w.refutes, w.slow_only), []).append(w)
    out: dict[str, str] = {}
    for group in groups.values():
        kept, *others = sorted(group, key=lambda w: (len(w.code), w.id))
        out.update({w.id: kept.id for w in others})
    return out


def set_aside_twins(store: Store, task: Task) -> list[str]:
    """Mark the task's redundant witnesses discarded; returns their ids."""
    witnesses = store.list_witnesses(task.run_id, task.id, status=str(WitnessStatus.VALIDATED))
    results = {w.id: {k: str(v.outcome) for k, v in store.witness_results(w.id).items()} for w in witnesses}
    redundant = twins(witnesses, results)
    for w in witnesses:
        if w.id in redundant:
            w.status = WitnessStatus.DISCARDED
            w.discard_reason = (f"redundant: fails the same trials as {redundant[w.id]}, "
                                "which is simpler and is kept")
            store.put_witness(w)
    return sorted(redundant)
