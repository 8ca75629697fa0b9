"""A table filled while the screen is drawn shows its cells whole once it has measured them.

Textual's DataTable measures new rows' column widths when it is next idle; lines drawn before that
were cached at the columns' old widths (a header's) and stayed on screen, cut, until the cursor
moved (textual#4470). On a busy machine the console's trial checklist showed so.
"""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult

from testjack_tui.app.widgets.table import Table


class _OneTable(App):
    def compose(self) -> ComposeResult:
        yield Table(cursor_type="row")

    def on_mount(self) -> None:
        self.query_one(Table).add_columns("kind", "requirement")


def _line(table: Table, y: int) -> str:
    return "".join(segment.text for segment in table.render_line(y))


async def test_a_line_drawn_before_the_widths_were_measured_is_drawn_again() -> None:
    app = _OneTable()
    async with app.run_test(size=(80, 10)):
        table = app.query_one(Table)
        table.add_row("stated", "A size below 1 raises ValueError.")
        assert "A size below 1" not in _line(table, 1)  # drawn before measuring: cut at "requirement"
        # what the table does when next idle (measure the new row), without the resize that follows
        # it and used to be the only thing that dropped the cut lines
        await table._on_idle(events.Idle())
        assert "stated" in _line(table, 1) and "A size below 1 raises ValueError." in _line(table, 1)
