"""Rulings: the analyst's queue of witnesses to rule on, the rulings, and their history.

The queue lists the witnesses that need a ruling first (``needs_ruling``: the evidence cannot
classify them, and they refute nothing until ruled), most trials at stake first as
``testjack_tui.audit.needs_ruling.undecided`` orders and counts them for the report too; then the
other implicit witnesses and every witness with a ruling in force.

Ruling a witness (or several marked ones) or a domain constraint, or undoing a ruling, goes
through ``testjack_tui.audit.rulings`` in a thread worker; those functions store the ruling
(author, time, value before) and recompute the task's verdicts at once, and every open screen
re-reads the store afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from testjack_tui.store import Store
from testjack_tui.app.messages import StoreChanged
from testjack_tui.app.widgets.domain import shorten
from testjack_tui.app.widgets.verdict import HELP_BINDINGS, add_keyed, theme_text, verdict_text
from testjack_tui.app.workers import load
from testjack_tui.model import Classification, Grounding, RequirementKind, Ruling, Witness, WitnessStatus

QUEUE_COLUMNS = ("✓", "witness", "task", "class", "would refute", "new", "failing", "ref", "input", "expected",
                 "requirement", "ρ", "ruling")


@dataclass
class QueueItem:
    witness: Witness
    reference: str
    refutes: list[str]  # passing trials it fails on: refuted if it is (ruled) necessary
    passes: int
    ruling: Ruling | None
    because: str = ""  # why the evidence could not classify it (needs_ruling only)
    newly: list[str] | None = None  # of ``refutes``, those nothing else refutes yet (needs_ruling only)
    call: str = ""  # the call it makes of the task's code, and what it expects of it
    expected: str = ""

    @property
    def needs_ruling(self) -> bool:
        return self.witness.classification == Classification.NEEDS_RULING


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
                         call=call, expected=expected)

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


class RulingsScreen(Screen):
    BINDINGS = [
        *HELP_BINDINGS,
        Binding("escape", "back", "Back", tooltip="Back to where you were"),
        Binding("N", "rule('necessary')", "Rule necessary",
                tooltip="Rule the highlighted witness (or every marked one) necessary: it refutes the trials it fails"),
        Binding("A", "rule('ambiguous')", "Rule ambiguous",
                tooltip="Rule the highlighted witness (or every marked one) ambiguous: a prompt defect, it refutes nothing"),
        Binding("space", "mark", "Mark", tooltip="Mark or unmark the highlighted witness, to rule the marked ones together"),
        Binding("f", "only_needs_ruling", "Only needs ruling",
                tooltip="Show only the witnesses that need a ruling (again: every witness of the queue)"),
        Binding("u", "undo", "Undo ruling", tooltip="Undo the ruling highlighted in the history"),
        Binding("r", "refresh", "Refresh", tooltip="Re-read the rulings from the store"),
    ]

    def __init__(self, run_id: str) -> None:
        super().__init__(classes="rulings-screen")
        self.run_id = run_id
        self.data: RulingsData | None = None
        self.rows: list[QueueItem] = []  # the queue's rows as shown (the filter applied)
        self.marked: set[str] = set()  # witnesses marked to be ruled together
        self.only_needs_ruling = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Witnesses to rule on", id="queue-title", classes="section-title")
        yield DataTable(id="queue", cursor_type="row", zebra_stripes=True)
        yield Static("", id="queue-detail")
        yield Static("History (u undoes the highlighted ruling)", classes="section-title")
        yield DataTable(id="history", cursor_type="row", zebra_stripes=True)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.title = f"Rulings of {self.run_id}"
        add_keyed(self.query_one("#queue", DataTable), *QUEUE_COLUMNS)
        add_keyed(self.query_one("#history", DataTable), "#", "on", "value", "before", "by", "at", "reason")
        self.query_one("#queue", DataTable).focus()
        self.refresh_data()

    def refresh_data(self) -> None:
        run_id = self.run_id
        load(self, "rulings", lambda store: read_rulings(store, run_id), self._show)

    def store_changed(self, run_id: str) -> None:
        if run_id == self.run_id:
            self.refresh_data()

    def _show(self, data: RulingsData) -> None:
        self.data = data
        self.marked &= {item.witness.id for item in data.queue}
        self._fill_queue()
        history = self.query_one("#history", DataTable)
        history.clear()
        for r in reversed(data.history):
            value = f"undo #{r.undoes}" if r.undoes is not None else r.value
            on = f"{r.target} {r.target_id}"
            if r.target == "constraint" and r.target_id in data.constraints:
                on += f" “{shorten(data.constraints[r.target_id], 40)}”"
            history.add_row(str(r.id), on, value, r.before, r.author, r.created_at, r.reason, key=str(r.id))

    def _fill_queue(self) -> None:
        data = self.data
        if data is None:
            return
        queue = self.query_one("#queue", DataTable)
        keep = self.highlighted_witness()
        row = queue.cursor_row
        self.rows = [item for item in data.queue if item.needs_ruling or not self.only_needs_ruling]
        queue.clear()
        for item in self.rows:
            w = item.witness
            queue.add_row(
                self._mark_cell(w.id), w.id, shorten(w.task_id, 24),
                class_text(self.app, str(w.classification) if w.classification else "?"),
                would_refute(self.app, w, item.refutes, counted=True),
                "" if item.newly is None else str(len(item.newly)),
                f"{len(item.refutes)}/{len(item.refutes) + item.passes}",
                item.reference,
                shorten(item.call, 28), shorten(item.expected, 20), shorten(w.requirement, 32),
                "" if w.rho is None else f"{w.rho:.2f}",
                item.ruling.value if item.ruling else "",
                key=w.id,
            )
        ids = [item.witness.id for item in self.rows]
        if ids:
            queue.move_cursor(row=ids.index(keep) if keep in ids else min(row, len(ids) - 1))
        needing = sum(1 for item in data.queue if item.needs_ruling)
        shown = "only those shown, f: all" if self.only_needs_ruling else "f: only those"
        self.query_one("#queue-title", Static).update(
            f"To rule on: {needing} of {len(data.queue)} need a ruling ({shown}) · N necessary · A ambiguous · "
            "space marks")
        self._show_detail()

    def _mark_cell(self, witness_id: str) -> Text:
        return theme_text(self.app, "✓", "accent", bold=True) if witness_id in self.marked else Text("")

    def _show_detail(self) -> None:
        """The highlighted witness in full: why it needs a ruling, its call, and what a ruling would change."""
        detail = self.query_one("#queue-detail", Static)
        item = self.highlighted_item()
        if item is None:
            detail.update("No witness to rule on." if not self.only_needs_ruling
                          else "No witness needs a ruling (f shows the whole queue).")
            return
        w = item.witness
        passing = (self.data.passing if self.data else {}).get(w.task_id, [])
        line = Text()
        line.append(f"{w.id}", style="bold")
        line.append(f" on {w.task_id}: {w.requirement}\n")
        if item.needs_ruling:
            line.append_text(class_text(self.app, "needs_ruling"))
            line.append(f": {item.because}\n")
        if item.call:
            line.append(f"input {item.call}")
            line.append(f" · expects {item.expected}" if item.expected else "")
            line.append("\n")
        seen = len(item.refutes) + item.passes
        line.append(f"reference {item.reference} · fails on {len(item.refutes)} of {seen} passing trials")
        line.append(f": {', '.join(item.refutes)}" if item.refutes else "")
        if len(passing) != seen:
            line.append(f" (the task has {len(passing)})")
        if w.grounding in (Grounding.OUTSIDE_DOMAIN, Grounding.UNPLACED):
            line.append(" · its input is not placed in the task's domain: it refutes nothing, however ruled")
        elif item.newly is not None:
            line.append(f" · ruled necessary it refutes {len(item.refutes)}, {len(item.newly)} of them "
                        "refuted by nothing else")
        detail.update(line)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "queue":
            self._show_detail()

    def highlighted_item(self) -> QueueItem | None:
        if not self.rows:
            return None
        row = self.query_one("#queue", DataTable).cursor_row
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def highlighted_witness(self) -> str | None:
        item = self.highlighted_item()
        return item.witness.id if item else None

    def action_rule(self, value: str) -> None:
        shown = [item.witness.id for item in self.rows]
        chosen = [wid for wid in shown if wid in self.marked]
        if not chosen:
            wid = self.highlighted_witness()
            if wid is None:
                self.notify("the queue is empty", severity="warning")
                return
            chosen = [wid]

        def unmark() -> None:
            self.marked.difference_update(chosen)

        rule_with_form(self, self.run_id, chosen, value, after=unmark)

    def action_mark(self) -> None:
        wid = self.highlighted_witness()
        if wid is None:
            return
        self.marked.symmetric_difference_update({wid})
        queue = self.query_one("#queue", DataTable)
        queue.update_cell(wid, "✓", self._mark_cell(wid))
        if queue.cursor_row < queue.row_count - 1:
            queue.move_cursor(row=queue.cursor_row + 1)

    def action_only_needs_ruling(self) -> None:
        self.only_needs_ruling = not self.only_needs_ruling
        self._fill_queue()

    def action_undo(self) -> None:
        history = self.query_one("#history", DataTable)
        if not self.data or not self.data.history:
            self.notify("no ruling to undo", severity="warning")
            return
        key, _ = history.coordinate_to_cell_key((history.cursor_row, 0))
        undo_with_form(self, self.run_id, int(key.value))

    def action_refresh(self) -> None:
        self.refresh_data()

    def action_back(self) -> None:
        self.app.pop_screen()


def class_text(app: Any, cls: str) -> Text:
    """A witness's class as the queue shows it, in its theme colour (``$verdict-ambiguous``, ``$verdict-needs_ruling``)."""
    if cls in ("ambiguous", "needs_ruling"):
        return verdict_text(app, cls)
    return Text(cls)


def undo_with_form(node: Any, run_id: str, ruling_id: int) -> None:
    """Ask why, undo the ruling in a worker (an undo is itself a ruling), and let every screen re-read."""
    from testjack_tui.app.screens.forms import ReasonForm
    from testjack_tui.audit.rulings import undo_ruling

    author = node.app.analyst()

    def chosen(reason: str | None) -> None:
        if not reason:
            return

        def write(store: Store) -> Ruling:
            return undo_ruling(store, ruling_id, reason=reason, author=author, run_ref=run_id)

        def done(undo: Ruling) -> None:
            node.notify(f"ruling #{ruling_id} undone (#{undo.id}); verdicts recomputed")
            node.app.post_message(StoreChanged(run_id))

        load(node, f"undo #{ruling_id}", write, done)

    node.app.push_screen(ReasonForm(f"Undo ruling #{ruling_id}", "why undo it (stored with the undo)", "Undo"), chosen)


def would_refute(app: Any, w: Witness, failing: list[str], counted: bool = False) -> Text | str:
    """The trials a witness's failures would refute: none when its input lies outside the domain.

    ``counted``: their number first (``2: c2, c3``), the names cut short, as the queue shows them.
    """
    if w.grounding in (Grounding.OUTSIDE_DOMAIN, Grounding.UNPLACED):
        where = "outside the domain" if w.grounding == Grounding.OUTSIDE_DOMAIN else "unplaced"
        return theme_text(app, f"none ({where})", "warning" if w.grounding == Grounding.OUTSIDE_DOMAIN else "text-muted")
    if counted:
        return shorten(f"{len(failing)}: {', '.join(failing)}", 22) if failing else "0"
    return ", ".join(failing) or "none"


def rule_with_form(node: Any, run_id: str, witness_ids: str | list[str], value: str,
                   after: Callable[[], None] | None = None) -> None:
    """Ask for one reason, rule the witness (or every witness listed) with it in a worker, and let
    every screen re-read the verdicts.

    Each witness gets a ruling of its own (undone on its own); ``after`` runs once the reason is
    given (the rulings are then on their way).
    """
    from testjack_tui.app.screens.forms import ReasonForm
    from testjack_tui.audit.rulings import rule_witness

    ids = [witness_ids] if isinstance(witness_ids, str) else list(witness_ids)
    author = node.app.analyst()

    def chosen(reason: str | None) -> None:
        if not reason:
            return
        if after is not None:
            after()

        def done(results: list) -> None:
            if len(results) == 1:
                ruling, witness = results[0]
                node.notify(f"{ids[0]} ruled {value} (was {ruling.before}, now {witness.classification}); "
                            "verdicts recomputed")
            else:
                node.notify(f"{len(results)} witnesses ruled {value}; verdicts recomputed")
            node.app.post_message(StoreChanged(run_id))

        load(node, f"rule {ids[0]}" if len(ids) == 1 else f"rule {len(ids)} witnesses",
             lambda store: [rule_witness(store, wid, value, reason, author) for wid in ids], done)

    title = f"Rule {ids[0]} {value}" if len(ids) == 1 else f"Rule {len(ids)} witnesses {value}: {', '.join(ids)}"
    node.app.push_screen(ReasonForm(title), chosen)


def rule_constraint_with_form(node: Any, run_id: str, constraint_id: str, text: str) -> None:
    """Ask why the constraint is wrong, rule it so in a worker, and let every screen re-read.

    The witnesses of its task are placed in the domain again without it and the task's verdicts
    recomputed (``rule_constraint``); the ruling is undone like any other, from the history.
    """
    from testjack_tui.app.screens.forms import ReasonForm
    from testjack_tui.audit.rulings import rule_constraint

    author = node.app.analyst()

    def chosen(reason: str | None) -> None:
        if not reason:
            return

        def done(ruling: Ruling) -> None:
            node.notify(f"constraint {constraint_id} ruled wrong (ruling #{ruling.id}); "
                        "witnesses placed again and verdicts recomputed")
            node.app.post_message(StoreChanged(run_id))

        load(node, f"rule constraint {constraint_id}",
             lambda store: rule_constraint(store, run_id, constraint_id, reason, author), done)

    node.app.push_screen(
        ReasonForm(f"Rule the constraint “{shorten(text, 50)}” wrong", "why it is wrong (stored with the ruling)"),
        chosen,
    )

