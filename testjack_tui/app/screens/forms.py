"""Small modal forms: audit options, a ruling's reason, a verdict override."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.validation import Integer, Length
from textual.widgets import Button, Input, Label, Select

from testjack_tui.audit import AuditOptions
from testjack_tui.audit.engine import DEFAULT_ROUNDS
from testjack_tui.model import Mode, Verdict

MODES = [(m.value, m.value) for m in Mode]
AUTHORS = [("offline (no network)", "offline"), ("llm (OpenAI-compatible endpoint)", "llm"), ("none (T0 and evidence only)", "none")]
OVERRIDES = [(v.value.replace("_", " "), v.value) for v in (Verdict.SOUND, Verdict.REFUTED, Verdict.REWARD_HACK)]


class AuditForm(ModalScreen[AuditOptions | None]):
    """Mode, author and rounds of a new audit; Enter starts it, Escape gives up."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Close the form without starting an audit"),
        Binding("ctrl+s", "submit", "Start audit", tooltip="Start the audit with these options"),
    ]

    def __init__(self, run_id: str) -> None:
        super().__init__(classes="modal-form")
        self.run_id = run_id

    def compose(self) -> ComposeResult:
        with Vertical(classes="form"):
            yield Label(f"Audit {self.run_id}", classes="form-title")
            yield Label("Mode")
            yield Select(MODES, value=Mode.LIGHTWEIGHT.value, allow_blank=False, id="mode")
            yield Label("Author")
            yield Select(AUTHORS, value="offline", allow_blank=False, id="author")
            yield Label("Rounds per task (lightweight)")
            yield Input(str(DEFAULT_ROUNDS), id="rounds", type="integer", validators=[Integer(minimum=1, maximum=100)])
            yield Label("Seed")
            yield Input("0", id="seed", type="integer", validators=[Integer(minimum=0)])
            with Horizontal(classes="buttons"):
                yield Button("Start", variant="primary", id="start")
                yield Button("Cancel", id="cancel")

    def options(self) -> AuditOptions | None:
        rounds = self.query_one("#rounds", Input)
        seed = self.query_one("#seed", Input)
        if not rounds.is_valid or not seed.is_valid:
            self.notify("rounds must be a whole number from 1 to 100, seed a whole number", severity="error")
            return None
        return AuditOptions(
            mode=str(self.query_one("#mode", Select).value),
            author=str(self.query_one("#author", Select).value),
            rounds=int(rounds.value),
            seed=int(seed.value),
        )

    def action_submit(self) -> None:
        options = self.options()
        if options is not None:
            self.dismiss(options)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self) -> None:
        self.action_submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_submit()
        else:
            self.dismiss(None)


class ReasonForm(ModalScreen[str | None]):
    """Asks why: every ruling is stored with its reason. Returns the reason, or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", tooltip="Close without ruling")]

    def __init__(self, title: str, placeholder: str = "why (stored with the ruling)") -> None:
        super().__init__(classes="modal-form")
        self.title_text = title
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="form"):
            # the title names a witness or constraint as written ("list[int]"): never read as markup
            yield Label(self.title_text, classes="form-title", markup=False)
            yield Input(placeholder=self.placeholder, id="reason", validators=[Length(minimum=1)])
            with Horizontal(classes="buttons"):
                yield Button("Rule", variant="primary", id="ok")
                yield Button("Cancel", id="cancel")

    def _submit(self) -> None:
        reason = self.query_one("#reason", Input).value.strip()
        if not reason:
            self.notify("a ruling needs a reason", severity="error")
            return
        self.dismiss(reason)

    def on_input_submitted(self) -> None:
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self._submit()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class OverrideForm(ModalScreen[tuple[str, str] | None]):
    """Override a trial's verdict: the new verdict and the reason."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", tooltip="Close without overriding")]

    def __init__(self, trial_id: str, current: str) -> None:
        super().__init__(classes="modal-form")
        self.trial_id = trial_id
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="form"):
            yield Label(f"Override the verdict of {self.trial_id} (now {self.current})", classes="form-title")
            default = next((v for _, v in OVERRIDES if v != self.current), Verdict.SOUND.value)
            yield Select(OVERRIDES, value=default, allow_blank=False, id="verdict")
            yield Input(placeholder="why (stored with the ruling)", id="reason")
            with Horizontal(classes="buttons"):
                yield Button("Override", variant="primary", id="ok")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#reason", Input).focus()

    def _submit(self) -> None:
        reason = self.query_one("#reason", Input).value.strip()
        if not reason:
            self.notify("an override needs a reason", severity="error")
            return
        self.dismiss((str(self.query_one("#verdict", Select).value), reason))

    def on_input_submitted(self) -> None:
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self._submit()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
