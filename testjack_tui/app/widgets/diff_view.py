"""Side-by-side diff of the reference's and the trial's version of each changed file.

Rows come from ``testjack_tui.review.sidebyside`` (difflib); code is highlighted with pygments
through rich's ``Syntax`` (one lexer pass per file), and the changed rows get the theme's
``$diff-*`` backgrounds. Built on DataTable so that a 5,000-line file scrolls smoothly and the
cursor can jump to an evidence item's line.

Side by side needs room: below ``STACK_BELOW`` columns the view stacks each change vertically
(the reference's line, then the trial's, marked ``-`` and ``+``), so both stay readable; ``s``
switches by hand. Side by side, the two code columns share the width equally.
"""

from __future__ import annotations

from functools import lru_cache

from pygments.lexers import get_lexer_for_filename
from pygments.util import ClassNotFound
from rich.syntax import Syntax
from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from testjack_tui.app.widgets.table import Table
from testjack_tui.review.sidebyside import CONTEXT, FilePair, Row, align_files

BACKGROUND = {"replace": "diff-changed", "delete": "diff-removed", "insert": "diff-added"}
STACK_BELOW = 120  # columns: narrower than this, the diff stacks


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


class DiffView(Table):
    """Reference (left) against trial (right), aligned line by line."""

    BINDINGS = [
        Binding("z", "toggle_context", "Fold diff", tooltip="Show whole files or only the changes"),
        Binding("s", "toggle_layout", "Diff layout",
                tooltip="Reference and trial side by side, or stacked one above the other"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)
        self.pairs: list[FilePair] = []
        self.context: int | None = CONTEXT
        self.rows_shown: list[tuple[str, Row]] = []
        self.layout_choice: str | None = None  # "side" or "stacked" when chosen with s; else by width
        self.layout_shown = ""
        self.width_shown = 0
        # the display rows: (index into rows_shown, "both" | "left" | "right")
        self.display_rows: list[tuple[int, str]] = []

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._render_rows())

    @property
    def stacked(self) -> bool:
        if self.layout_choice is not None:
            return self.layout_choice == "stacked"
        width = self.size.width or self.app.size.width
        return width < STACK_BELOW

    def on_resize(self) -> None:
        if self.pairs and (self.layout_shown != ("stacked" if self.stacked else "side")
                           or (not self.stacked and abs(self.size.width - self.width_shown) > 2)):
            self._render_rows()

    def show(self, pairs: list[FilePair]) -> None:
        if pairs == self.pairs and self.rows_shown:
            return  # a refresh after a ruling: the same files, drawn already (a big diff takes a while)
        self.pairs = pairs
        self._render_rows()

    def action_toggle_context(self) -> None:
        self.context = None if self.context is not None else CONTEXT
        self._render_rows()

    def action_toggle_layout(self) -> None:
        self.layout_choice = "side" if self.stacked else "stacked"
        self._render_rows()
        self.notify("diff: " + ("stacked (reference line, then trial line)" if self.stacked else "side by side"),
                    timeout=3)

    def _columns(self) -> None:
        self.clear(columns=True)
        self.layout_shown = "stacked" if self.stacked else "side"
        self.width_shown = self.size.width
        if self.stacked:
            self.add_column("ref", key="left_no")
            self.add_column("trial", key="right_no")
            self.add_column("reference (-) above the trial's patch (+)", key="code")
            return
        # two equal code columns in what the line numbers leave (cell padding: 2 a column)
        code = max(20, (self.size.width - 2 * 5 - 8 - 2) // 2) if self.size.width else None
        self.add_column("ref", key="left_no", width=5)
        self.add_column("reference", key="left", width=code)
        self.add_column("trial", key="right_no", width=5)
        self.add_column("the trial's patch", key="right", width=code)

    def _render_rows(self) -> None:
        cursor = self.current_location() if self.display_rows else ("", None)
        self._columns()
        context = self.context if self.context is not None else 10**9
        self.rows_shown = align_files(self.pairs, context)
        self.display_rows = []
        dark = self.app.current_theme.dark
        variables = self.app.get_css_variables()
        lit: dict[str, tuple[list[Text], list[Text]]] = {
            p.path: (_highlight(p.path, p.left, dark), _highlight(p.path, p.right, dark)) for p in self.pairs
        }
        if self.stacked:
            self._render_stacked(lit, variables)
        else:
            self._render_side(lit, variables)
        if cursor[0]:
            self.jump_to(cursor[0], cursor[1] or 0)

    def _render_stacked(self, lit: dict[str, tuple[list[Text], list[Text]]], variables: dict[str, str]) -> None:
        for index, (path, row) in enumerate(self.rows_shown):
            if row.kind == "file":
                self._add(index, "both", [Text(""), Text(""), Text(row.left, style="bold reverse")])
                continue
            if row.kind == "fold":
                self._add(index, "both", [Text("⋯"), Text("⋯"), Text(row.left, style="italic dim")])
                continue
            left_lines, right_lines = lit[path]
            if row.kind == "equal":
                self._add(index, "both", [Text(str(row.left_no or ""), style="dim"),
                                          Text(str(row.right_no or ""), style="dim"),
                                          Text.assemble("  ", _line(left_lines, row.left_no, row.left, ""))])
                continue
            if row.left_no is not None:
                bg = variables.get("diff-removed", "")
                style = f"on {bg}" if bg else ""
                self._add(index, "left", [Text(str(row.left_no), style="dim"), Text(""),
                                          Text.assemble(Text("- ", style=style),
                                                        _line(left_lines, row.left_no, row.left, style))])
            if row.right_no is not None:
                bg = variables.get("diff-added", "")
                style = f"on {bg}" if bg else ""
                self._add(index, "right", [Text(""), Text(str(row.right_no), style="dim"),
                                           Text.assemble(Text("+ ", style=style),
                                                         _line(right_lines, row.right_no, row.right, style))])

    def _add(self, index: int, side: str, cells: list[Text]) -> None:
        self.add_row(*cells, key=str(len(self.display_rows)))
        self.display_rows.append((index, side))

    def _render_side(self, lit: dict[str, tuple[list[Text], list[Text]]], variables: dict[str, str]) -> None:
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
            self._add(index, "both", cells)

    def jump_to(self, path: str, line: int) -> bool:
        """Put the cursor on ``line`` of the trial's ``path`` (or the nearest shown row after it)."""
        best = None
        for shown, (index, side) in enumerate(self.display_rows):
            p, row = self.rows_shown[index]
            if p != path or side == "left":
                continue
            if best is None and row.kind == "file":
                best = shown
            if row.right_no is not None and row.right_no >= line:
                best = shown
                break
            if row.kind == "fold" and line > 0:
                best = shown
        if best is None:
            return False
        self.move_cursor(row=best, scroll=True)
        return True

    def current_location(self) -> tuple[str, int | None]:
        if not self.display_rows or self.cursor_row >= len(self.display_rows):
            return "", None
        index, side = self.display_rows[self.cursor_row]
        path, row = self.rows_shown[index]
        return path, (row.left_no if side == "left" else row.right_no)


def _line(lines: list[Text], number: int | None, raw: str, style: str) -> Text:
    if number is None:
        return Text("", style=style)
    text = lines[number - 1].copy() if 0 < number <= len(lines) else Text(raw)
    if style:
        text.stylize(style)
    return text
