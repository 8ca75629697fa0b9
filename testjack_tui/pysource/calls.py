"""The calls a probe starts from: literal arguments, read from P's examples and T0's tests.

A call is kept as plain Python literals (``CallArgs``), so a witness can state it and a probe can
rebuild it in another world; ``literal_ok`` says whether a value survives that round trip.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from typing import Any, Iterable

MAX_REPR = 1200  # longer inputs make unreadable witnesses (size scaling stays under it)


@dataclass(frozen=True)
class CallArgs:
    """The arguments of one call, as plain Python literals."""

    args: tuple
    kwargs: tuple[tuple[str, Any], ...] = ()

    def source(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        return ", ".join(parts)

    @property
    def values(self) -> tuple:
        """Every argument value, positional then keyword."""
        return (*self.args, *(v for _, v in self.kwargs))

    @property
    def key(self) -> str:
        return self.source()

    @property
    def size(self) -> int:
        return len(self.source())


def seed_number(*parts: object) -> int:
    digest = hashlib.sha256("\0".join(str(p) for p in parts).encode()).hexdigest()
    return int(digest[:8], 16)


def literal_ok(value: Any) -> bool:
    """Whether ``repr(value)`` reads back as an equal literal (what a witness file needs)."""
    try:
        text = repr(value)
        if len(text) > MAX_REPR:
            return False
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return back == value and type(back) is type(value) and "nan" not in text and "inf" not in text




def calls_in_source(source: str, name: str, aliases: Iterable[str] = ()) -> list[CallArgs]:
    """Literal-argument calls of ``name`` (or of an alias such as HumanEval's ``candidate``)."""
    names = {name, *aliases}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out: list[CallArgs] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if called not in names or any(isinstance(a, ast.Starred) for a in node.args):
            continue
        try:
            args = tuple(ast.literal_eval(a) for a in node.args)
            kwargs = tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords if k.arg)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if len(kwargs) != len(node.keywords):
            continue
        out.append(CallArgs(args, kwargs))
    return out


def aliases_in_tests(source: str, name: str) -> list[str]:
    """Parameters a test helper receives ``name`` through: ``check(candidate)`` called as ``check(f)``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers:
            fn = helpers[node.func.id]
            for i, arg in enumerate(node.args):
                if isinstance(arg, ast.Name) and arg.id == name and i < len(fn.args.args):
                    out.append(fn.args.args[i].arg)
    return out
