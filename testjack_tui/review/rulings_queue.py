"""What the rulings screen reads: the analyst's queue of witnesses to rule on, and the history.

The queue holds the witnesses that need a ruling first (``needs_ruling``: the evidence cannot
classify them, and they refute nothing until ruled), most trials at stake first as
``testjack_tui.audit.needs_ruling.undecided`` orders and counts them for the report too; then the
other implicit witnesses and every witness with a ruling in force. ``QueueView`` is how the
analyst sorts and filters it: by class, and by what a ruling would change. No widgets here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from testjack_tui.store import Store
from testjack_tui.model import Classification, Grounding, RequirementKind, Ruling, Witness, WitnessStatus


@dataclass
class QueueItem:
    witness: Witness
    reference: str  # its outcome on the reference, and on the null world
    refutes: list[str]  # passing trials it fails on: refuted if it is (ruled) necessary
    passes: int
    ruling: Ruling | None
    because: str = ""  # why the evidence could not classify it (needs_ruling only)
    newly: list[str] | None = None  # of ``refutes``, those nothing else refutes yet (needs_ruling only)
    call: str = ""  # the call it makes of the task's code, and what it expects of it
    expected: str = ""
    null: str = "—"

    @property
    def needs_ruling(self) -> bool:
        return self.witness.classification == Classification.NEEDS_RULING

    @property
    def in_domain(self) -> bool:
        """Whether its failures can refute at all (an input outside the domain, or unplaced, refutes nothing)."""
        return self.witness.grounding not in (Grounding.OUTSIDE_DOMAIN, Grounding.UNPLACED)

    @property
    def at_stake(self) -> tuple[int, int]:
        """What a ruling would change, to sort by: trials refuted by nothing else, then trials it fails."""
        if not self.in_domain:
            return (0, 0)
        return (len(self.newly or []), len(self.refutes))


@dataclass
class RulingsData:
    queue: list[QueueItem]
    history: list[Ruling]
    constraints: dict[str, str] = field(default_factory=dict)  # id -> text, of the constraints ruled on
    passing: dict[str, list[str]] = field(default_factory=dict)  # task -> its passing trials


def read_rulings(store: Store, run_id: str) -> RulingsData:
    """The queue, needs_ruling witnesses first in ``undecided``'s order (its counts), then the rest."""
    from testjack_tui.audit.needs_ruling import undecided, witness_call
    from testjack_tui.audit.verdicts import fails_on, passing_trials

    results = store.witness_results_for_run(run_id)
    trials = passing_trials(store.list_trial_objects(run_id))
    passing = {t.id for t in trials}
    by_task: dict[str, list[str]] = {}
    for t in trials:
        by_task.setdefault(t.task_id, []).append(t.id)
    live = store.effective_rulings(run_id, "witness")

    def item(w: Witness) -> QueueItem:
        res = results.get(w.id, {})
        seen = {k: v for k, v in res.items() if k in passing}
        fails = sorted(k for k, v in seen.items() if fails_on(w, v))  # as rho counts them
        call, expected = witness_call(w.code)
        return QueueItem(w, res.get("reference", "—"), fails, len(seen) - len(fails), live.get(w.id),
                         call=call, expected=expected, null=res.get("null", "—"))

    queue = []
    for u in undecided(store, run_id):
        it = item(u.witness)
        it.refutes, it.passes, it.because, it.newly = u.would_refute, u.passing_seen - len(u.would_refute), u.because, u.newly_refuted
        queue.append(it)
    for w in store.list_witnesses(run_id, status=str(WitnessStatus.VALIDATED)):
        if w.classification == Classification.NEEDS_RULING:
            continue
        if w.requirement_kind != RequirementKind.IMPLICIT and w.id not in live:
            continue
        queue.append(item(w))
    history = store.list_rulings(run_id)
    constraints: dict[str, str] = {}
    if any(r.target == "constraint" for r in history):
        constraints = {c.id: c.text for task in store.list_tasks(run_id) for c in task.domain}
    return RulingsData(queue, history, constraints, by_task)


def class_of(item: QueueItem) -> str:
    w = item.witness
    return str(w.classification) if w.classification else "?"


# The queue's sort orders: the key, and what the title says. "queue" keeps needs_ruling first.
SORTS = {
    "queue": ("needs ruling first", None),
    "stake": ("most at stake first", lambda it: (not it.needs_ruling, tuple(-n for n in it.at_stake))),
    "rho": ("highest ρ first", lambda it: (not it.needs_ruling, -(it.witness.rho or 0.0))),
    "class": ("by class", lambda it: (not it.needs_ruling, class_of(it))),
    "witness": ("by witness", lambda it: (not it.needs_ruling, it.witness.id)),
}


@dataclass
class QueueView:
    """How the analyst looks at the queue: one class or all, only the rulings that would refute a
    trial, and a sort order. ``needs ruling`` witnesses stay at the top under every sort."""

    cls: str | None = None
    changing: bool = False  # only witnesses whose ruling would refute at least one passing trial
    sort: str = "queue"

    def rows(self, queue: list[QueueItem]) -> list[QueueItem]:
        shown = [it for it in queue
                 if (self.cls is None or class_of(it) == self.cls) and (not self.changing or any(it.at_stake))]
        key = SORTS[self.sort][1]
        return sorted(shown, key=key) if key else shown

    def next_class(self, queue: list[QueueItem]) -> str | None:
        """The class after this one among those the queue holds (needs ruling first), then all again."""
        classes = sorted({class_of(it) for it in queue}, key=lambda c: (c != "needs_ruling", c))
        cycle: list[str | None] = [None, *classes]
        return cycle[(cycle.index(self.cls) + 1) % len(cycle)] if self.cls in cycle else None

    def next_sort(self) -> str:
        names = list(SORTS)
        return names[(names.index(self.sort) + 1) % len(names)]

    def describe(self) -> str:
        parts = [f"only {self.cls.replace('_', ' ')}" if self.cls else "every class"]
        if self.changing:
            parts.append("only those that would refute a trial")
        parts.append(SORTS[self.sort][0])
        return ", ".join(parts)


def undone_by(history: list[Ruling]) -> dict[int, int]:
    """Which ruling undid which: the id of each undone ruling -> the id of its undo."""
    return {r.undoes: r.id for r in history if r.undoes is not None and r.id is not None}


def latest_active(rulings: list[Ruling], deciding: int | None = None) -> Ruling | None:
    """The ruling an undo should offer: the one that decided the verdict (``deciding``) if given
    and in force, else the latest ruling neither undone nor itself an undo."""
    undone = undone_by(rulings)
    active = [r for r in rulings if r.undoes is None and r.id not in undone]
    chosen = next((r for r in active if deciding is not None and r.id == deciding), None)
    return chosen or max(active, key=lambda r: r.id or 0, default=None)


def not_undoable(history: list[Ruling], ruling_id: int) -> str:
    """Why a ruling cannot be undone (already undone, or itself an undo), or "" when it can."""
    undone = undone_by(history)
    ruling = next((r for r in history if r.id == ruling_id), None)
    if ruling is not None and ruling.undoes is not None:
        return f"ruling #{ruling_id} is itself an undo (of #{ruling.undoes}): rule again instead"
    if ruling_id in undone:
        return f"ruling #{ruling_id} is already undone (by #{undone[ruling_id]})"
    return ""
