"""Where a witness's input lies in its task's domain: in it, outside it, or not placeable.

A witness is read, not run: its calls of the task's functions whose arguments are literals are
bound to the functions' parameters and checked against every constraint in force (those no
analyst has ruled wrong). One broken constraint puts the witness outside the domain; a call of a
function P states constraints for, called with arguments that are not literals (built by code),
cannot be placed.
Either way the witness never refutes: TestJack never refutes on an input the prompt rules out.

A function with an ``unread`` constraint (a sentence of P that constrains inputs in words no
reader understood) places a literal call only inside the envelope of the inputs P's examples and
T0 pass (``observed.beyond``): a call beyond it is unplaced, since the sentence may rule it out.
"""

from __future__ import annotations

import ast
from typing import Any

from testjack_tui.pysource.calls import CallArgs
from testjack_tui.pysource.names import name_of
from testjack_tui.domain.checks import bind, holds
from testjack_tui.domain.observed import beyond
from testjack_tui.model import Constraint, Grounding


def _literal_call(node: ast.Call) -> CallArgs | None:
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    try:
        return CallArgs(tuple(ast.literal_eval(a) for a in node.args),
                        tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _called(node: ast.Call) -> str | None:
    return name_of(node.func)


def admits(domain: list[Constraint], function: str, call: CallArgs) -> bool:
    """Whether no constraint of ``function`` rules the call out (the offline author's probe filter)."""
    function = function.rsplit(".", 1)[-1]
    for c in domain:
        if c.check.get("function") == function and holds(c.check, bind(c.check.get("signature", []), call)) is False:
            return False
    return True


def unread_beyond(constraints: list[Constraint], call: CallArgs) -> str | None:
    """Why a literal call goes beyond the inputs P and T0 show, for a function with an unread
    sentence among ``constraints`` ("x: ..."); None: no unread sentence, or inside the envelope."""
    unread = next((c for c in constraints if c.check.get("op") == "unread"), None)
    if unread is None:
        return None
    envelopes = unread.check.get("envelopes", {})
    for name, value in bind(unread.check.get("signature", []), call).items():
        why = beyond(value, envelopes.get(name, {}))
        if why:
            return f"{name}: {why}"
    return None


def ground(code: str, domain: list[Constraint], ruled_wrong: set[str] = frozenset()) -> tuple[Grounding, list[str], list[str]]:
    """(grounding, ids of constraints met, ids of constraints broken) of one witness file."""
    in_force = [c for c in domain if c.id not in ruled_wrong]
    by_function: dict[str, list[Constraint]] = {}
    for c in in_force:
        by_function.setdefault(str(c.check.get("function", "")), []).append(c)
    if not by_function:
        return Grounding.IN_DOMAIN, [], []
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return Grounding.UNPLACED, [], []
    meets: set[str] = set()
    breaks: set[str] = set()
    placed = unplaced = False
    named = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in by_function or isinstance(node, ast.Attribute) and node.attr in by_function:
            named = True
        if not isinstance(node, ast.Call) or _called(node) not in by_function:
            continue
        call = _literal_call(node)
        if call is None:
            # only what P states can rule an input out: a function with observed constraints
            # alone (types, alphabets) is called with built values in repository tests all the time
            unplaced = unplaced or any(c.stated for c in by_function[_called(node)])
            continue
        if unread_beyond(by_function[_called(node)], call):
            unplaced = True  # P may rule it out in a sentence no reader understood
        else:
            placed = True
        for c in by_function[_called(node)]:
            args: dict[str, Any] = bind(c.check.get("signature", []), call)
            answer = holds(c.check, args)
            if answer is True:
                meets.add(c.id)
            elif answer is False:
                breaks.add(c.id)
    if breaks:
        return Grounding.OUTSIDE_DOMAIN, sorted(meets - breaks), sorted(breaks)
    stated = any(c.stated for cs in by_function.values() for c in cs)
    if unplaced or (named and not placed and stated):
        return Grounding.UNPLACED, sorted(meets), []
    return Grounding.IN_DOMAIN, sorted(meets), []
