"""The footers match the screen, and the small things an analyst meets on the way (issue 41,
items 6 and 7): the keys each tab answers to are the keys its footer shows, nothing is cut at 160
columns, f wraps, Home and End move the cursor, the filters have a key, search applies as you
type, and a refresh updates the trial list in place."""

from __future__ import annotations

import pytest
from textual.widgets import Checkbox, DataTable, Input, Select
from textual.widgets._footer import FooterKey

from testjack_tui.app.app import TestJackApp
from testjack_tui.app.messages import StoreChanged
from testjack_tui.app.screens.forms import SettingsForm
from testjack_tui.audit.rulings import override_verdict
from testjack_tui.store import Store

from .helpers import cell, open_trial, settle


def footer(screen) -> dict[str, FooterKey]:
    return {k.key: k for k in screen.query(FooterKey)}


async def test_each_tab_shows_the_keys_it_answers_to(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        trial = await open_trial(pilot, "c1")
        await pilot.press("4")
        await pilot.pause()
        keys = footer(trial)
        for key in ("x", "X", "A", "N"):
            assert key in keys and keys[key].region.right <= 160, key
        assert "C" not in keys and "z" not in keys
        await pilot.press("2")
        await pilot.pause()
        keys = footer(trial)
        assert "z" in keys and "s" in keys and "A" not in keys
        await pilot.press("5")  # leaving the diff takes its keys out of the footer
        await pilot.pause()
        keys = footer(trial)
        assert "z" not in keys and "s" not in keys and "u" in keys
        await pilot.press("1")
        await pilot.pause()
        assert "C" in footer(trial) and "u" not in footer(trial)
        await pilot.press("A")  # a witness out of sight is never ruled from another tab
        await settle(pilot)
        assert app.screen is trial


@pytest.mark.parametrize("tab", ["1", "2", "4", "5"])
async def test_no_footer_is_cut_at_160_columns(demo_store, tab):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert max(k.region.right for k in footer(app.screen).values()) <= 160
        trial = await open_trial(pilot, "c2")
        await pilot.press(tab)
        await pilot.pause()
        keys = footer(trial)
        assert "ctrl+l" in keys and max(k.region.right for k in keys.values()) <= 160


async def test_the_leaderboard_shows_the_palette_once(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await settle(pilot)
        labels = [k.description for k in app.screen.query(FooterKey)]
        assert labels.count("Palette") == 1 and "Help" in labels


async def test_f_wraps_and_home_and_end_move_the_cursor(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#trials", DataTable)
        refuting = [cell(table, i, "id") for i in range(table.row_count)
                    if cell(table, i, "verdict") in ("refuted", "reward hack")]
        assert cell(table, 0, "id") == refuting[0] and len(refuting) > 1
        for _ in refuting[1:]:
            await pilot.press("f")
        assert cell(table, table.cursor_row, "id") == refuting[-1]
        await pilot.press("f")  # past the last: the first again
        assert cell(table, table.cursor_row, "id") == refuting[0]
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("home")
        assert table.cursor_row == 0


async def test_the_filters_have_a_key_and_search_applies_as_you_type(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert "v" in footer(screen) and "slash" in footer(screen)
        await pilot.press("v")
        assert app.focused is screen.query_one("#f-verdict", Select)
        await pilot.press("escape", "slash")
        await settle(pilot)
        search = screen.query_one("#f-search", Input)
        if app.focused is not search:  # headless Textual may hide and blur the field for a frame
            await pilot.click(search)
        await pilot.press(*"slug")  # no Enter
        table = screen.query_one("#trials", DataTable)
        for _ in range(200):  # until the search timer fires and the page is read
            await settle(pilot)
            if screen.filters.search == "slug" and table.row_count == 3:
                break
        assert screen.filters.search == "slug"
        assert sorted(cell(table, i, "id") for i in range(table.row_count)) == ["s1", "s2", "s3"]


async def test_a_refresh_updates_the_trial_list_in_place(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        table = screen.query_one("#trials", DataTable)
        table.move_cursor(row=2)
        rows_before = list(table.rows)
        store = Store(demo_store)
        override_verdict(store, "c1", "sound", "checked by hand", author="ann", run_ref="demo")
        app.post_message(StoreChanged("demo"))
        await settle(pilot)
        row = [cell(table, i, "id") for i in range(table.row_count)].index("c1")
        assert cell(table, row, "verdict") == "sound" and cell(table, row, "source").startswith("analyst #")
        assert list(table.rows) == rows_before and table.cursor_row == 2  # the same rows, never cleared


async def test_the_settings_label_fits_at_100_columns(demo_store):
    app = TestJackApp(demo_store)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.action_settings()
        await settle(pilot)
        form = app.screen
        assert isinstance(form, SettingsForm)
        box = form.query_one("#resume", Checkbox)
        assert len(str(box.label)) + 4 <= box.content_region.width
