"""Snapshots of the main screens in TestJack's dark and light themes (pytest-textual-snapshot).

The store is the deterministic demo store of conftest.py; update the SVGs with
``pytest tests/app --snapshot-update`` after an intended change, and look at them.
"""

from __future__ import annotations

import pytest

from testjack_tui.app.app import TestJackApp

from .helpers import settle

THEMES = ["testjack-dark", "testjack-light"]
SIZE = (140, 36)


def _before(theme: str, then=None):
    async def run_before(pilot) -> None:
        pilot.app.theme = theme
        await settle(pilot)
        if then is not None:
            await then(pilot)
            await settle(pilot)

    return run_before


@pytest.mark.parametrize("theme", THEMES)
def test_runs_screen(snap_compare, demo_store, theme):
    assert snap_compare(TestJackApp(demo_store), terminal_size=SIZE, run_before=_before(theme))


@pytest.mark.parametrize("theme", THEMES)
def test_trials_screen(snap_compare, demo_store, theme):
    async def triage(pilot) -> None:
        await pilot.press("f", "f")

    assert snap_compare(TestJackApp(demo_store, run_id="demo"), terminal_size=SIZE, run_before=_before(theme, triage))


@pytest.mark.parametrize("theme", THEMES)
def test_trial_witnesses(snap_compare, demo_store, theme):
    async def open_witnesses(pilot) -> None:
        pilot.app.screen.open_trial("c3")
        await settle(pilot)
        await pilot.press("4")

    assert snap_compare(TestJackApp(demo_store, run_id="demo"), terminal_size=SIZE,
                        run_before=_before(theme, open_witnesses))


@pytest.mark.parametrize("theme", THEMES)
def test_trial_diff(snap_compare, demo_store, theme):
    async def open_diff(pilot) -> None:
        pilot.app.screen.open_trial("c2")
        await settle(pilot)
        await pilot.press("2")

    assert snap_compare(TestJackApp(demo_store, run_id="demo"), terminal_size=SIZE, run_before=_before(theme, open_diff))


@pytest.mark.parametrize("theme", THEMES)
def test_rulings_screen(snap_compare, demo_store, theme):
    async def rulings(pilot) -> None:
        await pilot.press("ctrl+r")

    assert snap_compare(TestJackApp(demo_store, run_id="demo"), terminal_size=SIZE, run_before=_before(theme, rulings))


@pytest.mark.parametrize("theme", THEMES)
def test_leaderboard_screen(snap_compare, demo_store, theme):
    async def board(pilot) -> None:
        await pilot.press("ctrl+l")

    assert snap_compare(TestJackApp(demo_store, run_id="demo"), terminal_size=SIZE, run_before=_before(theme, board))


@pytest.mark.parametrize("theme", THEMES)
def test_trial_checklist(snap_compare, demo_store, theme):
    async def open_prompt(pilot) -> None:
        pilot.app.screen.open_trial("c2")
        await settle(pilot)

    assert snap_compare(TestJackApp(demo_store, run_id="demo"), terminal_size=SIZE,
                        run_before=_before(theme, open_prompt))


def test_trial_witnesses_at_100_columns(snap_compare, demo_store):
    async def open_witnesses(pilot) -> None:
        pilot.app.screen.open_trial("c2")
        await settle(pilot)
        await pilot.press("4")

    assert snap_compare(TestJackApp(demo_store, run_id="demo"), terminal_size=(100, 30),
                        run_before=_before("testjack-dark", open_witnesses))


def test_help_screen(snap_compare, demo_store):
    async def open_help(pilot) -> None:
        pilot.app.screen.open_trial("c2")
        await settle(pilot)
        await pilot.press("f1")

    assert snap_compare(TestJackApp(demo_store, run_id="demo"), terminal_size=SIZE,
                        run_before=_before("testjack-dark", open_help))
