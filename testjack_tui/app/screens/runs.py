"""The first screen: every run in the store with its counts, resolution, cost and audit progress."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from testjack_tui.app.widgets.table import Table
from testjack_tui.app.widgets.verdict import HELP_BINDINGS, theme_text, verdict_text
from testjack_tui.app.workers import load
from testjack_tui.figures import cost, counted, pct
from testjack_tui.model import Run, RunSummary

COLUMNS = [
    ("run", "run"), ("benchmark", "benchmark"), ("trials", "trials"), ("passing", "passing"),
    ("refuted", "refuted"), ("reward hacks", "reward_hack"), ("ambiguous", "ambiguous"),
    ("needs ruling", "needs_ruling"),
    ("sound", "sound"), ("unaudited", "unaudited"), ("resolution before", "before"),
    ("after", "after"), ("cost", "cost"), ("audit", "audit"),
]


class RunsScreen(Screen):
    BINDINGS = [
        *HELP_BINDINGS,
        Binding("o", "open", "Open run", tooltip="Show the trials of the highlighted run"),
        Binding("a", "audit", "Audit", tooltip="Start an audit of the highlighted run in the background"),
        Binding("c", "cancel_audit", "Cancel audit", tooltip="Stop the audit of the highlighted run"),
        Binding("r", "refresh", "Refresh", tooltip="Re-read the runs from the store"),
    ]

    def __init__(self) -> None:
        super().__init__(id="runs")
        self.runs: list[tuple[Run, RunSummary]] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Runs", id="runs-title", classes="screen-title")
        yield Table(id="runs-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="runs-hint", classes="hint")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, key in COLUMNS:
            table.add_column(label, key=key)
        self.sub_title = Path(self.app.store_path).name
        self.refresh_data()

    # ------------------------------------------------------------------ data

    def refresh_data(self) -> None:
        load(self, "runs", lambda store: [(r, store.summary(r.id)) for r in store.list_runs()], self._show)

    def store_changed(self, run_id: str) -> None:
        self.refresh_data()

    def _show(self, runs: list[tuple[Run, RunSummary]]) -> None:
        self.runs = runs
        table = self.query_one(DataTable)
        keep = self.highlighted_run()
        table.clear()
        for run, s in runs:
            table.add_row(
                Text(run.name if run.name == run.id else f"{run.name} ({run.id})", style="bold"),
                run.benchmark,
                str(s.trials),
                str(s.passing),
                self._count(s.refuted, "refuted"),
                self._count(s.reward_hack, "reward_hack"),
                self._count(s.ambiguous_witnesses, "ambiguous"),
                self._count(s.needs_ruling_witnesses, "needs_ruling"),
                self._count(s.sound, "sound"),
                self._count(s.unaudited, "unaudited"),
                pct(s.resolution_before),
                pct(s.resolution_after),
                cost(s.cost_usd, 2),
                self._audit_cell(run.id),
                key=run.id,
            )
        if keep and keep in {r.id for r, _ in runs}:
            table.move_cursor(row=table.get_row_index(keep))
        hint = self.query_one("#runs-hint", Static)
        hint.update(
            "No runs yet: import one with  testjack import PATH  or open a folder with  testjack open PATH"
            if not runs else f"{counted(len(runs), 'run')}. Enter opens a run · a audits it (or resumes its audit) · "
                             "c cancels · F1 help"
        )

    def _count(self, n: int, verdict: str) -> Text:
        return Text(str(n), style=verdict_text(self.app, verdict).style) if n else Text("0", style="dim")

    def _audit_cell(self, run_id: str) -> Text | str:
        job = self.app.audits.jobs.get(run_id)
        interrupted = self.app.interrupted.get(run_id)
        if job is not None and job.status == "running":
            return f"{100 * job.fraction:.0f}% {job.progress.phase if job.progress else 'starting'}"
        if interrupted is not None and interrupted.elsewhere:
            at = f"{interrupted.percent}% " if interrupted.percent is not None else ""
            return f"{at}running in another process"
        if interrupted is not None:
            at = f" at {interrupted.percent}%" if interrupted.percent is not None else ""
            return theme_text(self.app, f"interrupted{at}: a resumes", "warning", bold=True)
        if job is None:
            return ""
        return job.status

    def audit_changed(self, run_id: str) -> None:
        table = self.query_one(DataTable)
        if run_id in table.rows:
            table.update_cell(run_id, "audit", self._audit_cell(run_id))

    # ------------------------------------------------------------------ actions

    @property
    def run_id(self) -> str | None:
        """The highlighted run: what export and rulings act on from this screen."""
        return self.highlighted_run() if self.is_mounted else None

    def highlighted_run(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key, _ = table.coordinate_to_cell_key((table.cursor_row, 0))
        return key.value

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            self.app.open_run(event.row_key.value)

    def action_open(self) -> None:
        run_id = self.highlighted_run()
        if run_id:
            self.app.open_run(run_id)

    def action_refresh(self) -> None:
        self.refresh_data()

    def action_audit(self) -> None:
        run_id = self.highlighted_run()
        if run_id:
            self.app.audit_form(run_id)

    def action_cancel_audit(self) -> None:
        run_id = self.highlighted_run()
        if run_id:
            self.app.cancel_run_audit(run_id)
