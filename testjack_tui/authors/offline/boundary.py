"""Inputs on a decision boundary of the reference: where its answer is a tie-break, not P's.

Two pairs of numbers equally close, a value exactly on a threshold: on such an input P rarely
says which side wins, the reference picks one, and a correct trial may pick the other. The
offline author writes no witness on one. An input is on a boundary when nudging one of its float
values a hair up or a hair down (a millionth of the tolerance witnesses compare floats with,
the same hair for every value of the input, so that ties among small and large values compete
alike) changes the reference's answer in a way a witness would tell apart: two pairs at the
same distance, one of them pushed apart, give the other pair. Away from a boundary the three
answers are equal up to the nudge. A tie among three or more (several pairs at distance zero)
survives any one nudge, so the check also moves every float at once: spread by the square of its
place in the input (counted from the front, then from the back), so that equal values grow apart
at different rates and a pair of one group comes closer than every pair of another; then by a
different random hair each, a few times over. Only floats are nudged: an integer or a string has
no "hair" to move by. Every check for one author step goes into one probe of the reference world.
"""

from __future__ import annotations

import random
from typing import Any

from testjack_tui.authors.base import AuthorContext
from testjack_tui.pysource.calls import CallArgs
from testjack_tui.authors.offline.probe import diverges, run_probe

NUDGE = 1e-12  # of the input's largest float; witnesses compare floats at 1e-6
MAX_LEAVES = 8  # float values nudged per input
MAX_CHECKED = 40  # inputs checked per step (the smallest first: those are the ones kept)
DRAWS = 8  # joint random nudges per input
MAX_SPREAD = 100  # places past this spread alike (a move of at most 1e4 hairs, far inside 1e-6)

Path = tuple[int, ...]


def float_paths(value: Any, path: Path = (), depth: int = 0) -> list[Path]:
    """Where the floats are in a (nested) list/tuple value, in reading order."""
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return [path]
    if isinstance(value, (list, tuple)) and depth < 4:
        return [p for i, v in enumerate(value) for p in float_paths(v, (*path, i), depth + 1)]
    return []


def _nudge(value: Any, path: Path, by: float) -> Any:
    if not path:
        return value + by
    i, rest = path[0], path[1:]
    items = list(value)
    items[i] = _nudge(items[i], rest, by)
    return type(value)(items)


def nudged(call: CallArgs, path: Path, by: float) -> CallArgs:
    """The call with the float at ``path`` (argument index first) moved by ``by``."""
    args = list(call.args)
    args[path[0]] = _nudge(args[path[0]], path[1:], by)
    return CallArgs(tuple(args), call.kwargs)


def _at(call: CallArgs, path: Path) -> float:
    value: Any = call.args
    for i in path:
        value = value[i]
    return value


def _variants(call: CallArgs, paths: list[Path]) -> list[CallArgs]:
    """Each float a hair up and a hair down, every float at once spread by its place (from the
    front, from the back), then every float at once by random hairs (seeded by the input, so the
    check is the same on every run)."""
    hair = NUDGE * max([1.0, *(abs(_at(call, p)) for p in paths)])
    out = [nudged(call, p, sign * hair) for p in paths[:MAX_LEAVES] for sign in (1, -1)]
    places = [min(k, MAX_SPREAD) for k in range(len(paths))]
    for order in (places, places[::-1]):
        spread = call
        for p, place in zip(paths, order):
            spread = nudged(spread, p, place * place * hair)
        out.append(spread)
    rng = random.Random(call.key)
    for _ in range(DRAWS):
        moved = call
        for p in paths:
            moved = nudged(moved, p, rng.choice((-1, 1)) * rng.uniform(1.0, 9.0) * hair)
        out.append(moved)
    return out


def on_boundary(ctx: AuthorContext, calls: list[tuple[str, str, CallArgs]], imports: dict[str, list[str]]) -> set[int]:
    """Indices of ``calls`` ((import group, callee expression, call)) that sit on a boundary.

    Inputs with no float, and those past ``MAX_CHECKED``, are never reported; an input whose check
    gives no answer that can be compared is reported (not cleared is not off the boundary).
    """
    cases: list[tuple[str, str]] = []
    groups: list[tuple[int, int, int]] = []  # (call index, first case, last case + 1)
    for index, (group, expr, call) in enumerate(calls):
        if len(groups) >= MAX_CHECKED:
            break
        paths = [p for i, a in enumerate(call.args) for p in float_paths(a, (i,))]
        if not paths:
            continue
        first = len(cases)
        cases += [(group, f"{expr}({c.source()})") for c in [call, *_variants(call, paths)]]
        groups.append((index, first, len(cases)))
    if not cases:
        return set()
    outcomes = run_probe(ctx, ["reference"], cases, imports)["reference"]
    found: set[int] = set()
    for index, first, end in groups:
        plain = outcomes[first]
        # a "yes" puts the input on a boundary, and so does an answer that cannot be told (a call
        # cut off on a busy machine, a result that does not read back): the check did not clear
        # the input, and a witness on an unchecked tie refutes a correct trial
        if any(diverges(plain, moved) is not False for moved in outcomes[first + 1 : end]):
            found.add(index)
    return found
