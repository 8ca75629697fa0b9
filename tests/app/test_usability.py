"""Issue 17, the console's usability, as an analyst triaging refutations meets it.

Each test drives the real app with Pilot on conftest's demo store (task ``chunk``: c1 refuted
by the implicit witness, c2 refuted, c3 reward hack, c4 not passing; task ``slug``: s1 sound,
s2 unaudited, s3 not passing) and asserts what the analyst sees: keys that work whatever has
focus, dialogs that start in their first field, the audit's life cycle, the witness matrix, the
checklist, the help, and the rest of the issue's list.
"""

from __future__ import annotations

import json

import pytest
from textual.widgets import DataTable, Input, Select, Static, TextArea
from textual.widgets._footer import FooterKey

from testjack_tui.store import Store
from testjack_tui.app.app import TestJackApp
from testjack_tui.review.lifecycle import PROGRESS_STEP, record_progress
from testjack_tui.app.screens.forms import AuditForm, ConfirmDialog, OverrideForm, ReasonForm, SettingsForm
from testjack_tui.app.screens.help import HelpScreen
from testjack_tui.app.screens.manual import ManualWitnessScreen
from testjack_tui.app.screens.trial import TrialScreen
from testjack_tui.app.screens.trials import TrialsScreen
from testjack_tui.app.widgets.diff_view import DiffView
from testjack_tui.app.workers import AuditJob
from testjack_tui.audit import AuditOptions, Progress
from testjack_tui.audit.verdicts import recompute_run

from .helpers import cell, open_trial, settle, text_of

WIDE, NARROW = (160, 48), (100, 30)


def column(table: DataTable, name: str) -> list[str]:
    return [cell(table, i, name) for i in range(table.row_count)]


def messages(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


def palette(app) -> dict[str, object]:
    return {c.title: c for c in app.get_system_commands(app.screen)}


# ---------------------------------------------------------------------- keys whatever has focus


async def test_tab_keys_and_the_palette_work_from_the_witness_runs_table(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        trial = await open_trial(pilot, "c3")
        tabs = trial.query_one("#trial-tabs")
        await pilot.press("4")
        assert tabs.active == "tab-witnesses"
        assert app.focused is trial.query_one("#witnesses")  # the tab's key puts the focus in it
        trial.query_one("#witness-outcomes").focus()
        await pilot.pause()
        await pilot.press("5")
        await pilot.pause()
        assert tabs.active == "tab-verdict"
        for key, tab in (("1", "tab-prompt"), ("2", "tab-diff"), ("3", "tab-evidence"), ("4", "tab-witnesses")):
            await pilot.press(key)
            await pilot.pause()
            assert tabs.active == tab
        # the palette's "Verdict" too, with the focus in the runs table
        trial.query_one("#witness-outcomes").focus()
        await pilot.pause()
        await pilot.press("ctrl+p", *"Verdict")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is trial
        assert tabs.active == "tab-verdict"
        trial.query_one("#witness-code").focus()  # the read-only code view does not eat the keys
        await pilot.pause()
        await pilot.press("1")
        await pilot.pause()
        assert tabs.active == "tab-prompt"


async def test_f_keys_work_in_the_editor_and_ctrl_a_selects_all(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ManualWitnessScreen)
        screen.query_one("#requirement", Input).value = "chunk accepts a range"
        editor = screen.query_one("#editor", TextArea)
        editor.focus()
        editor.move_cursor((3, 4))
        await pilot.pause()
        await pilot.press("ctrl+a")
        assert editor.selected_text == editor.text  # select all, not "line start"
        editor.move_cursor((3, 4))
        await pilot.press("f7")  # the editor's own F7 would select everything
        await pilot.pause()
        assert editor.selected_text == ""
        assert "sharing with every passing trial" in text_of(screen.query_one("#manual-status"))
        await settle(pilot)
        # not validated yet: the step says so instead of doing nothing
        assert any("validate it first" in m for m in messages(app))
        await pilot.press("f6")
        await pilot.pause()
        assert "running on this trial" in text_of(screen.query_one("#manual-status"))
        await settle(pilot)


async def test_dialogs_start_in_their_first_field_and_never_close_silently(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        await open_trial(pilot, "c1")
        await pilot.press("o")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, OverrideForm)
        assert app.focused is form.query_one("#verdict", Select)
        await pilot.press("tab", "tab", "enter")  # lands on Override, not Cancel
        await pilot.pause()
        assert app.screen is form  # no reason: it says so and stays open
        assert any("needs a reason" in m for m in messages(app))
        assert app.focused is form.query_one("#reason", Input)
        await pilot.press(*"checked by hand", "enter")
        await settle(pilot)
        assert isinstance(app.screen, TrialScreen)
        assert Store(demo_store).get_verdict("demo", "c1").source == "analyst"
        await pilot.press("4", "A")  # a ruling's reason form: the reason is its first field
        await pilot.pause()
        assert isinstance(app.screen, ReasonForm)
        assert app.focused is app.screen.query_one("#reason", Input)
        await pilot.press("escape")
        await pilot.press("escape", "a")  # back to the trials; the audit form starts in its first field
        await pilot.pause()
        assert isinstance(app.screen, AuditForm)
        assert app.focused is app.screen.query_one("#mode", Select)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TrialsScreen)


# ---------------------------------------------------------------------- the audit's life cycle


def _fake_running_audit(app, done: int = 4, total: int = 10) -> AuditJob:
    job = AuditJob("demo", AuditOptions())
    job.progress = Progress("witnesses", done, total, "auditing c2")
    app.audits.jobs["demo"] = job
    return job


async def test_quit_asks_first_while_an_audit_runs(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    exits: list[object] = []
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        app.exit = lambda *a, **k: exits.append(a)  # type: ignore[method-assign]
        job = _fake_running_audit(app)
        await pilot.press("ctrl+q")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = text_of(dialog.query_one(".form-note", Static))
        assert "demo at 40%" in body and "finished step stays in the store" in body
        await pilot.press("n")  # keep auditing
        await pilot.pause()
        assert not exits and isinstance(app.screen, TrialsScreen) and not job.cancel.is_set()
        await pilot.press("ctrl+q", "y")
        await pilot.pause()
        assert exits and job.cancel.is_set()  # the audit is told to stop, then the console quits
        job.status = "cancelled"


async def test_quit_without_an_audit_quits_at_once(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    exits: list[object] = []
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        app.exit = lambda *a, **k: exits.append(a)  # type: ignore[method-assign]
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert exits and not isinstance(app.screen, ConfirmDialog)


def _interrupt(store_path, percent_done: tuple[int, int] = (4, 10)) -> AuditOptions:
    """Leave the store as a console killed mid-audit leaves it: an audit row still 'running'."""
    store = Store(store_path)
    options = AuditOptions(mode="per-trial", author="offline", rounds=2, seed=3)
    store.start_audit("demo", options.mode, options.author, options.seed, options.rounds, "")
    record_progress(store, "demo", Progress("witnesses", *percent_done), options)
    store.close()
    return options


async def test_reopening_says_the_audit_was_interrupted_and_a_resumes_it(demo_store):
    _interrupt(demo_store)
    app = TestJackApp(demo_store, run_id="demo")
    started: list[AuditOptions] = []
    app.audits.start = lambda run_id, options: started.append(options) or AuditJob(run_id, options)  # type: ignore
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert any("audit interrupted at 40% — press a to resume" in m for m in messages(app))
        trials = app.screen
        assert "audit interrupted at 40% — press a to resume" in text_of(trials.query_one("#audit-status"))
        assert trials.query_one("#audit-bar").display
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, AuditForm)
        assert form.query_one("#mode", Select).value == "per-trial"
        assert form.query_one("#rounds", Input).value == "2" and form.query_one("#seed", Input).value == "3"
        assert "interrupted at 40%" in text_of(form.query_one(".form-note", Static))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert [(o.mode, o.rounds, o.seed) for o in started] == [("per-trial", 2, 3)]
        assert "demo" not in app.interrupted
        await pilot.press("escape")  # the runs screen no longer offers it either
        await settle(pilot)
        assert "interrupted" not in cell(app.screen.query_one(DataTable), 0, "audit")


async def test_the_runs_screen_marks_an_interrupted_audit(demo_store):
    _interrupt(demo_store, (1, 4))
    app = TestJackApp(demo_store)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert cell(app.screen.query_one(DataTable), 0, "audit") == "interrupted at 25%: a resumes"


async def test_a_setting_resumes_an_interrupted_audit_by_itself(demo_store, config_dir):
    _interrupt(demo_store)
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "settings.json").write_text(json.dumps({"resume_audits": True}))
    app = TestJackApp(demo_store, run_id="demo")
    started: list[AuditOptions] = []
    app.audits.start = lambda run_id, options: started.append(options) or AuditJob(run_id, options)  # type: ignore
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert [(o.mode, o.rounds) for o in started] == [("per-trial", 2)]
        assert any("resuming the audit of demo, interrupted at 40%" in m for m in messages(app))


async def test_a_finished_audit_is_not_offered_again(demo_store):
    store = Store(demo_store)
    audit_id = store.start_audit("demo", "lightweight", "none", 0, 1, "")
    store.mark_step("demo", PROGRESS_STEP, {"done": 9, "total": 10, "updated": "2999"})
    store.finish_audit(audit_id, "done", 0, 0, 0.0, {})
    store.close()
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert app.interrupted == {}
        assert not any("interrupted" in m for m in messages(app))


# ---------------------------------------------------------------------- the witness matrix


async def test_the_witness_matrix_answers_which_trials_fail_a_witness(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=NARROW) as pilot:
        trial = await open_trial(pilot, "c2")
        await pilot.press("4")
        await pilot.pause()
        matrix = trial.query_one("#witnesses", DataTable)
        labels = [str(c.label) for c in matrix.columns.values()]
        assert labels == ["witness", "class", "ρ", "ref", "null", "this trial", "others", "domain", "requirement"]
        # at 100 columns every column before the requirement is on screen
        widths = [c.get_render_width(matrix) for c in matrix.columns.values()]
        assert sum(widths[:-1]) < matrix.size.width
        rows = {w: i for i, w in enumerate(column(matrix, "witness"))}
        explicit = rows["w-explicit"]
        assert [cell(matrix, explicit, c) for c in ("class", "ref", "null", "this trial", "others")] == [
            "explicit", "pass", "fail", "fail", "1/2 fail"]
        assert cell(matrix, rows["w-shorter"], "class") == "needs ruling"  # 2 of 3: one trial decides (A.2)
        assert cell(matrix, rows["w-shorter"], "ρ") == "0.67"
        # the detail: every passing trial of the task, with its outcome, runs and verdict
        outcomes = trial.query_one("#witness-outcomes", DataTable)
        assert column(outcomes, "world") == ["reference", "null", "c1", "c2 (this trial)", "c3"]
        assert column(outcomes, "outcome") == ["pass", "fail", "pass", "fail", "fail"]
        assert column(outcomes, "runs")[3] == "fail, fail"
        assert column(outcomes, "verdict")[2:] == ["refuted", "refuted", "reward hack"]
        head = text_of(trial.query_one("#witness-head", Static))
        assert "explicit requirement · ρ" in head and "explicit · explicit" not in head
        # Enter on a trial opens it, on its Witnesses tab; Escape comes back
        outcomes.focus()
        outcomes.move_cursor(row=4)
        await pilot.press("enter")
        await settle(pilot)
        other = app.screen
        assert isinstance(other, TrialScreen) and other.trial_id == "c3"
        assert other.query_one("#trial-tabs").active == "tab-witnesses"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is trial


async def test_the_witness_header_names_a_ruled_classification_once(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        trial = await open_trial(pilot, "c1")
        await pilot.press("4")
        assert trial.witness_id == "w-iterable"
        head = text_of(trial.query_one("#witness-head", Static))
        assert "implicit requirement ·" in head and "implicit · implicit" not in head
        await pilot.press("A")
        await pilot.pause()
        await pilot.press(*"not in the prompt", "enter")
        await settle(pilot)
        head = text_of(trial.query_one("#witness-head", Static))
        assert "implicit requirement, classified ambiguous (ruling #1: ambiguous)" in head


@pytest.mark.slow
async def test_rerun_updates_every_row_it_ran(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        trial = await open_trial(pilot, "c1")
        await pilot.press("4")
        matrix = trial.query_one("#witnesses", DataTable)
        matrix.move_cursor(row=column(matrix, "witness").index("w-explicit"))
        await pilot.pause()
        row = column(matrix, "witness").index("w-explicit")
        assert cell(matrix, row, "this trial") == "pass"  # what the store says
        await pilot.press("x")
        await settle(pilot)
        # c1 slices a range, so the real run fails where the stored result passed
        assert cell(matrix, row, "ref") == "↻ pass"
        assert cell(matrix, row, "this trial") == "↻ fail"
        outcomes = trial.query_one("#witness-outcomes", DataTable)
        worlds = column(outcomes, "world")
        assert column(outcomes, "outcome")[worlds.index("c1 (this trial)")] == "↻ fail"
        runs = column(outcomes, "runs")[worlds.index("c1 (this trial)")]
        assert runs.startswith("rerun ") and runs.endswith("; was pass")
        assert column(outcomes, "outcome")[worlds.index("c2")] == "fail"  # not rerun: the stored outcome
        await pilot.press("X")  # every passing trial: every row it ran changes
        await settle(pilot)
        assert column(outcomes, "outcome")[worlds.index("c2")].startswith("↻")
        assert column(outcomes, "outcome")[worlds.index("c3")].startswith("↻")
        assert cell(matrix, row, "others").endswith("fail")


@pytest.mark.slow
async def test_a_rerun_is_stored_and_fills_a_witness_never_run_on_the_trial(demo_store):
    from testjack_tui.model import AuthorKind, Origin, RequirementKind, Witness, WitnessStatus

    store = Store(demo_store)
    code = ("from listkit.chunk import chunk\n\n\ndef test_lists_back():\n"
            "    assert chunk(range(5), 2) == [[0, 1], [2, 3], [4]]\n")
    store.put_witness(Witness(  # validated by hand: no result on any world yet
        id="w-new", run_id="demo", task_id="chunk", requirement="pieces are lists",
        requirement_kind=RequirementKind.EXPLICIT, origin=Origin.MANUAL, author=AuthorKind.OFFLINE, code=code,
        path="tests/test_testjack_w_new.py", status=WitnessStatus.VALIDATED))
    store.close()
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        trial = await open_trial(pilot, "c2")
        await pilot.press("4")
        matrix = trial.query_one("#witnesses", DataTable)
        matrix.move_cursor(row=column(matrix, "witness").index("w-new"))
        await pilot.pause()
        row = column(matrix, "witness").index("w-new")
        assert [cell(matrix, row, c) for c in ("ref", "this trial", "others")] == ["—", "—", "—"]
        await pilot.press("X")  # the reference and every passing trial of the task
        await settle(pilot)
        row = column(matrix, "witness").index("w-new")
        # c1 returns ranges, c2 lists, c3 one piece
        assert [cell(matrix, row, c) for c in ("ref", "this trial", "others")] == [
            "↻ pass", "↻ pass", "2/2 fail"]
        outcomes = trial.query_one("#witness-outcomes", DataTable)
        worlds = column(outcomes, "world")
        assert column(outcomes, "outcome")[worlds.index("c1")] == "↻ fail"
        assert column(outcomes, "runs")[worlds.index("c1")].endswith("; not run before")
        assert any("stored; verdicts recomputed" in m for m in messages(app))
        await pilot.press("escape")
        await settle(pilot)
        again = await open_trial(pilot, "c1")  # a new screen reads the stored results
        await pilot.press("4")
        matrix = again.query_one("#witnesses", DataTable)
        row = column(matrix, "witness").index("w-new")
        assert [cell(matrix, row, c) for c in ("ref", "this trial")] == ["pass", "fail"]
        await pilot.press("5")  # and the verdicts were recomputed from them
        assert "refuting witnesses: w-iterable, w-new" in text_of(again.query_one("#verdict-detail", Static))


# ---------------------------------------------------------------------- help and discoverability


async def test_f1_and_question_mark_toggle_a_help_written_for_the_console(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        trial = await open_trial(pilot, "c2")
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        text = help_screen.text
        assert text.index("## One trial (this screen)") < text.index("## Runs")  # this screen first
        assert "| `x` | Run the highlighted witness again" in text
        assert "refuted or reward hack" in text and "Reading the marks" in text
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen is trial
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        await pilot.pause()
        assert app.screen is trial
        await pilot.press("escape")  # back to the trials: its help starts with the trial list
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert app.screen.text.index("## Trials of a run (this screen)") < app.screen.text.index("## Runs")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TrialsScreen)


async def test_the_palette_lists_only_the_consoles_commands(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        trial = await open_trial(pilot, "c2")
        trial.query_one("#witness-outcomes").focus()  # a DataTable's own bindings have focus
        await pilot.pause()
        commands = palette(app)
        for wanted in ("Help", "Settings", "Theme", "Quit", "Prompt", "Verdict", "Rerun", "Rerun all", "Ambiguous",
                       "Override", "Export report as HTML"):
            assert wanted in commands
        assert "Undo ruling" not in commands  # no override decided c2's verdict: u is the Verdict tab's
        await pilot.press("5")
        await pilot.pause()
        assert "Undo ruling" in palette(app) and "Rerun" not in palette(app)
        for foreign in ("Keys", "Maximize", "Screenshot", "Cursor up", "Top", "Bottom", "Page down", "Select"):
            assert foreign not in commands
        helps = " ".join(c.help for c in commands.values())
        assert "scroll_bottom" not in helps and "app.focus_next" not in helps and "cursor_down" not in helps


@pytest.mark.parametrize("width", [100, 160])
async def test_the_keys_that_matter_stay_in_the_footer(demo_store, width):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(width, 30)) as pilot:
        trial = await open_trial(pilot, "c2")
        await pilot.press("4")
        await pilot.pause()
        keys = {k.key: k for k in trial.query(FooterKey)}
        for key in ("f1", "ctrl+p", "escape", "1", "2", "3", "4", "5", "m", "o", "x"):
            assert key in keys, key
            region = keys[key].region
            assert region.width and region.right <= width, (key, region)


async def test_the_diff_stacks_when_narrow(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=NARROW) as pilot:
        trial = await open_trial(pilot, "c2")
        await pilot.press("2")
        await settle(pilot)
        diff = trial.query_one("#diff", DiffView)
        assert diff.stacked and len(diff.columns) == 3
        code = [cell(diff, i, "code") for i in range(diff.row_count)]
        assert any(line.startswith("+ ") for line in code)  # the trial's lines under the reference's
        assert diff.jump_to("listkit/chunk.py", 3) and diff.current_location() == ("listkit/chunk.py", 3)
        await pilot.press("s")  # side by side by hand
        await pilot.pause()
        assert not diff.stacked and len(diff.columns) == 4
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        trial = await open_trial(pilot, "c2")
        await pilot.press("2")
        await settle(pilot)
        diff = trial.query_one("#diff", DiffView)
        assert not diff.stacked and len(diff.columns) == 4
        # the two code columns share the width: the trial's side is on screen
        widths = [c.get_render_width(diff) for c in diff.columns.values()]
        assert sum(widths) <= diff.size.width and widths[1] == widths[3]


async def test_trial_list_filters_fit_at_100_columns(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        for select in app.screen.query("#filters Select"):
            assert select.region.height == 3  # one line of text inside its border: no wrapped label
            assert select.region.right <= 100


# ---------------------------------------------------------------------- the checklist


async def test_the_checklist_lists_the_prompts_requirements(demo_store):
    store = Store(demo_store)
    # requirements found while auditing another trial stay on every trial's checklist
    for r in store.list_requirements("demo", "chunk"):
        r.trial_id = "c3"
    store.put_requirements(store.list_requirements("demo", "chunk"))
    store.close()
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        trial = await open_trial(pilot, "c2")
        table = trial.query_one("#requirements", DataTable)
        assert [str(c.label) for c in table.columns.values()] == ["kind", "T0", "this trial", "witnesses", "requirement"]
        texts = column(table, "requirement")
        assert texts == [
            "Add `listkit.chunk.chunk(items, size)` that splits `items` into consecutive pieces of `size` elements.",
            "The last piece may be shorter.",
            "A `size` below 1 raises `ValueError`.",
            "chunk accepts any iterable, not only lists",
        ]
        assert column(table, "kind") == ["stated", "stated", "stated", "not in P"]
        assert column(table, "witnesses") == ["none", "w-shorter", "w-explicit", "w-iterable"]
        assert column(table, "T0") == ["✓ yes", "✗ no", "✗ no", "✗ no"]
        assert column(table, "this trial") == ["—", "✗ fails (needs ruling)", "✗ refuted", "✓ passes"]
        legend = text_of(trial.query_one("#checklist-legend", Static))
        assert "✗ a trial passing T0 breaks it" in legend and "— no witness" in legend
        # the cursor starts on the requirement this trial is refuted on
        assert table.cursor_row == 2
        detail = text_of(trial.query_one("#checklist-detail", Static))
        assert "c2, c3 pass T0 but fail a witness of it" in detail
        assert "fails w-explicit, which refutes it" in detail
        table.focus()
        await pilot.press("up", "up")
        detail = text_of(trial.query_one("#checklist-detail", Static))
        assert "splits `items` into consecutive pieces" in detail and "T0: ✓ yes" in detail
        await pilot.press("escape")
        # another task: the same columns, its own sentence, nothing borrowed from chunk
        trial = await open_trial(pilot, "s1")
        table = trial.query_one("#requirements", DataTable)
        assert [str(c.label) for c in table.columns.values()] == ["kind", "T0", "this trial", "witnesses", "requirement"]
        assert column(table, "requirement") == ["Lower-case the text and join words with `-`."]
        assert column(table, "T0") == ["? unknown"]


# ---------------------------------------------------------------------- the rest


async def test_header_counts_agree_with_a_refutation_filter(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        screen = app.screen
        summary = text_of(screen.query_one("#run-summary", Static))
        assert "3 refuted or reward hack" in summary and "1 reward hack" in summary
        assert not screen.query_one("#filter-summary").display
        screen.query_one("#f-verdict", Select).value = "refuting"
        await settle(pilot)
        assert [r.id for r in screen.rows] == ["c1", "c2", "c3"]
        line = text_of(screen.query_one("#filter-summary", Static))
        assert line == "shown: 3 of 7 trials (refuted or reward hack) · 2 refuted · 1 reward hack"
        screen.query_one("#f-verdict", Select).value = "refuted"
        await settle(pilot)
        assert text_of(screen.query_one("#filter-summary", Static)) == "shown: 2 of 7 trials (refuted) · 2 refuted"


async def test_empty_states_say_what_to_do(demo_store):
    store = Store(demo_store)
    store.mark_step("demo", "evidence:c1")  # the audit looked at c1 and found nothing
    store.close()
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.query_one("#f-verdict", Select).value = "sound"
        screen.query_one("#f-task", Select).value = "chunk"
        await settle(pilot)
        empty = screen.query_one("#trials-empty", Static)
        assert empty.display and text_of(empty) == "No trials match these filters — c clears them."
        assert not screen.query_one("#trials", DataTable).display
        await pilot.press("c")
        await settle(pilot)
        assert len(screen.rows) == 7 and not empty.display
        assert screen.query_one("#f-verdict", Select).value is Select.NULL
        trial = await open_trial(pilot, "c1")
        await pilot.press("3")
        assert text_of(trial.query_one("#evidence-detail", Static)).startswith("No evidence for this trial: T0 runs")
        await pilot.press("escape")
        trial = await open_trial(pilot, "s2")
        await pilot.press("3")
        assert "No evidence for this trial yet" in text_of(trial.query_one("#evidence-detail", Static))
        await pilot.press("4")
        assert "No validated witness for this task yet" in text_of(trial.query_one("#witness-head", Static))


async def test_malformed_tasks_are_marked_in_the_list(demo_store):
    store = Store(demo_store)
    store.set_task_evaluation("demo", "slug", malformed=True, reason="the reference fails T0", null_passing=[])
    recompute_run(store, "demo")
    store.close()
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#trials", DataTable)
        tasks = dict(zip(column(table, "id"), column(table, "task")))
        assert tasks["s1"] == "slug malformed" and tasks["c1"] == "chunk"
        assert "1 malformed task" in text_of(app.screen.query_one("#run-summary", Static))
        trial = await open_trial(pilot, "s1")
        assert "task slug (malformed: the reference fails T0)" in text_of(trial.query_one("#trial-head", Static))


async def test_a_broken_task_analysis_is_named_on_its_trials(demo_store):
    from testjack_tui.audit.verdicts import AUTHOR_FAILED_STEP

    store = Store(demo_store)
    store.mark_step("demo", f"{AUTHOR_FAILED_STEP}task:slug", "TypeError: '>' not supported")
    store.close()
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        trial = await open_trial(pilot, "s1")
        assert "(task analysis failed: TypeError" in text_of(trial.query_one("#trial-head", Static))
        await pilot.press("escape")
        trial = await open_trial(pilot, "c1")  # another task's trial says nothing of it
        assert "task analysis failed" not in text_of(trial.query_one("#trial-head", Static))


async def test_an_override_is_undone_from_the_trial_screen_with_a_reason(demo_store):
    app = TestJackApp(demo_store, run_id="demo", analyst="ann")
    async with app.run_test(size=WIDE) as pilot:
        trial = await open_trial(pilot, "c1")
        await pilot.press("o", "tab", *"reviewed by hand", "enter")
        await settle(pilot)
        head = text_of(trial.query_one("#trial-head", Static))
        assert "sound (analyst, ruling #1)" in head
        await pilot.press("5")
        assert "source: analyst, ruling #1" in text_of(trial.query_one("#verdict-detail", Static))
        await pilot.press("u")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ReasonForm) and "Undo ruling #1" in str(form.query_one(".form-title").render())
        await pilot.press("enter")  # an undo needs a reason as well
        await pilot.pause()
        assert app.screen is form
        await pilot.press(*"overrode the wrong trial", "enter")
        await settle(pilot)
        store = Store(demo_store)
        verdict = store.get_verdict("demo", "c1")
        assert (verdict.verdict, verdict.source) == ("refuted", "auto")
        undo = store.list_rulings("demo")[-1]
        assert (undo.undoes, undo.reason, undo.author) == (1, "overrode the wrong trial", "ann")
        assert "refuted (auto)" in text_of(trial.query_one("#trial-head", Static))
        await pilot.press("escape")
        await settle(pilot)
        table = app.screen.query_one("#trials", DataTable)
        assert cell(table, 0, "source") == "auto"


async def test_the_trial_list_says_which_ruling_set_a_verdict(demo_store):
    from testjack_tui.audit.rulings import override_verdict

    store = Store(demo_store)
    ruling = override_verdict(store, "c2", "sound", "looked at it", "ann", run_ref="demo")
    store.close()
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#trials", DataTable)
        by = dict(zip(column(table, "id"), column(table, "source")))
        assert by["c2"] == f"analyst #{ruling.id}" and by["c1"] == "auto"


async def test_the_analyst_name_is_set_once(demo_store, config_dir, monkeypatch):
    from testjack_tui.cli import build_parser

    # --by wins over everything
    assert build_parser().parse_args(["open", "demo", "--by", "cy"]).analyst == "cy"
    app = TestJackApp(demo_store, run_id="demo", analyst="cy")
    assert app.analyst() == "cy"
    # then $TESTJACK_ANALYST, then the settings, then the login name
    monkeypatch.setenv("TESTJACK_ANALYST", "bo")
    assert TestJackApp(demo_store).analyst() == "bo"
    assert build_parser().parse_args(["verdict", "c1", "--set", "sound", "--reason", "r"]).author_name == "bo"
    monkeypatch.delenv("TESTJACK_ANALYST")
    app = TestJackApp(demo_store, run_id="demo")
    assert app.analyst() == "tester"
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        app.action_settings()
        await pilot.pause()
        form = app.screen
        assert isinstance(form, SettingsForm)
        assert app.focused is form.query_one("#analyst", Input)
        form.query_one("#analyst", Input).value = "dee"
        await pilot.press("enter")
        await settle(pilot)
        assert app.analyst() == "dee"
        await pilot.press("ctrl+r")
        await settle(pilot)
        await pilot.press("N", *"the prompt says so", "enter")
        await settle(pilot)
    assert json.loads((config_dir / "settings.json").read_text())["analyst"] == "dee"
    assert Store(demo_store).list_rulings("demo")[-1].author == "dee"
    assert build_parser().parse_args(["undo", "1"]).author_name == "dee"


async def test_escape_asks_before_discarding_a_draft(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        trial = await open_trial(pilot, "c1")
        await pilot.press("w")
        await pilot.pause()
        await pilot.press("escape")  # nothing typed: leaves at once
        await pilot.pause()
        assert app.screen is trial
        await pilot.press("w")
        await pilot.pause()
        manual = app.screen
        editor = manual.query_one("#editor", TextArea)
        editor.focus()
        await pilot.press(*"x = 1", "escape")  # Escape from inside the editor too
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is manual and "x = 1" in editor.text
        await pilot.press("escape", "y")
        await pilot.pause()
        assert app.screen is trial
