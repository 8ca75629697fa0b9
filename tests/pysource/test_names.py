"""The one reading of an expression's name, as the detectors and authors rely on it."""

import ast

import pytest

from testjack_tui.pysource.names import dotted_name, name_of


def expr(source: str) -> ast.expr:
    return ast.parse(source, mode="eval").body


@pytest.mark.parametrize("source, rooted, unrooted, last", [
    ("os.environ.get", "os.environ.get", "os.environ.get", "get"),
    ("print", "print", "print", "print"),
    # a method called on a fresh object: only the unrooted reading still sees ``write_text``
    ("Path(p).write_text", "", "write_text", "write_text"),
    ("x[0].y.z", "", "y.z", "z"),
    ("f()", "", "", None),
    ("items[0]", "", "", None),
    ("'text'", "", "", None),
])
def test_each_reading_of_a_name(source, rooted, unrooted, last):
    node = expr(source)
    assert dotted_name(node) == rooted
    assert dotted_name(node, rooted=False) == unrooted
    assert name_of(node) == last
