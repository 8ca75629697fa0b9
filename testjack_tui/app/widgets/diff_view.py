"""Side-by-side diff of the reference's and the trial's version of each changed file.

Rows come from ``testjack_tui.app.sidebyside`` (difflib); code is highlighted with pygments
through rich's ``Syntax`` (one lexer pass per file), and the changed rows get the theme's
``$diff-*`` backgrounds. Built on DataTable so that a 5,000-line file scrolls smoothly and the
cursor can jump to an evidence item's line.
"""

from __future__ import annotations

from functools import lru_cache

from pygments.lexers import get_lexer_for_filename
from pygments.util import ClassNotFound
from rich.syntax import Syntax
from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from testjack_tui.app.sidebyside import CONTEXT, FilePair, Row, align_files

BACKGROUND = {"replace": "diff-changed", "delete": "diff-removed", "insert": "diff-added"}


@lru_cache(maxsize=64)
def _lexer_name(path: str) -> str:
    # By file name only: guessing from content would import every pygments lexer (seconds).
    try:
        return get_lexer_for_filename(path).aliases[0]
    except ClassNotFound:
        return "text"


@lru_cache(maxsize=32)
def _highlight(path: str, text: str | None, dark: bool) -> list[Text]:
    if not text:
        return []
    lexer = _lexer_name(path)
    syntax = Syntax(text, lexer, theme="monokai" if dark else "default", background_color="default")
    return syntax.highlight(text).split("\n", allow_blank=True)


class DiffView(DataTable):
    """Reference (left) against trial (right), aligned line by line."""

    BINDINGS = [Binding("z", "toggle_context", "Fold/unfold", tooltip="Show whole files or only the changes")]

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        self.pairs: list[FilePair] = []
        self.context: int | None = CONTEXT
        self.rows_shown: list[tuple[str, Row]] = []

    def on_mount(self) -> None:
        self.add_column("ref", key="left_no")
        self.add_column("reference", key="left")
        self.add_column("trial", key="right_no")
        self.add_column("the trial's patch", key="right")
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._render_rows())

    def show(self, pairs: list[FilePair]) -> None:
        self.pairs = pairs
        self._render_rows()

    def action_toggle_context(self) -> None:
        self.context = None if self.context is not None else CONTEXT
        self._render_rows()

    def _render_rows(self) -> None:
        self.clear()
        context = self.context if self.context is not None else 10**9
        self.rows_shown = align_files(self.pairs, context)
        dark = self.app.current_theme.dark
        variables = self.app.get_css_variables()
        lit: dict[str, tuple[list[Text], list[Text]]] = {
            p.path: (_highlight(p.path, p.left, dark), _highlight(p.path, p.right, dark)) for p in self.pairs
        }
        for index, (path, row) in enumerate(self.rows_shown):
            if row.kind == "file":
                cells = [Text(""), Text(row.left, style="bold reverse"), Text(""), Text("")]
            elif row.kind == "fold":
                cells = [Text("⋯"), Text(row.left, style="italic dim"), Text("⋯"), Text("")]
            else:
                left_lines, right_lines = lit[path]
                bg = variables.get(BACKGROUND.get(row.kind, ""), "")
                style = f"on {bg}" if bg else ""
                cells = [
                    Text(str(row.left_no or ""), style="dim"),
                    _line(left_lines, row.left_no, row.left, style),
                    Text(str(row.right_no or ""), style="dim"),
                    _line(right_lines, row.right_no, row.right, style),
                ]
            self.add_row(*cells, key=str(index))

    def jump_to(self, path: str, line: int) -> bool:
        """Put the cursor on ``line`` of the trial's ``path`` (or the nearest shown row after it)."""
        best = None
        for index, (p, row) in enumerate(self.rows_shown):
            if p != path:
                continue
            if best is None and row.kind == "file":
                best = index
            if row.right_no is not None and row.right_no >= line:
                best = index
                break
            if row.kind == "fold" and line > 0:
                best = index
        if best is None:
            return False
        self.move_cursor(row=best, scroll=True)
        return True

    def current_location(self) -> tuple[str, int | None]:
        if not self.rows_shown:
            return "", None
        path, row = self.rows_shown[self.cursor_row]
        return path, row.right_no


def _line(lines: list[Text], number: int | None, raw: str, style: str) -> Text:
    if number is None:
        return Text("", style=style)
    text = lines[number - 1].copy() if 0 < number <= len(lines) else Text(raw)
    if style:
        text.stylize(style)
    return text
