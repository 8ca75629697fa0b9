"""Small modal forms: audit options, a ruling's reason, a verdict override, a yes/no question, settings.

Every form focuses its first field when it opens, Enter in a text field (or on the primary button)
submits it, ``ctrl+s`` submits it from anywhere, and Escape closes it without doing anything. A
form that cannot be submitted as it is (no reason given) says so and stays open: it never closes
silently.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.validation import Integer, Length
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from testjack_tui.audit import AuditOptions
from testjack_tui.audit.engine import DEFAULT_ROUNDS
from testjack_tui.authors.endpoint import endpoint_options
from testjack_tui.model import Mode, Verdict

MODES = [(m.value, m.value) for m in Mode]
AUTHORS = [("offline (no network)", "offline"), ("llm (OpenAI-compatible endpoint)", "llm"), ("none (T0 and evidence only)", "none")]
OVERRIDES = [(v.value.replace("_", " "), v.value) for v in (Verdict.SOUND, Verdict.REFUTED, Verdict.REWARD_HACK)]


class Form(ModalScreen[Any]):
    """A modal form: first field focused, Enter in a text field submits, ctrl+s submits, Esc cancels."""

    AUTO_FOCUS = "Input, Select, Checkbox, Button"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without doing anything"),
        Binding("ctrl+s", "submit", "Submit", tooltip="Submit the form", priority=True),
    ]

    def __init__(self) -> None:
        super().__init__(classes="modal-form")

    def result(self) -> Any:
        """The value to dismiss with, or None (after saying why) when the form is not complete."""
        raise NotImplementedError

    def action_submit(self) -> None:
        value = self.result()
        if value is not None:
            self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "cancel":
            self.dismiss(None)
        else:
            self.action_submit()


class AuditForm(Form):
    """Mode, author, rounds and seed of a new audit (or of the resumed one, filled in); with the LLM
    author, its model and base URL (empty: the environment's, as on the command line)."""

    BINDINGS = [Binding("ctrl+s", "submit", "Start audit", tooltip="Start the audit with these options", priority=True)]

    def __init__(self, run_id: str, options: AuditOptions | None = None, note: str = "") -> None:
        super().__init__()
        self.run_id = run_id
        self.initial = options or AuditOptions()
        self.note = note

    def compose(self) -> ComposeResult:
        o = self.initial
        with Vertical(classes="form"):
            yield Label(f"Audit {self.run_id}", classes="form-title")
            if self.note:
                yield Static(self.note, classes="form-note")
            yield Label("Mode")
            yield Select(MODES, value=str(o.mode), allow_blank=False, id="mode")
            yield Label("Author")
            authors = [a for _, a in AUTHORS]
            author = o.author if o.author in authors else "offline"
            yield Select(AUTHORS, value=author, allow_blank=False, id="author")
            with Vertical(id="llm-settings", classes="llm-settings" + ("" if author == "llm" else " -off")):
                yield Label("Model (empty: TESTJACK_MODEL or OPENAI_MODEL)")
                yield Input(str(o.author_options.get("model", "")), placeholder="as the server names it", id="model")
                yield Label("Base URL (empty: OPENAI_BASE_URL, else OpenAI)")
                yield Input(str(o.author_options.get("base_url", "")), placeholder="http://localhost:8000/v1",
                            id="base-url")
            yield Label("Rounds per task (lightweight)")
            yield Input(str(o.rounds), id="rounds", type="integer", validators=[Integer(minimum=1, maximum=100)])
            yield Label("Seed")
            yield Input(str(o.seed), id="seed", type="integer", validators=[Integer(minimum=0)])
            with Horizontal(classes="buttons"):
                yield Button("Start (ctrl+s)", variant="primary", id="start")
                yield Button("Cancel", id="cancel")

    def result(self) -> AuditOptions | None:
        rounds = self.query_one("#rounds", Input)
        seed = self.query_one("#seed", Input)
        if not rounds.is_valid or not seed.is_valid:
            self.notify("rounds must be a whole number from 1 to 100, seed a whole number", severity="error")
            return None
        author = str(self.query_one("#author", Select).value)
        return AuditOptions(
            mode=str(self.query_one("#mode", Select).value),
            author=author,
            rounds=int(rounds.value),
            seed=int(seed.value),
            author_options=self._author_options(author),
        )

    def _author_options(self, author: str) -> dict:
        """The resumed audit's other options of the same author (a budget), with the model and base URL."""
        kept = self.initial.author_options if author == self.initial.author else {}
        options = {k: v for k, v in kept.items() if k not in ("model", "base_url")}
        if author == "llm":
            options.update(endpoint_options(self.query_one("#model", Input).value,
                                            self.query_one("#base-url", Input).value))
        return options

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "author":  # the model and base URL are the LLM author's alone
            self.query_one("#llm-settings").set_class(event.value != "llm", "-off")

    def options(self) -> AuditOptions | None:
        return self.result()


class ReasonForm(Form):
    """Asks why: every ruling (and every undo) is stored with its reason. Returns the reason, or None."""

    TYPEAHEAD = "#reason"  # keys typed while it opens land here (``app.typeahead``)

    BINDINGS = [Binding("ctrl+s", "submit", "Rule", tooltip="Store the ruling with this reason", priority=True)]

    def __init__(self, title: str, placeholder: str = "why (stored with the ruling)", action: str = "Rule") -> None:
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.action_label = action

    def compose(self) -> ComposeResult:
        with Vertical(classes="form"):
            # the title names a witness or constraint as written ("list[int]"): never read as markup
            yield Label(self.title_text, classes="form-title", markup=False)
            yield Input(placeholder=self.placeholder, id="reason", validators=[Length(minimum=1)])
            with Horizontal(classes="buttons"):
                yield Button(self.action_label, variant="primary", id="ok")
                yield Button("Cancel", id="cancel")

    def result(self) -> str | None:
        reason = self.query_one("#reason", Input).value.strip()
        if not reason:
            self.notify("a ruling needs a reason", severity="error")
            self.query_one("#reason", Input).focus()
            return None
        return reason


class OverrideForm(Form):
    """Override a trial's verdict: the new verdict (focused first), then the reason."""

    TYPEAHEAD = "#reason"  # keys typed while it opens are the reason (``app.typeahead``)

    BINDINGS = [Binding("ctrl+s", "submit", "Override", tooltip="Store the override with this reason", priority=True)]

    def __init__(self, trial_id: str, current: str) -> None:
        super().__init__()
        self.trial_id = trial_id
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="form"):
            yield Label(f"Override the verdict of {self.trial_id} (now {self.current})", classes="form-title",
                        markup=False)
            default = next((v for _, v in OVERRIDES if v != self.current), Verdict.SOUND.value)
            yield Label("New verdict")
            yield Select(OVERRIDES, value=default, allow_blank=False, id="verdict")
            yield Label("Reason")
            yield Input(placeholder="why (stored with the ruling)", id="reason")
            with Horizontal(classes="buttons"):
                yield Button("Override", variant="primary", id="ok")
                yield Button("Cancel", id="cancel")

    def result(self) -> tuple[str, str] | None:
        reason = self.query_one("#reason", Input).value.strip()
        if not reason:
            self.notify("an override needs a reason", severity="error")
            self.query_one("#reason", Input).focus()
            return None
        return str(self.query_one("#verdict", Select).value), reason


class ConfirmDialog(ModalScreen[bool]):
    """A yes/no question. ``y`` or Enter on the first button answers yes; ``n`` or Escape no."""

    AUTO_FOCUS = "#yes"
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", priority=True),
        Binding("n", "answer(False)", "No", priority=True),
        Binding("escape", "answer(False)", "No"),
    ]

    def __init__(self, title: str, body: str, yes: str = "Yes", no: str = "No") -> None:
        super().__init__(classes="modal-form confirm")
        self.title_text = title
        self.body = body
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(classes="form"):
            yield Label(self.title_text, classes="form-title", markup=False)
            yield Static(self.body, classes="form-note", markup=False)
            with Horizontal(classes="buttons"):
                yield Button(f"{self.yes} (y)", variant="warning", id="yes")
                yield Button(f"{self.no} (n)", id="no")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")


class SettingsForm(Form):
    """The console's remembered choices: the analyst's name and whether interrupted audits resume."""

    BINDINGS = [Binding("ctrl+s", "submit", "Save settings", tooltip="Remember these settings", priority=True)]

    def __init__(self, analyst: str, resume: bool, overridden: str = "") -> None:
        super().__init__()
        self.analyst = analyst
        self.resume = resume
        self.overridden = overridden

    def compose(self) -> ComposeResult:
        with Vertical(classes="form"):
            yield Label("Settings", classes="form-title")
            yield Label("Analyst name (stored on every ruling)")
            yield Input(self.analyst, placeholder="your name", id="analyst")
            if self.overridden:
                yield Static(self.overridden, classes="form-note", markup=False)
            yield Checkbox("Resume an interrupted audit on opening", self.resume, id="resume")  # fits at 100 columns
            with Horizontal(classes="buttons"):
                yield Button("Save", variant="primary", id="ok")
                yield Button("Cancel", id="cancel")

    def result(self) -> tuple[str, bool] | None:
        return self.query_one("#analyst", Input).value.strip(), self.query_one("#resume", Checkbox).value
