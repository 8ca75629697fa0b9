"""The console's tables: a DataTable whose Home and End move a row cursor to the first and last row,
and whose lines are drawn again as soon as it has measured its columns.

Textual's DataTable binds Home and End to the first and last *column* (a row cursor only scrolls
sideways), so in a table of trials or witnesses Home did nothing visible; ctrl+home and ctrl+end
keep Textual's meaning.

It measures new rows' column widths when it is next idle, and lines drawn before that are cached
at the old widths (a header's) until a later event (its resize) drops them (textual#4470): a
screen drawn in between showed every cell cut, as a snapshot of the trial checklist did on a busy
machine. A change of width now drops those lines at once.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.widgets import DataTable
from textual.widgets.data_table import RowKey


class Table(DataTable):
    _measured_widths: tuple[int, ...] = ()  # the columns' widths when it last measured them

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        super()._update_dimensions(new_rows)
        widths = tuple(column.get_render_width(self) for column in self.ordered_columns)
        if widths != self._measured_widths:
            self._measured_widths = widths
            self._clear_caches()
            self.refresh()

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
