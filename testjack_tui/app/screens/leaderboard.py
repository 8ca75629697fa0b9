"""The corrected leaderboard of a run: one row per model (or agent), ranked before and after the audit.

The rows come from ``testjack_tui.report.leaderboard`` (the same as ``testjack leaderboard`` and
the reports), read in a thread worker. The panel under the table says, for the highlighted row,
whether its change of rank lies inside overlapping 95% intervals (then it is no evidence that one
row is better than another) and which ranks its interval allows.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from testjack_tui.app.widgets.table import Table
from testjack_tui.app.widgets.verdict import HELP_BINDINGS, theme_text, verdict_text
from testjack_tui.app.workers import load
from testjack_tui.model import LeaderboardRow
from testjack_tui.figures import counted, interval, pct, resolution_change
from testjack_tui.report.leaderboard import change_short, change_text, leaderboard, rank_text

COLUMNS = ("#", "name", "trials", "passes", "before", "refuted", "hacks", "unaudited", "after", "after 95%",
           "was #", "change")
NOTE = ("before: the benchmark's own tests; after: refuted trials (reward hacks included) fail, unaudited "
        "ones pass and the 95% interval covers them. 2= is a shared rank.")


class LeaderboardScreen(Screen):
    BINDINGS = [
        *HELP_BINDINGS,
        Binding("escape", "back", "Back", tooltip="Back to where you were"),
        Binding("g", "toggle_group", "By model/agent", tooltip="Group the leaderboard by model or by agent"),
        Binding("r", "refresh", "Refresh", tooltip="Re-read the leaderboard from the store"),
    ]

    def __init__(self, run_id: str, by: str = "model") -> None:
        super().__init__(classes="leaderboard-screen")
        self.run_id = run_id
        self.by = by
        self.rows: list[LeaderboardRow] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="leaderboard-title", classes="screen-title")
        yield Table(id="leaderboard", cursor_type="row", zebra_stripes=True)
        yield Static("", id="leaderboard-detail")
        yield Static(NOTE, id="leaderboard-note", classes="hint")
        yield Footer(compact=True, show_command_palette=False)  # ctrl+p is a binding: shown once

    def on_mount(self) -> None:
        self.title = f"Leaderboard of {self.run_id}"
        self._columns()
        self.query_one(DataTable).focus()
        self.refresh_data()

    def _columns(self) -> None:
        table = self.query_one(DataTable)
        table.clear(columns=True)
        for label in COLUMNS:
            table.add_column(self.by if label == "name" else label, key=label)

    # ------------------------------------------------------------------ data

    def refresh_data(self) -> None:
        run_id, by = self.run_id, self.by
        load(self, "leaderboard", lambda store: leaderboard(store, run_id, by=by), self._show)

    def store_changed(self, run_id: str) -> None:
        if run_id == self.run_id:
            self.refresh_data()

    def _show(self, rows: list[LeaderboardRow]) -> None:
        self.rows = rows
        self.query_one("#leaderboard-title", Static).update(
            f"Corrected leaderboard of {self.run_id}, by {self.by}: {counted(len(rows), 'row')}, best corrected resolution first")
        table = self.query_one(DataTable)
        keep = table.cursor_row
        table.clear()
        for r in rows:
            table.add_row(
                Text(rank_text(r.rank_after, r.tied_after), style="bold"), Text(r.name, style="bold"),
                str(r.trials), str(r.passing), pct(r.resolution_before),
                Text(str(r.refuted), style=self._style("refuted", r.refuted)),
                Text(str(r.reward_hack), style=self._style("reward_hack", r.reward_hack)),
                Text(str(r.unaudited), style=self._style("unaudited", r.unaudited)),
                Text(pct(r.resolution_after), style="bold"), interval(r.resolution_after_95),
                rank_text(r.rank_before, r.tied_before), self._change(r),
                key=r.name,
            )
        if rows:
            table.move_cursor(row=min(keep, len(rows) - 1))
            self._detail(rows[table.cursor_row])
        else:
            self.query_one("#leaderboard-detail", Static).update("No trials in this run.")

    def _style(self, verdict: str, count: int) -> str:
        return verdict_text(self.app, verdict, bold=False).style if count else "dim"

    def _change(self, r: LeaderboardRow) -> Text:
        text = change_short(r)
        if r.rank_change == 0:
            return theme_text(self.app, text, "text-muted")
        if r.change_within_intervals:
            return theme_text(self.app, text, "warning")
        return theme_text(self.app, text, "success" if r.rank_change > 0 else "error", bold=True)

    def _detail(self, r: LeaderboardRow) -> None:
        panel = self.query_one("#leaderboard-detail", Static)
        best, worst = r.rank_after_range
        ranks = f"rank {best}" if best == worst else f"any rank from {best} to {worst}"
        unaudited = ""
        if r.unaudited:
            where = "its own" if r.sample_scope == "group" else "the run's (none of its own had one)"
            unaudited = (f" Its {counted(r.unaudited, 'unaudited trial')} may be refuted at the rate seen among "
                         f"{where} "
                         f"trials that had their own audit ({r.refuted_in_sample} of {r.sampled}).")
        panel.update(
            f"{r.name}: {resolution_change(r.resolution_before, r.resolution_after, arrow='->')} "
            f"(95% {interval(r.resolution_after_95)}); {change_text(r)}. "
            f"Its interval allows {ranks}.{unaudited}"
        )
        panel.set_class(r.change_within_intervals is True, "within")
        panel.set_class(r.change_within_intervals is False, "beyond")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        row = next((r for r in self.rows if r.name == event.row_key.value), None)
        if row is not None:
            self._detail(row)

    # ------------------------------------------------------------------ actions

    def action_toggle_group(self) -> None:
        self.by = "agent" if self.by == "model" else "model"
        self._columns()
        self.refresh_data()

    def action_refresh(self) -> None:
        self.refresh_data()

    def action_back(self) -> None:
        self.app.pop_screen()
