"""The console's tables: a DataTable whose Home and End move a row cursor to the first and last row.

Textual's DataTable binds Home and End to the first and last *column* (a row cursor only scrolls
sideways), so in a table of trials or witnesses Home did nothing visible; ctrl+home and ctrl+end
keep Textual's meaning.
"""

from __future__ import annotations

from textual.widgets import DataTable


class Table(DataTable):
    def action_scroll_home(self) -> None:
        if self.cursor_type == "row" and self.show_cursor:
            self.action_scroll_top()
        else:
            super().action_scroll_home()

    def action_scroll_end(self) -> None:
        if self.cursor_type == "row" and self.show_cursor:
            self.action_scroll_bottom()
        else:
            super().action_scroll_end()
