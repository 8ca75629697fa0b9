"""The console's leaderboard screen, driven with Pilot on the demo store of conftest.py.

Demo store by model: a (c1 refuted, s1 sound), b (c2 refuted, s2 unaudited), c (c3 reward hack,
s3 not passing), d (c4 not passing).
"""

from __future__ import annotations

from textual.widgets import DataTable, Static

from testjack_tui.app.app import TestJackApp
from testjack_tui.app.screens.leaderboard import LeaderboardScreen

from .helpers import settle


def cells(table: DataTable) -> list[list[str]]:
    return [[str(getattr(c, "plain", c)) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_the_leaderboard_ranks_models_before_and_after_with_intervals(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LeaderboardScreen)
        rows = cells(screen.query_one(DataTable))
        assert [r[1] for r in rows] == ["model-a", "model-b", "model-c", "model-d"]
        # rank, name, trials, passes, before, refuted, hacks, unaudited, after, interval, was, change
        assert rows[0][:9] == ["1=", "model-a", "2", "2", "100.0%", "1", "0", "0", "50.0%"]
        assert rows[1][:9] == ["1=", "model-b", "2", "2", "100.0%", "1", "0", "1", "50.0%"]
        assert rows[2][:9] == ["3=", "model-c", "2", "1", "50.0%", "1", "1", "0", "0.0%"]
        assert rows[2][10:] == ["3", "same"]  # tied with model-d now, but still third
        assert rows[3][10:] == ["4", "up 1 (within CI)"]  # 0 of 1 before, 0 of 2 after: noise
        assert all(r[9].startswith("[") for r in rows)
        detail = str(screen.query_one("#leaderboard-detail", Static).render())
        assert detail.startswith("model-a: 100.0% -> 50.0% (95% [")
        await pilot.press("down")
        await settle(pilot)
        detail = str(screen.query_one("#leaderboard-detail", Static).render())
        assert "model-b" in detail and "Its 1 unaudited trial may be" in detail
        await pilot.press("down", "down")
        await settle(pilot)
        assert screen.query_one("#leaderboard-detail").has_class("within")
        await pilot.press("g")
        await settle(pilot)
        table = screen.query_one(DataTable)
        assert [str(c.label) for c in table.columns.values()][1] == "agent"
        assert [r[1] for r in cells(table)] == ["agent-y", "agent-x"]  # agent-y: s1 sound, s2 unaudited
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, LeaderboardScreen)


async def test_the_leaderboard_is_in_the_command_palette(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert "Leaderboard" in commands and "ctrl+l" in commands["Leaderboard"].help
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Leaderboard")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, LeaderboardScreen) and app.screen.run_id == "demo"
