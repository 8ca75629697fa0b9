"""Issue 17: a verdict that a witness ruling changed says so, in the store and on screen.

On conftest's demo store c1 is refuted by the implicit witness ``w-iterable`` alone, and c2 and c3
fail both ``w-explicit`` and ``w-shorter`` (ambiguous: ρ 0.67).
"""

from __future__ import annotations

from textual.widgets import DataTable, Static

from testjack_tui.store import Store
from testjack_tui.app.app import TestJackApp
from testjack_tui.audit.rulings import rule_witness, undo_ruling
from testjack_tui.audit.verdicts import recompute_run

from .helpers import open_trial, settle, text_of
from .test_usability import WIDE, column


def test_a_witness_ruling_that_flips_a_verdict_is_its_source_until_undone(demo_store):
    store = Store(demo_store)
    try:
        assert (store.get_verdict("demo", "c1").verdict, store.get_verdict("demo", "c1").source) == ("refuted", "auto")
        ruling, _ = rule_witness(store, "w-iterable", "ambiguous", "P never asks for iterables", author="ann")
        recompute_run(store, "demo")  # recomputing again reaches the same record
        v = store.get_verdict("demo", "c1")
        assert (v.verdict, v.source, v.ruling_id) == ("sound", "analyst", ruling.id)
        assert f"ruling #{ruling.id} by ann: witness w-iterable ambiguous" in v.rule
        # a ruling that changes no verdict leaves it auto: c2 is refuted by w-explicit either way
        necessary, _ = rule_witness(store, "w-shorter", "necessary", "P says the last piece is shorter")
        v2 = store.get_verdict("demo", "c2")
        assert (v2.verdict, v2.source, v2.ruling_id) == ("refuted", "auto", None)
        undo_ruling(store, ruling.id, "it is asked for after all", author="ann")
        v = store.get_verdict("demo", "c1")
        assert (v.verdict, v.source, v.ruling_id) == ("refuted", "auto", None)
        assert "ruling #" not in v.rule
    finally:
        store.close()


async def test_the_console_names_the_witness_ruling_that_decided_a_verdict(demo_store):
    app = TestJackApp(demo_store, run_id="demo", analyst="ann")
    async with app.run_test(size=WIDE) as pilot:
        trial = await open_trial(pilot, "c1")
        await pilot.press("4")
        assert trial.witness_id == "w-iterable"
        await pilot.press("A")
        await pilot.pause()
        await pilot.press(*"not in the prompt", "enter")
        await settle(pilot)
        assert "sound (analyst, ruling #1)" in text_of(trial.query_one("#trial-head", Static))
        await pilot.press("5")
        assert "source: analyst, ruling #1" in text_of(trial.query_one("#verdict-detail", Static))
        await pilot.press("escape")
        await settle(pilot)
        table = app.screen.query_one("#trials", DataTable)
        by = dict(zip(column(table, "id"), column(table, "source")))
        assert by["c1"] == "analyst #1" and by["c2"] == "auto"
