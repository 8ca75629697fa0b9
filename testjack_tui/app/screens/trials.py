"""The trials of one run: a paged DataTable with filters, search and keyboard triage.

Rows are read ``PAGE`` at a time in a thread worker; when the cursor comes within ``PAGE // 5``
rows of the end, the next page is fetched, so a run with thousands of trials opens at once.

What a page holds, the filters and the header lines are in ``trials_query``.
"""

from __future__ import annotations

from typing import Any, Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Header, Input, ProgressBar, Select, Static

from testjack_tui.app.widgets.table import Table
from testjack_tui.store import TrialRow
from testjack_tui.app.screens.override import override_with_form
from testjack_tui.review.trials_query import (
    REFUTING,
    REFUTING_CHOICE,
    Filters,
    Page,
    filtered_line,
    read_page,
    verdict_counts,
)
from testjack_tui.app.widgets.verdict import HELP_BINDINGS, theme_text, verdict_text
from testjack_tui.app.workers import load
from testjack_tui.figures import counted, outcome_line, summary_line
from testjack_tui.model import EvidenceKind, RunSummary, Verdict

PAGE = 500
SEARCH_PAUSE = 0.3  # seconds of no typing before the search applies
SORTS = [("run order", "seq"), ("trial id", "id"), ("task", "task"), ("model", "model"), ("verdict", "verdict")]
VERDICT_CHOICES = [("refuted or reward hack", REFUTING_CHOICE)] + [(v.value.replace("_", " "), v.value) for v in Verdict]
EVIDENCE_CHOICES = [(k.value.replace("_", " "), k.value) for k in EvidenceKind]


class TrialsScreen(Screen):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    BINDINGS = [
        *HELP_BINDINGS,
        Binding("escape", "back", "Back", show=False, tooltip="Back to the runs (from the search field: back to the table)"),
        Binding("n", "next_unreviewed", "Next unreviewed",
                tooltip="Move to the next trial not yet marked reviewed (after the last: from the top)"),
        Binding("f", "next_refuted", "Next refutation",
                tooltip="Move to the next refuted or reward-hack trial (after the last: from the top)"),
        Binding("m", "mark_reviewed", "Mark reviewed", tooltip="Mark the highlighted trial reviewed (again: unmark)"),
        Binding("slash", "search", "Search", key_display="/",
                tooltip="Search trial, task, model and agent names (applies as you type)"),
        Binding("v", "filters", "Filters",
                tooltip="Go to the filters: verdict, task, model, evidence, sort (Tab moves on, Esc back to the table)"),
        Binding("c", "clear_filters", "Clear filters", tooltip="Show every trial of the run again"),
        Binding("o", "override", "Override verdict", show=False, tooltip="Set the highlighted trial's verdict, with a reason"),
        Binding("w", "manual_witness", "Write witness", show=False, tooltip="Write a manual witness for the highlighted trial"),
        Binding("a", "audit", "Audit", tooltip="Start an audit of this run in the background (or resume the interrupted one)"),
        Binding("C", "cancel_audit", "Cancel audit", show=False, tooltip="Stop this run's audit; finished steps stay in the store"),
        Binding("r", "refresh", "Refresh", show=False, tooltip="Re-read the trials from the store"),
    ]

    def __init__(self, run_id: str) -> None:
        super().__init__(classes="trials-screen")
        self.run_id = run_id
        self.filters = Filters()
        self.rows: list[TrialRow] = []
        self.total = 0
        self.loading = False
        self.pending_find: Callable[[TrialRow], bool] | None = None
        self.facets_loaded = False
        self.malformed: dict[str, str] = {}
        self.search_timer: Timer | None = None
        self.summary: RunSummary | None = None  # the run's summary last read: the header's and the done line's

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.run_id, id="run-summary", classes="summary")
        yield Static("", id="filter-summary", classes="summary")
        with Horizontal(id="audit-bar"):
            yield ProgressBar(total=100, show_eta=False, id="audit-progress")
            yield Static("", id="audit-status")
        with Horizontal(id="filters"):
            yield Select(VERDICT_CHOICES, prompt="verdict", id="f-verdict")
            yield Select([], prompt="task", id="f-task")
            yield Select([], prompt="model", id="f-model")
            yield Select(EVIDENCE_CHOICES, prompt="evidence", id="f-evidence")
            yield Select(SORTS, value="seq", allow_blank=False, id="f-sort")
            yield Input(placeholder="search (/)", id="f-search")
        yield Table(id="trials", cursor_type="row", zebra_stripes=True)
        yield Static("", id="trials-empty", classes="empty-state")
        yield Static("", id="trials-status", classes="hint")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.title = f"Run {self.run_id}"
        table = self.query_one("#trials", DataTable)
        for label, key in [("✓", "reviewed"), ("trial", "id"), ("task", "task"), ("model", "model"),
                           ("official", "official"), ("verdict", "verdict"), ("by", "source"), ("evidence", "evidence")]:
            table.add_column(label, key=key)
        table.focus()
        self.watch(table, "scroll_y", self._scrolled, init=False)
        self.audit_changed(self.run_id)
        self.reload()

    # ------------------------------------------------------------------ data

    def reload(self) -> None:
        """Read the first page again (filters changed, or the store did)."""
        filters, run_id, facets = self.filters.query(), self.run_id, not self.facets_loaded
        self.loading = True

        active = self.filters.active()

        def read(store) -> Page:
            rows, total = read_page(store, run_id, filters, 0, PAGE)
            return Page(
                rows=rows,
                offset=0,
                total=total,
                summary=store.summary(run_id),
                facets=store.trial_facets(run_id) if facets else {},
                counts=verdict_counts(store, run_id, filters) if active else {},
                malformed={t.id: t.malformed_reason or "the reference fails T0"
                           for t in store.list_tasks(run_id) if t.malformed},
            )

        load(self, "trials page", read, self._show_page)

    def _load_more(self) -> None:
        if self.loading or len(self.rows) >= self.total:
            return
        self.loading = True
        filters, run_id, offset = self.filters.query(), self.run_id, len(self.rows)
        load(self, "trials page",
             lambda store: Page(read_page(store, run_id, filters, offset, PAGE)[0], offset),
             self._show_page)

    def _show_page(self, page: Page) -> None:
        self.loading = False
        table = self.query_one("#trials", DataTable)
        keep = self.highlighted() if page.offset == 0 else None
        if page.offset == 0:
            self.total = page.total or 0
            self.malformed = page.malformed
        elif page.offset != len(self.rows):
            return  # a stale page of an earlier query
        if page.summary is not None:
            self.summary = page.summary
            self.query_one("#run-summary", Static).update(summary_line(page.summary))
            self.audit_changed(self.run_id)  # the done line says what the header says
            line = self.query_one("#filter-summary", Static)
            line.display = self.filters.active()
            if self.filters.active():
                line.update(filtered_line(self.filters, self.total, page.summary.trials, page.counts))
        if page.facets:
            self.facets_loaded = True
            self.query_one("#f-task", Select).set_options(
                [(f"{t} (malformed)" if t in page.malformed else t, t) for t in page.facets["task"]])
            self.query_one("#f-model", Select).set_options([(m, m) for m in page.facets["model"] if m])
        if page.offset == 0 and [r.id for r in page.rows] == [r.id for r in self.rows[:len(page.rows)]]:
            self._update_in_place(page.rows)  # the same trials: the table never blanks on a refresh
        else:
            if page.offset == 0:
                self.rows = []
                table.clear()
            for row in page.rows:
                table.add_row(*self._cells(row), key=row.id)
            self.rows.extend(page.rows)
        if keep is not None:
            index = next((i for i, r in enumerate(self.rows) if r.id == keep.id), None)
            if index is not None and index != table.cursor_row:
                table.move_cursor(row=index, animate=False)
        self._status()
        if self.pending_find is not None:
            find, self.pending_find = self.pending_find, None
            self._find(find)

    def _update_in_place(self, rows: list[TrialRow]) -> None:
        """Re-read rows of the trials already shown: each changed cell updated, later pages dropped
        (they are read again as the cursor nears them)."""
        table = self.query_one("#trials", DataTable)
        keys = [str(c.key.value) for c in table.columns.values()]
        for old, new in zip(self.rows, rows):
            if old != new:
                for key, before, after in zip(keys, self._cells(old), self._cells(new)):
                    if str(before) != str(after) or getattr(before, "style", None) != getattr(after, "style", None):
                        table.update_cell(new.id, key, after, update_width=True)
        for stale in self.rows[len(rows):]:
            table.remove_row(stale.id)
        self.rows = list(rows)

    def _cells(self, row: TrialRow) -> list[Any]:
        task: Text | str = row.task_id
        if row.task_id in self.malformed:
            task = Text.assemble(row.task_id, " ", theme_text(self.app, "malformed", "warning", bold=True))
        return [
            Text("✓" if row.reviewed else "", style="bold"),
            row.id,
            task,
            row.model,
            row.official,
            verdict_text(self.app, row.verdict),
            f"analyst #{row.ruling_id}" if row.ruling_id and row.verdict_source == "analyst" else row.verdict_source,
            str(row.evidence) if row.evidence else "",
        ]

    def _status(self) -> None:
        shown = len(self.rows)
        text = f"{shown} of {counted(self.total, 'trial')}" if shown < self.total else counted(self.total, "trial")
        empty = self.query_one("#trials-empty", Static)
        table = self.query_one("#trials", DataTable)
        empty.display = not self.rows
        table.display = bool(self.rows)
        if not self.rows:
            empty.update("No trials match these filters — c clears them." if self.filters.active()
                         else "This run has no trials.")
        self.query_one("#trials-status", Static).update(
            text + " · Enter opens a trial · f next refutation · F1 help")

    def store_changed(self, run_id: str) -> None:
        if run_id == self.run_id:
            self.reload()

    def audit_changed(self, run_id: str) -> None:
        """The audit bar: a running audit's progress, an interrupted one's offer, a finished one's summary."""
        if run_id != self.run_id:
            return
        job = self.app.audits.jobs.get(run_id)
        interrupted = self.app.interrupted.get(run_id)
        bar = self.query_one("#audit-bar")
        progress = self.query_one("#audit-progress", ProgressBar)
        status = self.query_one("#audit-status", Static)
        running = job is not None and job.status in ("running", "cancelling")
        elsewhere = interrupted is not None and bool(interrupted.elsewhere)
        bar.display = running or interrupted is not None or (job is not None and bool(job.summary))
        progress.display = running or (elsewhere and interrupted.percent is not None)
        if running:
            progress.update(total=max(job.progress.total if job.progress else 1, 1),
                            progress=job.progress.done if job.progress else 0)
            status.update(f"audit {job.status}: {job.describe()}  (C cancels; finished steps stay)")
        elif elsewhere:
            progress.update(total=100, progress=interrupted.percent or 0)
            status.update(interrupted.describe())
        elif interrupted is not None:
            status.update(theme_text(self.app, interrupted.describe(), "warning", bold=True))
        elif job is not None and job.summary:
            # the header's summary, read with this page, not the one announced when the audit ended:
            # a ruling since then has moved the counts
            status.update(f"audit {job.status}: {outcome_line(self.summary) if self.summary else job.summary}")

    # ------------------------------------------------------------------ filters

    def on_select_changed(self, event: Select.Changed) -> None:
        value = None if event.value is Select.NULL else str(event.value)
        name = (event.select.id or "").removeprefix("f-")
        if name == "evidence":
            name = "evidence_kind"
        if name == "sort":
            value = value or "seq"
        if name in Filters.__dataclass_fields__ and getattr(self.filters, name) != value:
            setattr(self.filters, name, value)
            self.refresh_bindings()
            self.reload()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filters" and not self.filters.active():
            return None  # shown only while a filter is on (c still says "no filter is on")
        return True

    def action_clear_filters(self) -> None:
        if not self.filters.active():
            self.notify("no filter is on", timeout=3)
            return
        sort = self.filters.sort
        self.filters = Filters(sort=sort)
        with self.prevent(Select.Changed):
            for name in ("#f-verdict", "#f-task", "#f-model", "#f-evidence"):
                self.query_one(name, Select).clear()
        self.query_one("#f-search", Input).value = ""
        self.query_one("#trials", DataTable).focus()
        self.refresh_bindings()
        self.reload()

    def on_input_changed(self, event: Input.Changed) -> None:
        """Search as you type: the list follows once typing pauses (a timer restarted on each key),
        and a newer query supersedes an older one still reading (``load``'s exclusive group)."""
        if event.input.id != "f-search":
            return
        if self.search_timer is not None:
            self.search_timer.stop()
        self.search_timer = self.set_timer(SEARCH_PAUSE, lambda: self._search(event.value))

    def _search(self, text: str) -> None:
        wanted = text.strip() or None
        if wanted != self.filters.search:
            self.filters.search = wanted
            self.refresh_bindings()
            self.reload()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "f-search":
            if self.search_timer is not None:
                self.search_timer.stop()
            self._search(event.value)
            self.query_one("#trials", DataTable).focus()

    # ------------------------------------------------------------------ table events

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row >= len(self.rows) - PAGE // 5:
            self._load_more()

    def _scrolled(self, scroll_y: float) -> None:
        table = self.query_one("#trials", DataTable)
        if scroll_y + table.size.height >= table.virtual_size.height - PAGE // 5:
            self._load_more()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            self.open_trial(event.row_key.value)

    def open_trial(self, trial_id: str) -> None:
        from testjack_tui.app.screens.trial import TrialScreen

        self.app.push_screen(TrialScreen(self.run_id, trial_id))

    def highlighted(self) -> TrialRow | None:
        table = self.query_one("#trials", DataTable)
        if not self.rows or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row]

    # ------------------------------------------------------------------ triage

    def _find(self, wanted: Callable[[TrialRow], bool]) -> None:
        table = self.query_one("#trials", DataTable)
        start = table.cursor_row + 1
        for index in range(start, len(self.rows)):
            if wanted(self.rows[index]):
                table.move_cursor(row=index, scroll=True)
                return
        if len(self.rows) < self.total:
            self.pending_find = wanted  # look on in the next page when it arrives
            self._load_more()
            return
        # past the last trial: from the top again, up to the cursor
        for index in range(0, min(start, len(self.rows))):
            if wanted(self.rows[index]):
                table.move_cursor(row=index, scroll=True)
                self.notify("from the top again", timeout=2)
                return
        self.notify("no such trial in this list", timeout=3)

    def action_next_unreviewed(self) -> None:
        self._find(lambda r: not r.reviewed)

    def action_next_refuted(self) -> None:
        self._find(lambda r: r.verdict in REFUTING)

    def action_mark_reviewed(self) -> None:
        row = self.highlighted()
        if row is None:
            return
        row.reviewed = not row.reviewed
        table = self.query_one("#trials", DataTable)
        table.update_cell(row.id, "reviewed", Text("✓" if row.reviewed else "", style="bold"))
        run_id, trial_id, value = self.run_id, row.id, row.reviewed
        load(self, f"mark {trial_id}", lambda store: store.set_reviewed(run_id, trial_id, value), lambda _: None,
             exclusive=False)

    def action_search(self) -> None:
        self.query_one("#f-search", Input).focus()

    def action_filters(self) -> None:
        self.query_one("#f-verdict", Select).focus()

    def action_back(self) -> None:
        if isinstance(self.focused, (Input, Select)):  # Esc leaves the field, not the screen
            self.query_one("#trials", DataTable).focus()
            return
        self.app.pop_screen()

    def action_refresh(self) -> None:
        self.reload()

    def action_audit(self) -> None:
        self.app.audit_form(self.run_id)

    def action_cancel_audit(self) -> None:
        self.app.cancel_run_audit(self.run_id)

    def action_override(self) -> None:
        row = self.highlighted()
        if row is not None:
            override_with_form(self, self.run_id, row.id, row.verdict)

    def action_manual_witness(self) -> None:
        row = self.highlighted()
        if row is not None:
            from testjack_tui.app.screens.manual import ManualWitnessScreen

            self.app.push_screen(ManualWitnessScreen(self.run_id, row.id))
