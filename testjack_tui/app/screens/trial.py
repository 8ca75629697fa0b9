"""One trial under review: prompt, checklist and input domain, the two diffs, evidence, witnesses, verdict.

Everything is read in one thread worker when the screen opens (and again after a ruling or a
rerun); the Witnesses tab (``trial_witnesses``) reruns a witness in its own worker, and ruling a
domain constraint wrong runs in a worker too (``rule_constraint_with_form``). The Prompt tab's
drawing is in ``trial_prompt``.

Keys work whatever has focus: the tab keys are priority bindings, and switching tabs moves the
focus into the new tab (a focused widget left behind in a hidden tab would pull the tabs back).

This module holds the layout, the keys and what they do; the head line and the Evidence and
Verdict tabs' rows and texts are built from ``TrialData`` in ``trial_panes``.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.containers import Container, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import (
    DataTable,
    Footer,
    Header,
    Markdown,
    Static,
    TabbedContent,
    TabPane,
    TextArea,
)

from testjack_tui.app.widgets.table import Table
from testjack_tui.review.checklist import LEGEND, ChecklistRow
from testjack_tui.app.messages import StoreChanged
from testjack_tui.app.screens import trial_panes as panes
from testjack_tui.app.screens.override import override_with_form
from testjack_tui.review.rulings_queue import latest_active, undone_by
from testjack_tui.review.trial_data import TrialData, read_trial
from testjack_tui.app.screens.trial_prompt import PromptTab
from testjack_tui.app.screens.trial_witnesses import (
    MATRIX_COLUMNS,
    MATRIX_LEGEND,
    OUTCOME_COLUMNS,
    Rerun,
    WitnessMatrix,
)
from testjack_tui.app.widgets.diff_view import DiffView
from testjack_tui.app.widgets.verdict import HELP_BINDINGS, add_keyed
from testjack_tui.app.workers import load
from testjack_tui.model import Evidence, EvidenceKind

TABS = Binding.Group("Tabs", compact=True)
# the widget each tab's key puts the focus on
TAB_FOCUS = {"tab-prompt": "#requirements", "tab-diff": "#diff", "tab-evidence": "#evidence",
             "tab-witnesses": "#witnesses", "tab-verdict": "#trial-rulings"}


class TrialScreen(PromptTab, WitnessMatrix, Screen):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    BINDINGS = [
        *HELP_BINDINGS,
        Binding("escape", "back", "Back", tooltip="Back to where you were"),
        Binding("1", "tab('tab-prompt')", "Prompt", group=TABS, priority=True,
                tooltip="The prompt, its requirements checklist and its input domain"),
        Binding("2", "tab('tab-diff')", "Diff", group=TABS, priority=True,
                tooltip="The trial's and the reference's changes side by side"),
        Binding("3", "tab('tab-evidence')", "Evidence", group=TABS, priority=True,
                tooltip="Ghost branches, detector hits, mutants, slow findings"),
        Binding("4", "tab('tab-witnesses')", "Witnesses", group=TABS, priority=True,
                tooltip="The task's witnesses: their outcomes on every world and every passing trial"),
        Binding("5", "tab('tab-verdict')", "Verdict", group=TABS, priority=True,
                tooltip="The verdict, where it came from, the rulings"),
        Binding("m", "mark_reviewed", "Reviewed", tooltip="Mark this trial reviewed"),
        Binding("o", "override", "Override", tooltip="Set this trial's verdict, with a reason"),
        # these act on what one tab shows, and work (and show in the footer) there only: ``check_action``
        Binding("x", "rerun", "Rerun",
                tooltip="Run the highlighted witness again on the reference and this trial"),
        Binding("X", "rerun_all", "Rerun all",
                tooltip="Run the highlighted witness again on the reference and every passing trial of the task"),
        Binding("A", "rule('ambiguous')", "Ambiguous",
                tooltip="Rule the highlighted witness ambiguous (a prompt defect)"),
        Binding("N", "rule('necessary')", "Necessary",
                tooltip="Rule the highlighted witness necessary"),
        Binding("C", "rule_constraint", "Rule constraint wrong",
                tooltip="Rule the highlighted constraint of the input domain wrong (with a reason): "
                        "witnesses are placed again without it"),
        Binding("u", "undo_ruling", "Undo ruling",
                tooltip="Undo the ruling in force that decided this verdict (on the Verdict tab: the highlighted "
                        "one), with a reason"),
        Binding("w", "manual_witness", "Write witness", show=False, tooltip="Write a manual witness for this trial"),
    ]

    # the tab a key acts on: elsewhere it would act on a witness or constraint out of sight
    TAB_ACTIONS = {"rerun": "tab-witnesses", "rerun_all": "tab-witnesses", "rule": "tab-witnesses",
                   "rule_constraint": "tab-prompt", "undo_ruling": "tab-verdict"}

    def __init__(self, run_id: str, trial_id: str) -> None:
        super().__init__(classes="trial-screen")
        self.run_id = run_id
        self.trial_id = trial_id
        self.data: TrialData | None = None
        self.witness_id: str | None = None
        self.constraint_id: str | None = None
        self.checklist: list[ChecklistRow] = []
        self.checklist_key: str | None = None
        # reruns of this session (stored, and marked ↻ here): witness id -> world -> the rerun
        self.reruns: dict[str, dict[str, Rerun]] = {}
        self.outcome_rows: list[str] = []  # the worlds of the witness detail's rows, in order
        self.prompt_shown: str | None = None
        # Markdown parses and mounts the prompt in the background; kept so a caller can await it
        self.prompt_drawing: AwaitComplete | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.trial_id, id="trial-head", classes="summary")
        with TabbedContent(initial="tab-prompt", id="trial-tabs"):
            with TabPane("1 Prompt", id="tab-prompt"):
                with Container(id="prompt-split", classes="split"):
                    with VerticalScroll(id="prompt-pane"):
                        yield Markdown("", id="prompt")
                    with Vertical(id="checklist-pane"):
                        yield Static("Checklist", id="checklist-title", classes="section-title")
                        yield Table(id="requirements", cursor_type="row")
                        yield Static("", id="checklist-detail")
                        yield Static(LEGEND, id="checklist-legend", classes="legend")
                        yield Static("Input domain", id="domain-title", classes="section-title")
                        yield Table(id="domain", cursor_type="row")
                        yield Static("", id="constraint-detail")
            with TabPane("2 Diff", id="tab-diff"):
                yield DiffView(id="diff")
            with TabPane("3 Evidence", id="tab-evidence"):
                yield Table(id="evidence", cursor_type="row")
                yield Static("", id="evidence-detail")
            with TabPane("4 Witnesses", id="tab-witnesses"):
                with Vertical(id="witness-pane"):
                    yield Table(id="witnesses", cursor_type="row")
                    yield Static(MATRIX_LEGEND, id="witness-legend", classes="legend")
                    with Container(id="witness-detail", classes="split"):
                        with VerticalScroll(id="witness-info"):
                            # which trials fail it first: the matrix's row above says which witness
                            yield Table(id="witness-outcomes", cursor_type="row")
                            yield Static("", id="witness-head")
                        with Vertical(id="witness-source"):
                            yield TextArea("", id="witness-code", read_only=True, show_line_numbers=True)
                            with VerticalScroll(id="witness-log-pane"):
                                yield Static("", id="witness-log", markup=False)
            with TabPane("5 Verdict", id="tab-verdict"):
                with VerticalScroll():
                    yield Static("", id="verdict-detail")
                    yield Table(id="trial-rulings", cursor_type="row")
        yield Footer(compact=True, show_command_palette=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A tab's own keys work, and show in the footer, on that tab only; ``u`` also wherever an
        override decided the verdict."""
        tab = self.TAB_ACTIONS.get(action)
        if tab is None or not self.is_mounted:
            return True
        active = self.query_one(TabbedContent).active
        if action == "undo_ruling" and self.data is not None and self.data.verdict.ruling_id:
            return True
        return active == tab

    def on_mount(self) -> None:
        self.title = f"Trial {self.trial_id}"
        add_keyed(self.query_one("#requirements", DataTable), "kind", "T0", "this trial", "witnesses", "requirement")
        add_keyed(self.query_one("#domain", DataTable), "constraint", "ruling", "from", "kind", "broken by", "source")
        add_keyed(self.query_one("#evidence", DataTable), *panes.EVIDENCE_COLUMNS)
        add_keyed(self.query_one("#witnesses", DataTable), *MATRIX_COLUMNS)
        add_keyed(self.query_one("#witness-outcomes", DataTable), *OUTCOME_COLUMNS)
        add_keyed(self.query_one("#trial-rulings", DataTable), *panes.RULING_COLUMNS)
        code = self.query_one("#witness-code", TextArea)
        try:
            code.language = "python"
        except Exception:  # textual[syntax] (tree-sitter) missing: plain text
            pass
        self.query_one("#requirements", DataTable).focus()
        self.refresh_data()

    def refresh_data(self) -> None:
        run_id, trial_id = self.run_id, self.trial_id
        if self.data is None:  # the prompt first, on its own: it shows before the rest is read
            load(self, "prompt", lambda store: store.get_task(run_id, store.get_trial(run_id, trial_id).task_id).prompt,
                 self._show_prompt)
        load(self, "trial", lambda store: read_trial(store, run_id, trial_id), self._show)

    def _show_prompt(self, prompt: str) -> None:
        """Draw the prompt once: a refresh after a ruling leaves an unchanged prompt as it is."""
        text = prompt or "*(no prompt)*"
        if text != self.prompt_shown:
            self.prompt_shown = text
            self.prompt_drawing = self.query_one("#prompt", Markdown).update(text)

    def store_changed(self, run_id: str) -> None:
        if run_id == self.run_id:
            self.refresh_data()

    # ------------------------------------------------------------------ drawing

    def _show(self, data: TrialData) -> None:
        self.data = data
        self.query_one("#trial-head", Static).update(panes.head_line(self.app, data))
        self._show_prompt(data.task.prompt)
        self._show_checklist(data)
        self._show_domain(data)
        self.query_one("#diff", DiffView).show(data.files)
        self._show_evidence(data)
        self._show_witnesses(data)
        self._show_verdict(data)
        self.refresh_bindings()  # u shows once an override decided the verdict

    def _show_evidence(self, data: TrialData) -> None:
        table = self.query_one("#evidence", DataTable)
        table.clear()
        for i, e in enumerate(data.evidence):
            table.add_row(*panes.evidence_cells(self.app, e), key=str(i))
        if data.evidence:
            self._show_evidence_item(table.cursor_row)
        else:
            empty = panes.NO_EVIDENCE if data.evidence_gathered else panes.NOT_GATHERED
            self.query_one("#evidence-detail", Static).update(Text(empty, style="dim"))

    def _show_evidence_item(self, index: int) -> None:
        if self.data is None or not 0 <= index < len(self.data.evidence):
            return
        self.query_one("#evidence-detail", Static).update(panes.evidence_detail(self.app, self.data.evidence[index]))

    def _show_verdict(self, data: TrialData) -> None:
        self.query_one("#verdict-detail", Static).update(panes.verdict_detail(self.app, data))
        table = self.query_one("#trial-rulings", DataTable)
        table.clear()
        undone = undone_by(data.rulings)
        for r in data.rulings:
            table.add_row(*panes.ruling_cells(r, undone.get(r.id or -1)), key=str(r.id))
        # the cursor on the ruling in force that decides the verdict: what u offers to undo
        deciding = latest_active(data.rulings, data.verdict.ruling_id)
        if deciding is not None:
            table.move_cursor(row=data.rulings.index(deciding))

    # ------------------------------------------------------------------ events

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """Whatever switched the tab (a key, the mouse), the focus follows it and the footer shows its keys."""
        pane = event.pane.id or ""
        target = self.query_one(TAB_FOCUS[pane]) if pane in TAB_FOCUS else None
        if target is not None and (self.focused is None or pane not in [a.id for a in self.focused.ancestors]):
            target.focus()
        self.refresh_bindings()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        table = event.data_table.id
        if table == "witnesses" and event.row_key.value:
            self._show_witness(event.row_key.value)
        elif table == "domain" and event.row_key.value:
            self._show_constraint(event.row_key.value)
        elif table == "requirements" and event.row_key.value:
            self._show_checklist_row(event.row_key.value)
        elif table == "evidence" and event.row_key.value is not None:
            self._show_evidence_item(int(event.row_key.value))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        table = event.data_table.id
        if table == "evidence" and self.data is not None:
            e = self.data.evidence[int(event.row_key.value)]
            self.jump_to_evidence(e)
        elif table == "witness-outcomes" and self.data is not None:
            world = event.row_key.value
            if world in ("reference", "null", None):
                self.notify(f"the {world} world is no trial to open", severity="warning", timeout=3)
            elif world == self.trial_id:
                self.notify(f"{world} is the trial on screen", timeout=3)
            else:
                self.open_other_trial(world)

    def open_other_trial(self, trial_id: str) -> None:
        """Jump to another trial of the task (Escape comes back here)."""
        screen = TrialScreen(self.run_id, trial_id)
        self.app.push_screen(screen)
        screen.call_after_refresh(screen.action_tab, "tab-witnesses")

    def jump_to_evidence(self, e: Evidence) -> None:
        if not e.file:
            what = "a slow finding" if e.kind == EvidenceKind.SLOW else "this evidence"
            self.notify(f"{what} has no line in the diff", severity="warning")
            return
        self.action_tab("tab-diff")
        diff = self.query_one("#diff", DiffView)
        if diff.jump_to(e.file, e.line):
            diff.focus()
        else:
            self.notify(f"{e.file or 'this evidence'} is not in the diff", severity="warning")

    # ------------------------------------------------------------------ actions

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_tab(self, tab: str) -> None:
        tabs = self.query_one(TabbedContent)
        # Focus first into the new tab: a widget focused in the old one would, once hidden, hand
        # the focus to its neighbour and pull the tabs back (a tab follows its focused widget).
        target = self.query_one(TAB_FOCUS[tab])
        tabs.active = tab
        target.focus()

    def action_mark_reviewed(self) -> None:
        run_id, trial_id = self.run_id, self.trial_id

        def done(_: Any) -> None:
            self.notify(f"{trial_id} marked reviewed")
            self.app.post_message(StoreChanged(run_id))

        load(self, "mark reviewed", lambda store: store.set_reviewed(run_id, trial_id, True), done)

    def action_override(self) -> None:
        current = str(self.data.verdict.verdict) if self.data else "?"
        override_with_form(self, self.run_id, self.trial_id, current)

    def action_undo_ruling(self) -> None:
        """Undo the ruling highlighted on the Verdict tab (the one in force that decides the verdict,
        unless the analyst moved), else the override that decided the verdict; never an undone one."""
        if self.data is None:
            return
        from testjack_tui.app.screens.rulings import undo_with_form

        table = self.query_one("#trial-rulings", DataTable)
        ruling_id = None
        if self.query_one(TabbedContent).active == "tab-verdict" and table.row_count:
            key, _ = table.coordinate_to_cell_key((table.cursor_row, 0))
            ruling_id = int(key.value)
        elif self.data.verdict.ruling_id:
            ruling_id = self.data.verdict.ruling_id
        if ruling_id is None:
            self.notify("no override decided this verdict; on the Verdict tab (5), u undoes the highlighted ruling",
                        severity="warning")
            return
        undo_with_form(self, self.run_id, ruling_id, self.data.rulings)

    def action_rule(self, value: str) -> None:
        if not self.witness_id:
            self.notify("no witness highlighted", severity="warning")
            return
        from testjack_tui.app.screens.rulings import rule_with_form

        rule_with_form(self, self.run_id, self.witness_id, value)

    def action_rule_constraint(self) -> None:
        data = self.data
        if data is None or not data.task.domain:
            self.notify("this task has no input domain", severity="warning")
            return
        c = data.constraint(self.constraint_id)
        if c is None:
            self.notify("no constraint highlighted", severity="warning")
            return
        # Show the domain, so the constraint being ruled is in sight behind the reason form.
        self.query_one(TabbedContent).active = "tab-prompt"
        if c.id in data.wrong:
            self.notify(f"{c.id} is already ruled wrong (#{data.wrong[c.id].id}); undo that ruling in the rulings "
                        "(ctrl+r, then u)", severity="warning")
            return
        from testjack_tui.app.screens.rulings import rule_constraint_with_form

        rule_constraint_with_form(self, self.run_id, c.id, c.text)

    def action_manual_witness(self) -> None:
        from testjack_tui.app.screens.manual import ManualWitnessScreen

        self.app.push_screen(ManualWitnessScreen(self.run_id, self.trial_id))
