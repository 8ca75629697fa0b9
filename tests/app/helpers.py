"""What the console tests share: waiting for the thread workers and the messages they post (without
sleeping), opening a trial, and reading a table's cell or a widget's text as the analyst sees it."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import DataTable, Static
from textual.worker import WorkerCancelled

from testjack_tui.app.screens.trial import TrialScreen


async def settle(pilot: Pilot, rounds: int = 20) -> None:
    """Wait until no worker runs and every message they posted has been handled."""
    app = pilot.app
    for _ in range(rounds):
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:  # an exclusive loader replaced by a newer one: wait for that one
            continue
        await pilot.pause()
        for drawing in _prompts_drawing(app):
            await drawing
        if not any(w.is_running for w in app.workers):
            await pilot.pause()
            # that pause may have handled a loader's last message, which starts drawing a prompt
            if not any(w.is_running for w in app.workers) and not _tables_measuring(app) \
                    and not _prompts_drawing(app):
                return


def _prompts_drawing(app) -> list:  # type: ignore[no-untyped-def]
    """The trial prompts still being drawn: Markdown parses them in a thread and mounts them in the
    background (a picture taken before shows an empty Prompt tab on a busy machine)."""
    drawings = (getattr(screen, "prompt_drawing", None) for screen in app.screen_stack)
    return [d for d in drawings if d is not None and not d.is_done]


def _tables_measuring(app) -> bool:  # type: ignore[no-untyped-def]
    """Whether a table still has rows whose column widths it measures when its queue is idle
    (Textual's DataTable does that in ``_on_idle``; a picture taken before shows cut columns)."""
    tables = [t for screen in app.screen_stack for t in screen.query(DataTable)]
    return any(t._require_update_dimensions or t._updated_cells for t in tables)


async def open_trial(pilot: Pilot, trial_id: str) -> TrialScreen:
    """Open a trial from the trial list, as Enter on its row does, and wait until it is drawn."""
    await settle(pilot)
    pilot.app.screen.open_trial(trial_id)
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, TrialScreen) and screen.trial_id == trial_id
    return screen


def cell(table: DataTable, row: int, column: str) -> str:
    """A cell's text without its styles, the column named by its key."""
    value = table.get_cell_at((row, table.get_column_index(column)))
    return str(getattr(value, "plain", value))


def text_of(widget: Static) -> str:
    return widget.render().plain
