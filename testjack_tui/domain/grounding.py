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

A path object built from a literal (``PurePosixPath("a.txt")``, ``pathlib.Path("a.txt")``) is
placed only where P says the parameter takes one (a ``types`` constraint naming ``os.PathLike``);
every other constraint of the call then reads the path it stands for (``os.fspath``), as the
function it is handed to does. Elsewhere it is built by code, as before.
"""

from __future__ import annotations

import ast
import os
import pathlib
from typing import Any

from testjack_tui.pysource.calls import CallArgs
from testjack_tui.pysource.names import name_of
from testjack_tui.domain.checks import admits_path, bind, holds
from testjack_tui.domain.observed import beyond
from testjack_tui.model import Constraint, Grounding


# pathlib's classes, each read as the pure path of its flavour (no file system is touched)
_PATHS = {"PurePath": pathlib.PurePath, "Path": pathlib.PurePath, "PurePosixPath": pathlib.PurePosixPath,
          "PosixPath": pathlib.PurePosixPath, "PureWindowsPath": pathlib.PureWindowsPath,
          "WindowsPath": pathlib.PureWindowsPath}


def _value(node: ast.expr) -> Any:
    """A literal's value, or the path a pathlib class builds from one string literal."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        func = node.func
        named = func.id if isinstance(func, ast.Name) else (
            func.attr if isinstance(func, ast.Attribute) and ast.unparse(func.value) == "pathlib" else "")
        text = ast.literal_eval(node.args[0]) if named in _PATHS else None
        if isinstance(text, str):
            return _PATHS[named](text)
    return ast.literal_eval(node)


def _literal_call(node: ast.Call) -> CallArgs | None:
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    try:
        return CallArgs(tuple(_value(a) for a in node.args), tuple((k.arg, _value(k.value)) for k in node.keywords))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _paths_read(constraints: list[Constraint], call: CallArgs) -> CallArgs | None:
    """``call`` with each path object read as its path (``os.fspath``) when P says its parameter
    takes one; None when a path stands where P names no such type (built by code, as before)."""
    if not any(isinstance(v, os.PathLike) for v in (*call.args, *(v for _, v in call.kwargs))):
        return call
    signature = next((c.check.get("signature", []) for c in constraints), [])
    admitted = {c.check.get("param") for c in constraints if c.stated and admits_path(c.check)}
    bound = bind(signature, call)
    if any(isinstance(v, os.PathLike) and name not in admitted for name, v in bound.items()):
        return None
    if any(isinstance(v, os.PathLike) for v in call.args[len(signature):]):
        return None

    def read(v: Any) -> Any:
        return os.fspath(v) if isinstance(v, os.PathLike) else v

    return CallArgs(tuple(read(v) for v in call.args), tuple((k, read(v)) for k, v in call.kwargs))


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


def _rules_out(c: Constraint) -> bool:
    """A constraint P states that can rule a value out: P's list of types never does (``checks``)."""
    return c.stated and c.check.get("op") != "types"


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
        typed = _literal_call(node)  # as written: a ``types`` constraint sees the path object itself
        call = _paths_read(by_function[_called(node)], typed) if typed is not None else None
        if call is None:
            # only what P states can rule an input out: a function with observed constraints
            # alone (types, alphabets) is called with built values in repository tests all the time
            unplaced = unplaced or any(_rules_out(c) for c in by_function[_called(node)])
            continue
        if unread_beyond(by_function[_called(node)], call):
            unplaced = True  # P may rule it out in a sentence no reader understood
        else:
            placed = True
        for c in by_function[_called(node)]:
            args: dict[str, Any] = bind(c.check.get("signature", []), typed if c.check.get("op") == "types" else call)
            answer = holds(c.check, args)
            if answer is True:
                meets.add(c.id)
            elif answer is False:
                breaks.add(c.id)
    if breaks:
        return Grounding.OUTSIDE_DOMAIN, sorted(meets - breaks), sorted(breaks)
    stated = any(_rules_out(c) for cs in by_function.values() for c in cs)
    if unplaced or (named and not placed and stated):
        return Grounding.UNPLACED, sorted(meets), []
    return Grounding.IN_DOMAIN, sorted(meets), []
