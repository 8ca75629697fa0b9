"""Coarse features of a call's inputs: the categories of category-partition testing.

A feature names one argument (by position) and one property of its value that programs often
treat as a case of its own: a string with an upper-case letter, with whitespace or punctuation, a
list with a duplicate or a negative element, an integer-valued float, an empty container. Task
analysis uses them to tell which property a mutation added to its seed (``added``), so that a
mutation whose result differs from its seed's is kept once per property it brings in: the
reference's answer depends on that property, and a trial that ignores it answers as for the seed.

Hypothesis's strategies describe how to draw inputs, not how to classify given ones, so this
small classifier is our own.
"""

from __future__ import annotations

from typing import Any

from testjack_tui.pysource.calls import CallArgs

_DEPTH = 3  # how deep into nested containers features are read
_ITEMS = 50  # how many items of a container are read (inputs may be size-scaled)


def _of_str(s: str) -> set[str]:
    out = set()
    if not s:
        out.add("empty")
    for c in s[:_ITEMS * 4]:
        if c.isupper():
            out.add("upper")
        elif c.islower():
            out.add("lower")
        elif c.isdigit():
            out.add("digit")
        elif c == " ":
            out.add("space")
        elif c.isspace():
            out.add("whitespace")
        elif not c.isascii():
            out.add("non-ascii")
        else:
            out.add("punctuation")
    return out


def _of_number(x: int | float) -> set[str]:
    out = set()
    if x < 0:
        out.add("negative")
    if x == 0:
        out.add("zero")
    if isinstance(x, float):
        out.add("integer-valued float" if x.is_integer() else "fraction")
    return out


def _duplicated(items: list) -> bool:
    seen: list = []
    for x in items[:_ITEMS]:
        if any(type(x) is type(y) and x == y for y in seen):
            return True
        seen.append(x)
    return False


def _of(value: Any, depth: int) -> set[str]:
    if isinstance(value, bool):
        return {"bool"}
    if isinstance(value, (int, float)):
        return _of_number(value)
    if isinstance(value, str):
        return _of_str(value)
    if isinstance(value, dict):
        value = [*value.keys(), *value.values()]
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        out = {"empty"} if not items else {"one item"} if len(items) == 1 else set()
        if _duplicated(items):
            out.add("duplicate")
        if depth < _DEPTH:
            for x in items[:_ITEMS]:
                out |= {f"item {f}" for f in _of(x, depth + 1)}
        return out
    return set()


def features(call: CallArgs) -> frozenset[str]:
    """Every feature of every argument, named ``"<position>: <feature>"``."""
    return frozenset(f"{i}: {f}" for i, v in enumerate(call.values) for f in _of(v, 0))


def added(call: CallArgs, seed: CallArgs) -> frozenset[str]:
    """The features ``call`` has that the seed it was mutated from has not."""
    return features(call) - features(seed)
