"""Type-aware mutation of seed calls, one argument at a time, the way EvalPlus grows inputs.

Numbers move to 0, 1, -1, their neighbours, negation, double and large values; strings become
empty, one character, other case, reversed, repeated, re-spaced; collections grow, shrink, empty,
reverse, sort, take negatives and (when the type admits it) edge elements such as ``None``.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from testjack_tui.pysource.calls import CallArgs

_EDGE_ANY = (True, False, None, 0, -1, 1.5, "", "a", [], {})



# size scaling (EvalPlus grows inputs the same way): numbers deep enough to exhaust a recursion
# and large enough to expose a quadratic loop; the domain keeps them inside stated bounds
_LARGE_INTS = (1000, 3000, 10**6 + 3, 10**9 + 7)
_FLOAT_INT_MAX = int(sys.float_info.max)


def _mutate_int(n: int) -> list[Any]:
    out = [0, 1, -1, n + 1, n - 1, -n, 2 * n, n // 2, n * 10 + 1, n * 100, *_LARGE_INTS]
    if abs(n) <= _FLOAT_INT_MAX:  # the same number as a float, where a float can hold it
        out.append(float(n))
    return out


def _mutate_float(x: float) -> list[float]:
    if not math.isfinite(x):  # inf and nan have no neighbours worth the name
        return [0.0, 1.0, -1.0]
    # integer-valued floats, and pairs whose sum or product is not exact in binary
    return [0.0, -x, x + 0.5, x * 2, float(round(x)), x / 3, x + 0.1, x * 3 / 7, float(int(x) + 1)]


def _mutate_str(s: str) -> list[str]:
    out = ["", s[:1], s[:-1], s[1:], s.upper(), s.lower(), s.swapcase(), s.capitalize(), s[::-1],
           s + s, f" {s} ", s + " " + s, s.replace(" ", ""), s.replace(" ", "  "),
           s.replace(" ", "\n"), s.replace(" ", "\t"), s + "\n", s * 20]
    if s:
        out.append(s + s[-1])
        out.append(s[0] + s)
    return out


def _element_edges(items: list, any_type: bool) -> list:
    if any_type:
        return list(_EDGE_ANY)
    if not items:
        return []
    sample = items[0]
    if isinstance(sample, bool):
        return [True, False]
    if isinstance(sample, int):
        # a list may mix types (``[0, None]``): its bounds come from its own ints only
        ints = [x for x in items if isinstance(x, int) and not isinstance(x, bool)]
        return [0, -1, 1, max(ints) + 1, min(ints)]
    if isinstance(sample, float):
        return [0.0, -1.5, 1.5]
    if isinstance(sample, str):
        return ["", sample.upper(), sample + sample]
    return []


def _mutate_list(items: list, any_type: bool) -> list[list]:
    out: list[list] = [[], items[:1], items[:-1], items[1:], items[::-1], items + items[-1:], items + items,
                       items * 10, items * 50]
    numbers = [x for x in items if isinstance(x, (int, float)) and not isinstance(x, bool)]
    if numbers and len(numbers) == len(items):
        out.append([-x for x in items])  # negatives inside the container
        if all(abs(x) <= _FLOAT_INT_MAX for x in numbers):  # integer-valued floats, where floats fit
            out.append([float(x) for x in items])
        out.append(list(range(len(items) * 100)))  # a long list of distinct values
    try:
        out.append(sorted(items))
        out.append(sorted(items, reverse=True))
    except TypeError:
        pass
    for edge in _element_edges(items, any_type):
        out.append(items + [edge])
        out.append([edge] + items)
    if items:
        out += [[m] + items[1:] for m in mutate_value(items[0], any_type)[:6]]
        out += [items[:-1] + [m] for m in mutate_value(items[-1], any_type)[:6]]
    return out


def mutate_value(value: Any, any_type: bool = False) -> list[Any]:
    """Neighbours of one value, of the same type (EvalPlus-style type-aware mutation)."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return _mutate_int(value)
    if isinstance(value, float):
        return _mutate_float(value)
    if isinstance(value, str):
        return _mutate_str(value)
    if isinstance(value, list):
        return _mutate_list(value, any_type)
    if isinstance(value, tuple):
        return [tuple(v) for v in _mutate_list(list(value), any_type)]
    if isinstance(value, dict):
        out: list[Any] = [{}]
        keys = list(value)
        if keys:
            out.append({k: value[k] for k in keys[1:]})
            out.append({k: value[k] for k in keys[:1]})
        return out
    return []


def mutations(seed: CallArgs, any_type: set[int] = frozenset()) -> list[CallArgs]:
    """Every call that differs from ``seed`` in one argument, mutated."""
    out: list[CallArgs] = []
    for i, value in enumerate(seed.args):
        for m in mutate_value(value, i in any_type):
            out.append(CallArgs(seed.args[:i] + (m,) + seed.args[i + 1 :], seed.kwargs))
    for j, (k, value) in enumerate(seed.kwargs):
        for m in mutate_value(value):
            out.append(CallArgs(seed.args, seed.kwargs[:j] + ((k, m),) + seed.kwargs[j + 1 :]))
    return out
