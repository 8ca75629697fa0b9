"""The call a witness makes of the task's code and what it expects, as the analyst's queue shows them."""

from __future__ import annotations

import pytest

from testjack_tui.audit.needs_ruling import witness_call


@pytest.mark.parametrize(("body", "call", "expected"), [
    ("assert chunk(range(5), 2) == [[0, 1], [2, 3], [4]]", "chunk(range(5), 2)", "[[0, 1], [2, 3], [4]]"),
    ("assert [2] == f(1)", "f(1)", "[2]"),
    ("assert list(f(1)) == [2]", "f(1)", "[2]"),
    ("with pytest.raises(ValueError):\n        chunk([1], 0)", "chunk([1], 0)", "raises ValueError"),
    ("r = f(1)\n    assert r == 2", "f(1)", ""),
    ("assert f(1) > 2", "f(1)", "f(1) > 2"),
])
def test_the_call_and_its_expectation(body, call, expected):
    code = f"import pytest\n\n\ndef test_w():\n    \"\"\"a requirement\"\"\"\n    {body}\n"
    assert witness_call(code) == (call, expected)


def test_code_that_does_not_parse_shows_nothing():
    assert witness_call("def test_w(:\n") == ("", "")
