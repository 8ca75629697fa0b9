"""The analyst's flows through the console, driven with Textual's Pilot on a real store."""

from __future__ import annotations

import json

from textual.widgets import DataTable

from testjack_tui.store import Store
from testjack_tui.app.app import TestJackApp
from testjack_tui.app.screens.rulings import RulingsScreen
from testjack_tui.app.screens.runs import RunsScreen
from testjack_tui.app.screens.trial import TrialScreen
from testjack_tui.app.screens.trials import TrialsScreen

from .helpers import cell, settle


async def test_runs_screen_lists_runs_with_counts(demo_store):
    app = TestJackApp(demo_store)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        table = app.screen.query_one(DataTable)
        assert table.row_count == 1
        assert cell(table, 0, "trials") == "7"
        assert cell(table, 0, "passing") == "5"
        assert cell(table, 0, "refuted") == "3"  # reward hacks count as refuted
        assert cell(table, 0, "reward_hack") == "1"
        # w-shorter: 2 of 3 passing trials fail it, so one trial decides its majority (A.2)
        assert cell(table, 0, "ambiguous") == "0"
        assert cell(table, 0, "needs_ruling") == "1"
        assert cell(table, 0, "before") == "71.4%"
        assert cell(table, 0, "after") == "28.6%"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TrialsScreen)
        assert app.screen.run_id == "demo"


async def test_triage_to_a_refuted_trial_and_read_its_witness(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TrialsScreen)
        table = screen.query_one("#trials", DataTable)
        assert table.row_count == 7
        assert screen.highlighted().id == "c1"
        await pilot.press("f")  # next refutation below the cursor
        assert screen.highlighted().id == "c2"
        await pilot.press("m")  # mark it reviewed
        await settle(pilot)
        assert Store(demo_store).get_trial("demo", "c2").reviewed
        await pilot.press("f")
        assert screen.highlighted().id == "c3"
        assert screen.highlighted().verdict == "reward_hack"
        await pilot.press("enter")
        await settle(pilot)
        trial = app.screen
        assert isinstance(trial, TrialScreen) and trial.trial_id == "c3"
        await pilot.press("4")
        await settle(pilot)
        witnesses = trial.query_one("#witnesses", DataTable)
        assert witnesses.row_count == 3
        # the refuting witness is shown first, with its outcomes on the three worlds
        assert trial.witness_id == "w-explicit"
        # the witness on the reference, the null world and every passing trial of the task
        outcomes = trial.query_one("#witness-outcomes", DataTable)
        assert [cell(outcomes, i, "world") for i in range(outcomes.row_count)] == [
            "reference", "null", "c1", "c2", "c3 (this trial)"]
        assert [cell(outcomes, i, "outcome") for i in range(outcomes.row_count)] == [
            "pass", "fail", "pass", "fail", "fail"]
        assert "def test_w_explicit" in trial.query_one("#witness-code").text


async def test_search_and_filters_narrow_the_table(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press("slash")
        await pilot.press(*"s", "enter")
        await settle(pilot)
        assert [r.id for r in screen.rows] == ["s1", "s2", "s3"]
        search = screen.query_one("#f-search")
        search.value = ""
        search.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert len(screen.rows) == 7
        screen.query_one("#f-verdict").value = "refuted"
        await settle(pilot)
        assert [r.id for r in screen.rows] == ["c1", "c2"]
        screen.query_one("#f-verdict").clear()
        screen.query_one("#f-evidence").value = "detector"
        await settle(pilot)
        assert [r.id for r in screen.rows] == ["c3"]


async def test_rule_a_witness_ambiguous_and_the_verdicts_change(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        rulings = app.screen
        assert isinstance(rulings, RulingsScreen)
        queue = rulings.query_one("#queue", DataTable)
        ids = [cell(queue, i, "witness") for i in range(queue.row_count)]
        assert ids == ["w-shorter", "w-iterable"]  # the implicit witnesses, those that need a ruling first
        assert cell(queue, 1, "would refute") == "1: c1"
        await pilot.press("down")
        await pilot.press("A")
        await pilot.press(*"not in the prompt", "enter")
        await settle(pilot)
        store = Store(demo_store)
        assert store.get_witness("w-iterable").classification == "ambiguous"
        assert store.get_verdict("demo", "c1").verdict == "sound"
        history = rulings.query_one("#history", DataTable)
        assert history.row_count == 1
        assert cell(history, 0, "by") == "tester"
        assert cell(history, 0, "before") == "implicit"
        # the trial list below re-read the store: c1 is no longer refuted
        await pilot.press("escape")
        await settle(pilot)
        trials = app.screen
        assert next(r for r in trials.rows if r.id == "c1").verdict == "sound"
        # undo from the history restores the refutation
        await pilot.press("ctrl+r")
        await settle(pilot)
        app.screen.query_one("#history", DataTable).focus()
        await pilot.press("u")  # an undo asks for its reason too
        await pilot.pause()
        await pilot.press(*"ruled too fast", "enter")
        await settle(pilot)
        assert store.get_verdict("demo", "c1").verdict == "refuted"
        assert store.list_rulings("demo")[-1].reason == "ruled too fast"
        assert len(store.list_rulings("demo")) == 2


async def test_override_a_verdict_from_the_trial_screen(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # c1
        await settle(pilot)
        await pilot.press("o")  # the new verdict is focused first, then the reason
        await pilot.pause()
        await pilot.press("tab", *"reviewed by hand", "enter")
        await settle(pilot)
        verdict = Store(demo_store).get_verdict("demo", "c1")
        assert verdict.verdict == "sound" and verdict.source == "analyst"
        assert "reviewed by hand" in app.screen.query_one("#verdict-detail").render().plain


async def test_evidence_jumps_to_its_line_in_the_diff(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.screen.open_trial("c2")
        await settle(pilot)
        trial = app.screen
        await pilot.press("3")
        trial.query_one("#evidence", DataTable).focus()
        await pilot.press("enter")
        diff = trial.query_one("#diff")
        assert trial.query_one("#trial-tabs").active == "tab-diff"
        assert diff.current_location() == ("listkit/chunk.py", 3)


async def test_export_writes_the_report_with_the_rulings(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        from testjack_tui.audit.rulings import rule_witness

        rule_witness(Store(demo_store), "w-shorter", "necessary", "the prompt says so", "tester")
        app.action_export("json")
        await settle(pilot)
        path = demo_store.parent / "demo-report.json"
        report = json.loads(path.read_text())
        assert report["schema"] == "testjack.report/1"
        assert report["rulings"][0]["reason"] == "the prompt says so"
        assert any(str(path) in n.message for n in app._notifications)
        app.action_export("md")
        await settle(pilot)
        assert (demo_store.parent / "demo-report.md").read_text().startswith("# TestJack audit: demo")


async def test_theme_choice_is_remembered(demo_store, config_dir):
    app = TestJackApp(demo_store)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert app.theme == "testjack-dark"
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert app.theme == "testjack-light"
    assert json.loads((config_dir / "settings.json").read_text())["theme"] == "testjack-light"
    again = TestJackApp(demo_store)
    async with again.run_test() as pilot:
        await pilot.pause()
        assert again.theme == "testjack-light"
        again.theme = "nord"  # a built-in theme works with the console's stylesheet too
        await pilot.pause()
        assert again.get_css_variables()["verdict-refuted"]


async def test_command_palette_offers_every_action(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for wanted in ("Export report as Markdown", "Export report as HTML", "Export report as JSON",
                       "Next unreviewed", "Next refutation", "Mark reviewed", "Search", "Rulings",
                       "Audit", "Cancel audit", "Theme: testjack-light"):
            assert wanted in titles
        # every binding of the screen has a description
        assert all(b.description for _, b in app.screen._bindings)
