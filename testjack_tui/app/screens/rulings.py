"""Rulings: the analyst's queue of witnesses to rule on, the rulings, and their history.

The queue (read by ``testjack_tui.review.rulings_queue``) is the analyst's work list: the columns
that decide a ruling come first (class, ρ, the trials a ruling would refute, the outcomes on the
reference and the null world, how many passing trials fail it), then the witness and its task and
a requirement cut short; the highlighted witness is shown in full underneath. ``needs ruling``
witnesses head the queue under every sort; ``c`` filters by class, ``v`` keeps the rulings that
would refute a trial, ``s`` sorts. An ambiguous witness (a prompt defect) stands out in the
theme's ``$verdict-ambiguous``, reversed.

Ruling a witness (or several marked ones) or a domain constraint, or undoing a ruling, goes
through ``testjack_tui.audit.rulings`` in a thread worker; those functions store the ruling
(author, time, value before) and recompute the task's verdicts at once, and every open screen
re-reads the store afterwards. The history marks undone rulings (struck, "undone by #n").
"""

from __future__ import annotations

from typing import Any, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from testjack_tui.app.widgets.table import Table
from testjack_tui.store import Store
from testjack_tui.app.messages import StoreChanged
from testjack_tui.app.screens.trial_panes import ruling_cells
from testjack_tui.app.widgets.domain import shorten
from testjack_tui.app.widgets.verdict import HELP_BINDINGS, add_keyed, theme_text, verdict_colour, verdict_text
from testjack_tui.app.workers import load
from testjack_tui.model import LABELS, Grounding, Ruling, Witness
from testjack_tui.review.rulings_queue import (
    QueueItem, QueueView, RulingsData, not_undoable, read_rulings, undone_by,
)

# Decision first: what a ruling would do, then which witness; at 100 columns the first four show.
QUEUE_COLUMNS = ("✓", "class", "ρ", "would refute", "new", "failing", "ref", "null", "ruling", "witness", "task",
                 "requirement", "input", "expected")
REQUIREMENT_WIDTH = 40  # the rest is in the detail pane under the table


class RulingsScreen(Screen):
    BINDINGS = [
        *HELP_BINDINGS,
        Binding("escape", "back", "Back", tooltip="Back to where you were"),
        Binding("N", "rule('necessary')", "Necessary",
                tooltip="Rule the highlighted witness (or every marked one) necessary: it refutes the trials it fails"),
        Binding("A", "rule('ambiguous')", "Ambiguous",
                tooltip="Rule the highlighted witness (or every marked one) ambiguous: a prompt defect, it refutes nothing"),
        Binding("space", "mark", "Mark", tooltip="Mark or unmark the highlighted witness, to rule the marked ones together"),
        Binding("f", "only_needs_ruling", "Needs ruling",
                tooltip="Show only the witnesses that need a ruling (again: every witness of the queue)"),
        Binding("c", "next_class", "Class", tooltip="Show one class of witness at a time (cycles; then every class)"),
        Binding("v", "only_changing", "Would refute",
                tooltip="Show only the witnesses whose ruling would refute a passing trial (again: all)"),
        Binding("s", "next_sort", "Sort", tooltip="Sort the queue: needs ruling first, most at stake, ρ, class, "
                                                  "witness (needs ruling stays on top)"),
        Binding("u", "undo", "Undo", tooltip="Undo the ruling highlighted in the history (never one already undone)"),
        Binding("r", "refresh", "Refresh", show=False, tooltip="Re-read the rulings from the store"),
    ]

    def __init__(self, run_id: str) -> None:
        super().__init__(classes="rulings-screen")
        self.run_id = run_id
        self.data: RulingsData | None = None
        self.rows: list[QueueItem] = []  # the queue's rows as shown (the filter applied)
        self.marked: set[str] = set()  # witnesses marked to be ruled together
        self.view = QueueView()

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Witnesses to rule on", id="queue-title", classes="section-title")
        yield Table(id="queue", cursor_type="row", zebra_stripes=True)
        yield Static("", id="queue-detail")
        yield Static("History (u undoes the highlighted ruling)", classes="section-title")
        yield Table(id="history", cursor_type="row", zebra_stripes=True)
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
        keep = history.cursor_row
        history.clear()
        undone = undone_by(data.history)
        for r in reversed(data.history):
            on = f"{r.target} {r.target_id}"
            if r.target == "constraint" and r.target_id in data.constraints:
                on += f" “{shorten(data.constraints[r.target_id], 40)}”"
            history.add_row(*ruling_cells(r, undone.get(r.id or -1), on=on), key=str(r.id))
        if history.row_count:
            history.move_cursor(row=min(keep, history.row_count - 1))

    def _fill_queue(self) -> None:
        data = self.data
        if data is None:
            return
        queue = self.query_one("#queue", DataTable)
        keep = self.highlighted_witness()
        row = queue.cursor_row
        self.rows = self.view.rows(data.queue)
        queue.clear()
        for item in self.rows:
            queue.add_row(*self._queue_cells(item), key=item.witness.id)
        ids = [item.witness.id for item in self.rows]
        if ids:
            queue.move_cursor(row=ids.index(keep) if keep in ids else min(row, len(ids) - 1))
        needing = sum(1 for item in data.queue if item.needs_ruling)
        self.query_one("#queue-title", Static).update(
            f"To rule on: {needing} of {len(data.queue)} need a ruling · {len(self.rows)} shown: "
            f"{self.view.describe()} (c class, v would refute, s sort)")
        self._show_detail()

    def _queue_cells(self, item: QueueItem) -> list[Any]:
        """One witness's row, in the order of ``QUEUE_COLUMNS``: what a ruling decides first."""
        w = item.witness
        return [
            self._mark_cell(w.id),
            class_text(self.app, str(w.classification) if w.classification else "?"),
            "" if w.rho is None else f"{w.rho:.2f}",
            would_refute(self.app, w, item.refutes, counted=True),
            "" if item.newly is None else str(len(item.newly)),
            f"{len(item.refutes)}/{len(item.refutes) + item.passes}",
            item.reference, item.null,
            item.ruling.value if item.ruling else "",
            w.id, shorten(w.task_id, 24), shorten(w.requirement, REQUIREMENT_WIDTH),
            shorten(item.call, 28), shorten(item.expected, 20),
        ]

    def _mark_cell(self, witness_id: str) -> Text:
        return theme_text(self.app, "✓", "accent", bold=True) if witness_id in self.marked else Text("")

    def _show_detail(self) -> None:
        """The highlighted witness in full: why it needs a ruling, its call, and what a ruling would change."""
        detail = self.query_one("#queue-detail", Static)
        item = self.highlighted_item()
        if item is None:
            detail.update("No witness to rule on." if self.view == QueueView()
                          else f"No witness shown ({self.view.describe()}): c, v or f show more.")
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
        line.append(f"reference {item.reference} · null {item.null} · fails on {len(item.refutes)} of {seen} "
                    "passing trials")
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
        self.view.cls = None if self.view.cls == "needs_ruling" else "needs_ruling"
        self._fill_queue()

    def action_next_class(self) -> None:
        self.view.cls = self.view.next_class(self.data.queue if self.data else [])
        self._fill_queue()

    def action_only_changing(self) -> None:
        self.view.changing = not self.view.changing
        self._fill_queue()

    def action_next_sort(self) -> None:
        self.view.sort = self.view.next_sort()
        self._fill_queue()

    def action_undo(self) -> None:
        history = self.query_one("#history", DataTable)
        if not self.data or not self.data.history:
            self.notify("no ruling to undo", severity="warning")
            return
        key, _ = history.coordinate_to_cell_key((history.cursor_row, 0))
        undo_with_form(self, self.run_id, int(key.value), self.data.history)

    def action_refresh(self) -> None:
        self.refresh_data()

    def action_back(self) -> None:
        self.app.pop_screen()


def class_text(app: Any, cls: str) -> Text:
    """A witness's class as the queue shows it, in its theme colour (``$verdict-needs_ruling``; an
    ambiguous one reversed in ``$verdict-ambiguous``)."""
    if cls == "ambiguous":  # a prompt defect: it must stand out among the implicit rows around it
        return Text(LABELS.get(cls, cls), style=f"bold reverse {verdict_colour(app, cls)}".strip())
    if cls == "needs_ruling":
        return verdict_text(app, cls)
    return Text(cls)


def undo_with_form(node: Any, run_id: str, ruling_id: int, history: list[Ruling]) -> None:
    """Ask why, undo the ruling in a worker (an undo is itself a ruling), and let every screen re-read.

    A ruling already undone, or an undo, is refused at once (``history`` says which), before any reason is asked.
    """
    from testjack_tui.app.screens.forms import ReasonForm
    from testjack_tui.audit.rulings import undo_ruling

    refused = not_undoable(history, ruling_id)
    if refused:
        node.notify(refused, severity="warning")
        return

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

