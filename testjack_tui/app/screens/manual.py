"""Write a witness by hand: an editor, then validate on the reference, run on the trial, share.

F5, F6 and F7 are priority bindings, so they work while the editor has focus (the editor's own
F6 and F7 select a line and everything); ``ctrl+a`` in the editor selects everything. Escape asks
before it throws away a draft that was never validated.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, Select, Static, TextArea

from testjack_tui.review.manual import ManualResult, run_manual_on, validate_manual
from testjack_tui.app.messages import StoreChanged
from testjack_tui.app.widgets.verdict import HELP_BINDINGS
from testjack_tui.app.workers import load

TEMPLATE = '''"""A manual witness: one requirement of the prompt, checked on the reference first."""


def test_requirement():
    assert True
'''


def syntax_available() -> bool:
    """Whether TextArea can highlight Python (textual[syntax] brings tree-sitter)."""
    try:
        from textual._tree_sitter import TREE_SITTER
    except ImportError:
        return False
    return bool(TREE_SITTER)


class CodeEditor(TextArea):
    """The witness editor: a TextArea whose ``ctrl+a`` selects everything, as editors do."""

    BINDINGS = [Binding("ctrl+a", "select_all", "Select all", show=False, tooltip="Select the whole test")]


class ManualWitnessScreen(Screen):
    BINDINGS = [
        *HELP_BINDINGS,
        Binding("escape", "back", "Back", priority=True,
                tooltip="Back to the trial (asks first when the draft was never validated)"),
        Binding("f5", "validate", "Validate", priority=True, tooltip="Run the test 3 times on the reference world"),
        Binding("f6", "run_trial", "Run on trial", priority=True, tooltip="Run the validated test twice on this trial"),
        Binding("f7", "share", "Share with task", priority=True,
                tooltip="Run the validated test on every passing trial of the task"),
    ]

    def __init__(self, run_id: str, trial_id: str) -> None:
        super().__init__(classes="manual-screen")
        self.run_id = run_id
        self.trial_id = trial_id
        self.busy = False
        self.validated: tuple[str, str, str] | None = None  # the fields as last validated

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="manual-fields"):
            yield Input(placeholder="the requirement this test checks, in the prompt's words", id="requirement")
            yield Select([("explicit", "explicit"), ("implicit", "implicit")], value="explicit",
                         allow_blank=False, id="kind")
        if syntax_available():
            yield CodeEditor.code_editor(TEMPLATE, language="python", id="editor")
        else:
            yield CodeEditor(TEMPLATE, id="editor", show_line_numbers=True, tab_behavior="indent")
        with Horizontal(id="manual-buttons"):
            yield Button("Validate on reference (F5)", id="validate", variant="primary")
            yield Button("Run on this trial (F6)", id="run_trial")
            yield Button("Share with the task (F7)", id="share")
        with VerticalScroll(id="manual-output"):
            yield Static("", id="manual-status")
            yield Static("", id="manual-log", markup=False)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.title = f"Manual witness for {self.trial_id}"
        if not syntax_available():
            self.notify("Python highlighting needs textual[syntax] (tree-sitter); plain editor", timeout=6)
        self.query_one("#requirement", Input).focus()

    def _fields(self) -> tuple[str, str, str] | None:
        requirement = self.query_one("#requirement", Input).value.strip()
        code = self.query_one("#editor", TextArea).text
        if not requirement:
            self.notify("say which requirement the test checks", severity="error")
            return None
        if not code.strip():
            self.notify("the test is empty", severity="error")
            return None
        return requirement, str(self.query_one("#kind", Select).value), code

    def _start(self, what: str, fn, after=None) -> None:
        if self.busy:
            self.notify("still running the previous step", severity="warning")
            return
        self.busy = True
        self.query_one("#manual-status", Static).update(f"{what}…")
        run_id = self.run_id

        def done(result: ManualResult) -> None:
            self.busy = False
            lines = [result.message] + [f"  {world}: {outcome}" for world, outcome in result.outcomes.items()]
            self.query_one("#manual-status", Static).update("\n".join(lines))
            self.query_one("#manual-log", Static).update(result.log)
            self.notify(result.message, timeout=8)
            if after is not None:
                after(result)
            self.app.post_message(StoreChanged(run_id))

        worker = load(self, what, fn, done)
        worker.name = what

    def on_worker_state_changed(self, event) -> None:
        if event.worker.is_finished:
            self.busy = False

    def action_validate(self) -> None:
        fields = self._fields()
        if fields:
            run_id, trial_id = self.run_id, self.trial_id

            def kept(result: ManualResult) -> None:
                if str(result.witness.status) == "validated":
                    self.validated = fields  # in the store now: leaving loses nothing

            self._start("validating on the reference",
                        lambda store: validate_manual(store, run_id, trial_id, *fields), kept)

    def draft_changed(self) -> bool:
        """Whether leaving would lose work: text typed that was never validated as it stands."""
        requirement = self.query_one("#requirement", Input).value.strip()
        code = self.query_one("#editor", TextArea).text
        if self.validated is not None:
            return (requirement, code) != (self.validated[0], self.validated[2])
        return bool(requirement) or code != TEMPLATE

    def _run(self, share: bool) -> None:
        fields = self._fields()
        if fields:
            run_id, trial_id, code = self.run_id, self.trial_id, fields[2]
            self._start("sharing with every passing trial" if share else "running on this trial",
                        lambda store: run_manual_on(store, run_id, trial_id, code, share))

    def action_run_trial(self) -> None:
        self._run(False)

    def action_share(self) -> None:
        self._run(True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        {"validate": self.action_validate, "run_trial": self.action_run_trial, "share": self.action_share}[
            event.button.id or "validate"]()

    def action_back(self) -> None:
        kind = self.query_one("#kind", Select)
        if kind.expanded:  # Escape closes the open list first
            kind.expanded = False
            kind.focus()
            return
        if not self.draft_changed():
            self.app.pop_screen()
            return
        from testjack_tui.app.screens.forms import ConfirmDialog

        def answered(discard: bool | None) -> None:
            if discard:
                self.app.pop_screen()

        self.app.push_screen(ConfirmDialog(
            "Discard this draft?",
            "The test was never validated as it stands, so it is not in the store: leaving throws it away.",
            yes="Discard", no="Keep editing"), answered)
