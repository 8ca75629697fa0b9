"""The TestJack review console: the App, its themes, its command palette, and its audit jobs.

Screens read the store in thread workers (``workers.load``); audits run in thread workers with
their own Store (``workers.AuditJobs``) and report through messages, so the UI thread never
waits on SQLite or a subprocess.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen

from testjack_tui.app.messages import AuditFinished, AuditProgress, Loaded, LoadFailed, StoreChanged
from testjack_tui.app.settings import DEFAULT_THEME, Settings
from testjack_tui.app.workers import AuditJobs, load
from testjack_tui.audit import AuditOptions
from themes.testjack import STYLESHEET, THEMES, VARIABLE_DEFAULTS

EXPORT_FORMATS = {"md": "Markdown", "html": "HTML", "json": "JSON"}


class TestJackApp(App[None]):
    __test__ = False  # not a pytest class, despite its name
    CSS_PATH = STYLESHEET
    TITLE = "TestJack"
    SUB_TITLE = "review console"
    BINDINGS = [
        Binding("ctrl+t", "toggle_dark", "Light/dark", tooltip="Switch between the TestJack dark and light themes"),
        Binding("ctrl+e", "export('md')", "Export", tooltip="Export the curated report of this run (Markdown)"),
        Binding("ctrl+r", "rulings", "Rulings", tooltip="The rulings queue and history of this run"),
        Binding("ctrl+l", "leaderboard", "Leaderboard",
                tooltip="The corrected leaderboard of this run: resolution before and after, 95% intervals, ranks"),
        Binding("f1", "show_help_panel", "Keys", show=False),
    ]

    def __init__(self, store_path: str | Path, run_id: str | None = None, audit: bool = False) -> None:
        super().__init__()
        self.store_path = str(store_path)
        self.start_run = run_id
        self.start_audit = audit
        self.settings = Settings.load()
        self.audits = AuditJobs(self)
        self.exported: list[Path] = []  # reports written this session, newest last

    # ------------------------------------------------------------------ themes and settings

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **VARIABLE_DEFAULTS}

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        wanted = self.settings.theme
        self.theme = wanted if wanted in self.available_themes else DEFAULT_THEME
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        from testjack_tui.app.screens.runs import RunsScreen

        self.push_screen(RunsScreen())
        if self.start_run:
            self.open_run(self.start_run)
            if self.start_audit:
                self.start_run_audit(self.start_run, AuditOptions())

    def _remember_theme(self, theme) -> None:
        if self.settings.theme != theme.name:
            self.settings.theme = theme.name
            try:
                self.settings.save()
            except OSError as exc:
                self.notify(f"could not remember the theme: {exc}", severity="warning")

    def action_toggle_dark(self) -> None:
        self.theme = "testjack-light" if self.current_theme.dark else "testjack-dark"

    # ------------------------------------------------------------------ navigation

    def open_run(self, run_id: str) -> None:
        from testjack_tui.app.screens.trials import TrialsScreen

        self.push_screen(TrialsScreen(run_id))

    def current_run(self) -> str | None:
        """The run the analyst is looking at: the screen's run, or the run highlighted in the list."""
        for screen in reversed(self.screen_stack):
            run_id = getattr(screen, "run_id", None)
            if run_id:
                return run_id
        return None

    def action_rulings(self) -> None:
        from testjack_tui.app.screens.rulings import RulingsScreen

        run_id = self.current_run()
        if not run_id:
            self.notify("pick a run first", severity="warning")
            return
        if isinstance(self.screen, RulingsScreen):
            return
        self.push_screen(RulingsScreen(run_id))

    def action_leaderboard(self) -> None:
        from testjack_tui.app.screens.leaderboard import LeaderboardScreen

        run_id = self.current_run()
        if not run_id:
            self.notify("pick a run first", severity="warning")
            return
        if isinstance(self.screen, LeaderboardScreen):
            return
        self.push_screen(LeaderboardScreen(run_id))

    # ------------------------------------------------------------------ audits

    def start_run_audit(self, run_id: str, options: AuditOptions) -> None:
        if self.audits.start(run_id, options) is None:
            self.notify(f"{run_id} is already being audited", severity="warning")
            return
        self.notify(f"auditing {run_id}: {options.mode}, author {options.author}, {options.rounds} round(s)")
        self._tell_screens("audit_changed", run_id)

    def cancel_run_audit(self, run_id: str) -> None:
        if self.audits.cancel(run_id):
            self.notify(f"cancelling the audit of {run_id}; finished steps stay in the store")
        else:
            self.notify(f"no audit of {run_id} is running", severity="warning")
        self._tell_screens("audit_changed", run_id)

    def on_audit_progress(self, message: AuditProgress) -> None:
        job = self.audits.jobs.get(message.run_id)
        finished_a_step = False
        if job is not None:
            before = job.progress.done if job.progress is not None else -1
            job.progress = message.progress
            finished_a_step = message.progress.done != before
        self._tell_screens("audit_changed", message.run_id)
        if finished_a_step:
            # Each finished step may have refuted trials: let the screens re-read the store, so
            # counts and verdicts grow while the audit runs (the reads happen in workers).
            self._tell_screens("store_changed", message.run_id)

    def on_audit_finished(self, message: AuditFinished) -> None:
        job = self.audits.jobs.get(message.run_id)
        if job is not None:
            job.status = message.status
        if message.status == "failed":
            self.notify(f"the audit of {message.run_id} failed: {message.error}", severity="error", timeout=15)
        else:
            self.notify(f"the audit of {message.run_id} is {message.status}")
        self._tell_screens("audit_changed", message.run_id)
        self._tell_screens("store_changed", message.run_id)

    def on_store_changed(self, message: StoreChanged) -> None:
        self._tell_screens("store_changed", message.run_id)

    def _tell_screens(self, method: str, run_id: str) -> None:
        for screen in self.screen_stack:
            handler = getattr(screen, method, None)
            if handler is None:
                continue
            try:
                handler(run_id)
            except NoMatches:  # the screen is not composed yet; it reads the state when it mounts
                pass

    async def on_unmount(self) -> None:
        self.audits.cancel_all()

    # ------------------------------------------------------------------ results of thread workers

    def on_loaded(self, message: Loaded) -> None:
        message.apply(message.result)

    def on_load_failed(self, message: LoadFailed) -> None:
        self.notify(f"{message.what}: {message.error}", severity="error", timeout=12)

    # ------------------------------------------------------------------ export

    def action_export(self, fmt: str = "md") -> None:
        run_id = self.current_run()
        if not run_id:
            self.notify("pick a run first", severity="warning")
            return
        target = Path(self.store_path).resolve().parent / f"{run_id}-report.{fmt}"

        def write(store) -> Path:
            from testjack_tui.report import build_report, render

            text = render(build_report(store, run_id), fmt)
            target.write_text(text, encoding="utf-8")
            return target

        def done(path: Path) -> None:
            self.exported.append(path)
            self.notify(f"{EXPORT_FORMATS[fmt]} report written to {path}", title="Export", timeout=10)

        load(self, f"export {fmt}", write, done)

    # ------------------------------------------------------------------ command palette

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for fmt, label in EXPORT_FORMATS.items():
            yield SystemCommand(
                f"Export report as {label}", f"Write the curated {label} report of the current run beside the store",
                partial(self.action_export, fmt),
            )
        for theme in THEMES:
            yield SystemCommand(
                f"Theme: {theme.name}", "Switch to this theme (remembered)", partial(setattr, self, "theme", theme.name)
            )
        seen: set[str] = {"Export report", "Theme", "Quit", "Keys"}
        # Every binding of the screen (and its focused widgets) with a description, so each
        # action can be found by name as well as by key.
        for key, active in screen.active_bindings.items():
            binding = active.binding
            title = binding.description
            if not title or title in seen or binding.action in ("command_palette", "quit"):
                continue
            seen.add(title)
            yield SystemCommand(
                title, f"{binding.tooltip or binding.action}  [{binding.key_display or key}]",
                partial(self.run_action, binding.action, active.node),
            )
