"""The offline author reads the examples a prompt states (doctest lines, equations, tables)."""

from testjack_tui.pysource.examples import extract_examples, prompt_mentions

PROMPT = '''# Add `chunk()`

It returns the pieces; `chunk([1], 5) == [[1]]`, and a size below 1 raises `ValueError`.

```
>>> chunk([1, 2, 3, 4, 5], 2)
[[1, 2], [3, 4], [5]]
>>> chunk([], 3)
[]
>>> chunk([1], 0)
Traceback (most recent call last):
  ...
ValueError: size must be at least 1
>>> helper(3)
4
```

| call | result |
| --- | --- |
| `chunk("ab", 1)` | `[["a"], ["b"]]` |
'''


def test_doctest_equation_and_table_examples_are_read():
    found = {(e.call, e.expected, e.raises) for e in extract_examples(PROMPT, {"chunk"})}
    assert ("chunk([1, 2, 3, 4, 5], 2)", "[[1, 2], [3, 4], [5]]", None) in found
    assert ("chunk([], 3)", "[]", None) in found  # the result line right before a closing fence
    assert ("chunk([1], 0)", None, "ValueError") in found  # a traceback means: must raise
    assert ("chunk([1], 5)", "[[1]]", None) in found  # inline equation in backticks
    assert ('chunk("ab", 1)', "[['a'], ['b']]", None) in found  # a table row
    assert all(e.function == "chunk" for e in extract_examples(PROMPT, {"chunk"}))  # helper(3) is not a task function


def test_humaneval_style_docstring_and_arrows():
    prompt = '''def add(x: int, y: int) -> int:
    """Add two numbers.
    >>> add(2, 3)
    5
    add(-1, 1) ➞ 0
    """
'''
    found = {(e.call, e.expected) for e in extract_examples(prompt, {"add"})}
    assert found == {("add(2, 3)", "5"), ("add(-1, 1)", "0")}


def test_results_that_are_not_literals_are_skipped():
    prompt = ">>> make(1)\n<Thing at 0x1>\n>>> make(2)\n[1, 2]\n"
    assert [e.call for e in extract_examples(prompt, {"make"})] == ["make(2)"]


def test_prompt_mentions_quoted_strings_and_whole_numbers():
    text = 'a unit without a number (`"h"`), and `parse("90") == 90`; 1.5 hours'
    assert prompt_mentions(text, "h") and prompt_mentions(text, "90")
    assert not prompt_mentions(text, "H")
    assert prompt_mentions(text, 1.5) and not prompt_mentions(text, 9)
