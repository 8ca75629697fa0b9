"""The TestJack review console: the App, its themes, its command palette, and its audit jobs.

Screens read the store in thread workers (``workers.load``); audits run in thread workers with
their own Store (``workers.AuditJobs``) and report through messages, so the UI thread never
waits on SQLite or a subprocess. What the console does about audits (start, resume, cancel,
progress, interrupted or running elsewhere) is in ``audit_control``.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.markup import escape
from textual.css.query import NoMatches
from textual.screen import Screen

from testjack_tui.app.audit_control import AuditControl
from testjack_tui.app.typeahead import DialogTypeahead
from testjack_tui.review.lifecycle import Interrupted
from testjack_tui.app.messages import Loaded, LoadFailed, StoreChanged
from testjack_tui.settings import DEFAULT_THEME, Settings
from testjack_tui.app.workers import AuditJobs, load
from testjack_tui.audit import AuditOptions
from testjack_tui.themes.testjack import STYLESHEET, THEMES, VARIABLE_DEFAULTS

EXPORT_FORMATS = {"md": "Markdown", "html": "HTML", "json": "JSON"}


class TestJackApp(DialogTypeahead, AuditControl, App[None]):
    __test__ = False  # not a pytest class, despite its name
    CSS_PATH = STYLESHEET
    TITLE = "TestJack"
    SUB_TITLE = "review console"
    BINDINGS = [
        # in the palette and the help, out of the footer (it has no room to spare at 160 columns)
        Binding("ctrl+t", "toggle_dark", "Light/dark", show=False,
                tooltip="Switch between the TestJack dark and light themes"),
        Binding("ctrl+e", "export('md')", "Export", tooltip="Export the curated report of this run (Markdown)"),
        Binding("ctrl+r", "rulings", "Rulings", tooltip="The rulings queue and history of this run"),
        Binding("ctrl+l", "leaderboard", "Leaderboard",
                tooltip="The corrected leaderboard of this run: resolution before and after, 95% intervals, ranks"),
        Binding("f1", "help", "Help", tooltip="What this screen is for, and its keys (F1 or ? again closes it)",
                priority=True),
        Binding("ctrl+p", "command_palette", "Palette", tooltip="Every command of the console, by name",
                priority=True),
        Binding("question_mark", "help", "Help", key_display="?", show=False,
                tooltip="What this screen is for, and its keys (? or F1 again closes it)"),
    ]

    def __init__(self, store_path: str | Path, run_id: str | None = None, audit: bool = False,
                 analyst: str | None = None, executor: str = "local", ray_address: str | None = None) -> None:
        super().__init__()
        self.store_path = str(store_path)
        self.start_run = run_id
        self.start_audit = audit
        self.given_analyst = analyst  # --by NAME: wins over $TESTJACK_ANALYST and the settings
        self.settings = Settings.load()
        # where every audit of this session runs its tests (--executor, --ray-address): the
        # console stays the store's only writer either way
        self.audits = AuditJobs(self, executor=executor, ray_address=ray_address)
        self.interrupted: dict[str, Interrupted] = {}  # runs whose last audit did not finish
        self.exported: list[Path] = []  # reports written this session, newest last

    def analyst(self) -> str:
        """The name stored on the analyst's rulings (--by, $TESTJACK_ANALYST, the settings, $USER)."""
        return self.settings.analyst_name(self.given_analyst)

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
        self._look_for_interrupted_audits()

    def _remember_theme(self, theme) -> None:
        if self.settings.theme != theme.name:
            self.settings.theme = theme.name
            try:
                self.settings.save()
            except OSError as exc:
                self.notify(f"could not remember the theme: {exc}", severity="warning")

    def action_toggle_dark(self) -> None:
        self.theme = "testjack-light" if self.current_theme.dark else "testjack-dark"

    def action_settings(self) -> None:
        from testjack_tui.app.screens.forms import SettingsForm

        note = ""
        source = self.settings.analyst_source(self.given_analyst)
        if source in ("--by on the command line", "$TESTJACK_ANALYST"):
            note = f"Rulings are stored as {self.analyst()!r}, from {source}, whatever is saved here."

        def chosen(result: tuple[str, bool] | None) -> None:
            if result is None:
                return
            self.settings.analyst, self.settings.resume_audits = result
            try:
                self.settings.save()
            except OSError as exc:
                self.notify(f"could not save the settings: {exc}", severity="error")
                return
            resume = "resumed by itself" if self.settings.resume_audits else "offered with a key"
            self.notify(f"settings saved: rulings by {self.analyst()}; an interrupted audit is {resume}")

        self.push_screen(SettingsForm(self.settings.analyst or self.analyst(), self.settings.resume_audits, note),
                         chosen)

    # ------------------------------------------------------------------ help and quitting

    def action_help(self) -> None:
        """Open the help of the screen underneath; F1 or ? again closes it."""
        from testjack_tui.app.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
            return
        self.push_screen(HelpScreen(self.screen))

    async def action_quit(self) -> None:
        """Quit at once, or ask first while an audit runs (it would stop; finished steps stay)."""
        jobs = self.audits.running_jobs()
        if not jobs:
            self.exit()
            return
        from testjack_tui.app.screens.forms import ConfirmDialog

        if isinstance(self.screen, ConfirmDialog):
            return
        running = "; ".join(f"{j.run_id} at {100 * j.fraction:.0f}% ({j.describe()})" for j in jobs)
        body = (f"An audit is running: {running}.\n\nQuitting stops it. Every finished step stays in the store; "
                "the next time you open the console it says where the audit stopped, and a resumes it.")

        def answered(quit_: bool | None) -> None:
            if quit_:
                self.audits.cancel_all()
                self.exit()

        self.push_screen(ConfirmDialog("Quit while auditing?", body, yes="Quit", no="Keep auditing"), answered)

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
        """The console's own commands only: Textual's widget actions (scroll_bottom, focus_next...)
        and its key panel are left out; its theme picker and quit stay, in the console's words."""
        yield SystemCommand("Help", "What this screen is for, and its keys  [F1, ?]", self.action_help)
        yield SystemCommand("Settings", "The analyst's name on rulings; whether interrupted audits resume by "
                            "themselves", self.action_settings)
        yield SystemCommand("Theme", "Pick any theme, Textual's built-in ones too (remembered)",
                            self.action_change_theme)
        yield SystemCommand("Quit", "Quit the console (asks first while an audit runs)  [ctrl+q]", self.action_quit)
        for fmt, label in EXPORT_FORMATS.items():
            yield SystemCommand(
                f"Export report as {label}", f"Write the curated {label} report of the current run beside the store",
                partial(self.action_export, fmt),
            )
        for theme in THEMES:
            yield SystemCommand(
                f"Theme: {theme.name}", "Switch to this theme (remembered)", partial(setattr, self, "theme", theme.name)
            )
        seen: set[str] = {"Export report", "Theme", "Quit", "Help", "Settings"}
        # Every binding of the console's own screens and widgets with a description, so each
        # action can be found by name as well as by key; Textual's own widget bindings are not
        # the console's commands.
        for key, active in screen.active_bindings.items():
            binding = active.binding
            title = binding.description
            if not title or title in seen or binding.action in ("command_palette", "app.command_palette", "quit", "help", "app.help"):
                continue
            if not _own_binding(active.node, binding):
                continue
            seen.add(title)
            yield SystemCommand(  # the help is markup: a key such as "/" in brackets is escaped
                title, escape(f"{binding.tooltip or binding.action}  [{binding.key_display or key}]"),
                partial(self.run_action, binding.action, active.node),
            )


def _own_binding(node, binding: Binding) -> bool:
    """Whether ``binding`` is declared by one of TestJack's classes (the app, a screen, a widget)."""
    for cls in type(node).__mro__:
        if not cls.__module__.startswith("testjack_tui."):
            continue
        if any(isinstance(b, Binding) and b.action == binding.action
               and binding.key in [k.strip() for k in b.key.split(",")]
               for b in cls.__dict__.get("BINDINGS", [])):
            return True
    return False
