"""The console's help: what each screen is for and its keys, the screen you came from first.

F1 or ? opens it and closes it again (Escape and q close it too). The key tables are read from
the screens' own bindings, so they cannot drift from what the keys do.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Markdown, Static

from testjack_tui.review.checklist import LEGEND

PURPOSE = {
    "RunsScreen": (
        "Runs",
        "Every run in the store with its trials, how many passed the benchmark, how many of those the "
        "audit refuted (reward hacks included), the resolution before and after, the LLM cost and the "
        "progress of a running audit. An audit that did not finish says so here: `a` resumes it with "
        "its options and redoes no finished step."),
    "TrialsScreen": (
        "Trials of a run",
        "Triage. Filter by verdict (*refuted or reward hack* gives every refutation, as the header counts "
        "them), task, model or evidence (`v` goes to the filters), search names with `/` (as you type), "
        "and step with `f` to the next refutation or `n` to the next unreviewed trial (after the last: "
        "from the top); `m` marks it reviewed; `Home`/`End` go to the first/last trial. The header's second line counts what "
        "the filters show. A malformed task's trials are marked: its reference fails its own tests, so "
        "none of them is refuted. `c` clears the filters; `a` audits (or resumes), `C` cancels."),
    "TrialScreen": (
        "One trial",
        "Five tabs, `1` to `5`, whatever has focus:\n\n"
        "1. **Prompt**: P, and its checklist: every requirement P states (its sentence), P's examples, "
        "and the requirements only witnesses name (*not in P*); for each, whether T0 exercises it, the "
        "witnesses that test it and how this trial does on them. Below it, the task's input domain.\n"
        "2. **Diff**: the reference's and the trial's version of each changed file, side by side on a "
        "wide terminal and stacked (reference line, then trial line) on a narrow one; `z` whole files, "
        "`s` side by side / stacked.\n"
        "3. **Evidence**: ghost branches, detector hits, surviving mutants, slow findings; Enter shows "
        "the line in the diff.\n"
        "4. **Witnesses**: a matrix, one row per witness: class, ρ, its outcome on the reference, the "
        "null world and this trial, and how many other passing trials fail it. The highlighted one's "
        "detail lists every passing trial of the task with its outcome and runs; Enter on one opens "
        "that trial (Escape comes back). `x` reruns it on the reference and this trial, `X` on every "
        "passing trial: the new outcomes are stored and the verdicts recomputed; the rows it ran show "
        "them, marked ↻. `A` / `N` rule the highlighted witness ambiguous / necessary.\n"
        "5. **Verdict**: the verdict, its source (`auto` with its rule, or `analyst` with the ruling), "
        "and every ruling that touches the trial, an undone one struck through; the cursor starts on "
        "the ruling in force that decides the verdict, and `u` undoes the highlighted one, with a "
        "reason (never one already undone).\n\n"
        "A tab's own keys (`x`, `X`, `A`, `N`; `C`; `z`, `s`; `u`) work and show in the footer on that tab."),
    "RulingsScreen": (
        "Rulings",
        "The analyst's queue. First the witnesses that *need a ruling*: the evidence cannot classify "
        "them (one trial would decide whether most passing trials fail them, A.2, or their author "
        "doubts their expectation), and they refute nothing until you rule; most trials at stake first. "
        "Then the other implicit witnesses and every ruled one. Columns, what decides first: the class "
        "(an ambiguous one, a prompt defect, reversed), ρ, the trials a ruling necessary would refute "
        "(`new`: how many of them nothing else refutes yet), how many passing trials fail it, the "
        "outcomes on the reference and the null world; then the witness, its task, its requirement cut "
        "short, its input and what it expects. The panel below shows the highlighted one in full and "
        "says why it needs a ruling. `N` rules it necessary (it refutes "
        "the trials it fails), `A` ambiguous (a prompt defect: it refutes nothing), for all its trials; "
        "`space` marks rows to rule together with one reason; `f` shows only those that need a ruling, "
        "`c` one class at a time, `v` only those whose ruling would refute a trial; `s` sorts (needs "
        "ruling stays on top). "
        "Each ruling asks for a reason, and the verdicts follow at once. The history lists every "
        "ruling, an undone one struck through (`undone by #n`); `u` undoes the highlighted one (with a "
        "reason; an undo is itself a ruling; never one already undone)."),
    "ManualWitnessScreen": (
        "Manual witness",
        "Write a test for one requirement. `F5` validates it on the reference (3 of 3 runs), `F6` runs "
        "it on this trial, `F7` shares it with every passing trial of the task; the verdicts are "
        "recomputed after each run. The F keys work while the editor has focus; `ctrl+a` selects the "
        "whole test; Escape asks before it throws away a draft that was never validated."),
}

EVERYWHERE = """\
| key | what it does |
| --- | --- |
| `F1`, `?` | this help (again: close it) |
| `ctrl+p` | the command palette: every command of the console by name |
| `ctrl+r` | the rulings of the run |
| `ctrl+e` | export the run's report (Markdown; the palette offers HTML and JSON) |
| `ctrl+t` | dark / light theme |
| `ctrl+q` | quit (asks first while an audit runs: finished steps stay, `a` resumes it) |

The analyst's name on rulings is set once: `--by NAME`, else `$TESTJACK_ANALYST`, else *Settings*
in the palette (which also says whether an interrupted audit resumes by itself), else the login name.
"""

MARKS = """\
**Outcomes**: `pass`, `fail`, `error`; `—` not run there; `↻` a rerun of this session (stored).
**Domain**: `in` the input lies in the task's domain; `outside` or `unplaced`: the witness refutes
nothing, however it fails. **Verdict source**: `auto` (a rule) or `analyst, ruling #N` (an override,
or a witness ruling that changed the verdict).
"""


def keys_table(app, screen_cls: type) -> str:
    """A Markdown table of a screen class's own bindings (and the diff's, for the trial screen)."""
    rows = []
    classes = [screen_cls]
    if screen_cls.__name__ == "TrialScreen":
        from testjack_tui.app.widgets.diff_view import DiffView

        classes.append(DiffView)
    for cls in classes:
        for b in cls.__dict__.get("BINDINGS", []):
            if not isinstance(b, Binding) or b.action in ("app.help", "app.command_palette"):
                continue
            key = app.get_key_display(b) if app is not None else b.key
            what = b.tooltip or b.description
            if cls.__name__ == "DiffView":
                what += " (Diff tab)"
            rows.append(f"| `{key}` | {what} |")
    if not rows:
        return ""
    return "| key | what it does |\n| --- | --- |\n" + "\n".join(rows) + "\n"


def help_markdown(app, under: Screen | None) -> str:
    from testjack_tui.app.screens.manual import ManualWitnessScreen
    from testjack_tui.app.screens.rulings import RulingsScreen
    from testjack_tui.app.screens.runs import RunsScreen
    from testjack_tui.app.screens.trial import TrialScreen
    from testjack_tui.app.screens.trials import TrialsScreen

    order = [RunsScreen, TrialsScreen, TrialScreen, RulingsScreen, ManualWitnessScreen]
    here = type(under) if under is not None and type(under) in order else None
    if here is not None:
        order.remove(here)
        order.insert(0, here)
    parts = ["# TestJack console help\n",
             "TestJack audits the trials a benchmark says passed: it writes *witness* tests from the task's "
             "prompt, keeps those the reference passes, and refutes a trial that fails one. F1 or ? closes "
             "this help.\n"]
    for cls in order:
        title, purpose = PURPOSE[cls.__name__]
        mark = " (this screen)" if cls is here else ""
        parts.append(f"## {title}{mark}\n\n{purpose}\n\n{keys_table(app, cls)}")
    parts.append(f"## Everywhere\n\n{EVERYWHERE}")
    parts.append(f"## Reading the marks\n\n{MARKS}\n{LEGEND}\n")
    return "\n".join(parts)


class HelpScreen(ModalScreen[None]):
    """Help written for this console; the screen underneath is described first."""

    BINDINGS = [
        Binding("escape", "close", "Close help", tooltip="Back to the screen you were on"),
        Binding("q", "close", "Close help", show=False),
        Binding("question_mark", "close", "Close help", show=False, key_display="?"),
    ]

    def __init__(self, under: Screen | None = None) -> None:
        super().__init__(classes="help-screen")
        self.under = under
        self.text = ""

    def compose(self) -> ComposeResult:
        self.text = help_markdown(self.app, self.under)
        with VerticalScroll(id="help-body"):
            yield Markdown(self.text, id="help-text")
        yield Static("F1, ? or Escape closes the help · ↑↓ PgUp PgDn scroll", id="help-hint", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()

    def action_close(self) -> None:
        self.dismiss()
