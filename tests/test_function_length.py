"""No function longer than 60 lines in the product code (issue 42: short procedures).

A function's length is its definition's span in the source, decorators excluded and docstring
included (``end_lineno - lineno + 1``), read with ``ast``. Nested functions and methods count on
their own, and also inside the function that holds them. The one exception is the CLI's argument
declarations: a flat list of ``add_argument`` calls that reads best as one page.
"""

from __future__ import annotations

import ast
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("testjack_tui", "store", "themes")
LIMIT = 60
EXEMPT = {"testjack_tui/cli/parser.py::build_parser"}


def long_functions() -> list[str]:
    """``path::Qualified.name (N lines)`` for every function over the limit."""
    found = []

    def visit(node: ast.AST, path: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                where = f"{path}::{prefix}{child.name}"
                length = child.end_lineno - child.lineno + 1
                if length > LIMIT and where not in EXEMPT:
                    found.append(f"{where} ({length} lines)")
                visit(child, path, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, path, f"{prefix}{child.name}.")
            else:
                visit(child, path, prefix)

    for folder in FOLDERS:
        for file in sorted((ROOT / folder).rglob("*.py")):
            visit(ast.parse(file.read_text(encoding="utf-8")), file.relative_to(ROOT).as_posix(), "")
    return found


def test_no_function_over_60_lines():
    too_long = long_functions()
    assert not too_long, f"functions over {LIMIT} lines:\n" + "\n".join(too_long)


def test_the_exemption_still_names_a_function():
    # a renamed or moved build_parser would leave the exemption pointing at nothing
    path, _, name = next(iter(EXEMPT)).partition("::")
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    assert name in {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
