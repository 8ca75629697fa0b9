"""Rulings: the queue of implicit and ambiguous witnesses, the analyst's rulings, and their history.

Ruling a witness or a domain constraint, or undoing a ruling, goes through
``testjack_tui.audit.rulings`` in a thread worker; those functions store the ruling (author,
time, value before) and recompute the task's verdicts at once, and every open screen re-reads
the store afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from store import Store
from testjack_tui.app.messages import StoreChanged
from testjack_tui.app.widgets.domain import shorten
from testjack_tui.app.widgets.verdict import HELP_BINDINGS, add_keyed, theme_text, verdict_text
from testjack_tui.app.workers import load
from testjack_tui.model import Grounding, RequirementKind, Ruling, Witness, WitnessStatus


@dataclass
class QueueItem:
    witness: Witness
    reference: str
    refutes: list[str]  # passing trials it fails on
    passes: int
    ruling: Ruling | None


@dataclass
class RulingsData:
    queue: list[QueueItem]
    history: list[Ruling]
    constraints: dict[str, str] = field(default_factory=dict)  # id -> text, of the constraints ruled on


def read_rulings(store: Store, run_id: str) -> RulingsData:
    from testjack_tui.audit.verdicts import fails_on, passing_trials

    results = store.witness_results_for_run(run_id)
    passing = {t.id for t in passing_trials(store.list_trial_objects(run_id))}
    live = store.effective_rulings(run_id, "witness")
    queue = []
    for w in store.list_witnesses(run_id, status=str(WitnessStatus.VALIDATED)):
        if w.requirement_kind != RequirementKind.IMPLICIT and w.id not in live:
            continue
        res = results.get(w.id, {})
        trials = {k: v for k, v in res.items() if k in passing}
        fails = sorted(k for k, v in trials.items() if fails_on(w, v))  # as rho counts them
        queue.append(QueueItem(w, res.get("reference", "—"), fails, len(trials) - len(fails), live.get(w.id)))
    history = store.list_rulings(run_id)
    constraints: dict[str, str] = {}
    if any(r.target == "constraint" for r in history):
        constraints = {c.id: c.text for task in store.list_tasks(run_id) for c in task.domain}
    return RulingsData(queue, history, constraints)


class RulingsScreen(Screen):
    BINDINGS = [
        *HELP_BINDINGS,
        Binding("escape", "back", "Back", tooltip="Back to where you were"),
        Binding("A", "rule('ambiguous')", "Rule ambiguous", tooltip="Rule the highlighted witness ambiguous: it refutes nothing"),
        Binding("N", "rule('necessary')", "Rule necessary", tooltip="Rule the highlighted witness necessary: it refutes"),
        Binding("u", "undo", "Undo ruling", tooltip="Undo the ruling highlighted in the history"),
        Binding("r", "refresh", "Refresh", tooltip="Re-read the rulings from the store"),
    ]

    def __init__(self, run_id: str) -> None:
        super().__init__(classes="rulings-screen")
        self.run_id = run_id
        self.data: RulingsData | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Implicit and ambiguous witnesses (A: ambiguous, N: necessary)", classes="section-title")
        yield DataTable(id="queue", cursor_type="row", zebra_stripes=True)
        yield Static("History (u undoes the highlighted ruling)", classes="section-title")
        yield DataTable(id="history", cursor_type="row", zebra_stripes=True)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.title = f"Rulings of {self.run_id}"
        add_keyed(self.query_one("#queue", DataTable), 
            "witness", "task", "requirement", "class", "ρ", "ruling", "reference", "trials failing", "would refute")
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
        queue = self.query_one("#queue", DataTable)
        row = queue.cursor_row
        queue.clear()
        for item in data.queue:
            w = item.witness
            cls = str(w.classification) if w.classification else "?"
            queue.add_row(
                w.id, w.task_id, w.requirement,
                verdict_text(self.app, cls) if cls == "ambiguous" else Text(cls),
                "" if w.rho is None else f"{w.rho:.2f}",
                item.ruling.value if item.ruling else "",
                item.reference,
                f"{len(item.refutes)}/{len(item.refutes) + item.passes}",
                would_refute(self.app, w, item.refutes),
                key=w.id,
            )
        if data.queue:
            queue.move_cursor(row=min(row, len(data.queue) - 1))
        history = self.query_one("#history", DataTable)
        history.clear()
        for r in reversed(data.history):
            value = f"undo #{r.undoes}" if r.undoes is not None else r.value
            on = f"{r.target} {r.target_id}"
            if r.target == "constraint" and r.target_id in data.constraints:
                on += f" “{shorten(data.constraints[r.target_id], 40)}”"
            history.add_row(str(r.id), on, value, r.before, r.author, r.created_at, r.reason, key=str(r.id))

    def highlighted_witness(self) -> str | None:
        if not self.data or not self.data.queue:
            return None
        return self.data.queue[self.query_one("#queue", DataTable).cursor_row].witness.id

    def action_rule(self, value: str) -> None:
        wid = self.highlighted_witness()
        if wid is None:
            self.notify("the queue is empty", severity="warning")
            return
        rule_with_form(self, self.run_id, wid, value)

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


def would_refute(app: Any, w: Witness, failing: list[str]) -> Text | str:
    """The trials a witness's failures would refute: none when its input lies outside the domain."""
    if w.grounding in (Grounding.OUTSIDE_DOMAIN, Grounding.UNPLACED):
        where = "outside the domain" if w.grounding == Grounding.OUTSIDE_DOMAIN else "unplaced"
        return theme_text(app, f"none ({where})", "warning" if w.grounding == Grounding.OUTSIDE_DOMAIN else "text-muted")
    return ", ".join(failing) or "none"


def rule_with_form(node: Any, run_id: str, witness_id: str, value: str) -> None:
    """Ask for the reason, rule the witness, and let every screen re-read the verdicts."""
    from testjack_tui.app.screens.forms import ReasonForm
    from testjack_tui.audit.rulings import rule_witness

    author = node.app.analyst()

    def chosen(reason: str | None) -> None:
        if not reason:
            return

        def done(result) -> None:
            ruling, witness = result
            node.notify(f"{witness_id} ruled {value} (was {ruling.before}, now {witness.classification}); verdicts recomputed")
            node.app.post_message(StoreChanged(run_id))

        load(node, f"rule {witness_id}", lambda store: rule_witness(store, witness_id, value, reason, author), done)

    node.app.push_screen(ReasonForm(f"Rule {witness_id} {value}"), chosen)


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
