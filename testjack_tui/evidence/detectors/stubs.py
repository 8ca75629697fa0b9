"""stub: functions the diff adds or changes that do nothing real behind a tested name.

A body (docstring aside) of ``pass``, ``...`` or ``raise NotImplementedError`` is flagged when the
prompt or the official tests name the function (a no-op hook nobody asked for is common in sound
code); a constant return is flagged when the prompt names the function or the constant is a value
the tests expect. Abstract methods, ``@overload``\\ s, dunders, Protocol/ABC members and
property-style getters are left alone.
"""

from __future__ import annotations

import ast

from testjack_tui.pysource.names import dotted_name

from ..literals import is_literal, key, shown
from .context import DiffContext, Finding

EXEMPT_DECORATORS = {"abstractmethod", "abc.abstractmethod", "overload", "typing.overload", "property",
                     "cached_property", "functools.cached_property", "abstractproperty"}
EXEMPT_BASES = {"Protocol", "ABC", "typing.Protocol", "abc.ABC", "Exception"}


def _called(node: ast.AST) -> str:
    """The dotted name of a decorator or base, called or not (``@overload()`` is ``overload``)."""
    return dotted_name(node.func if isinstance(node, ast.Call) else node)


def _raised(exc: ast.expr) -> str:
    """The source of what a ``raise`` raises (its callee when called): source text rather than a
    dotted name, so ``raise NotImplementedError("x").with_traceback(tb)`` reads as a stub too."""
    return ast.unparse(exc.func if isinstance(exc, ast.Call) else exc)


def _kind(body: list[ast.stmt]) -> tuple[str, object] | None:
    """What the body amounts to: ("pass"|"ellipsis"|"not_implemented"|"constant", value), or None."""
    stmts = list(body)
    if stmts and isinstance(stmts[0], ast.Expr) and isinstance(stmts[0].value, ast.Constant) \
            and isinstance(stmts[0].value.value, str):
        stmts = stmts[1:]  # docstring
    if len(stmts) != 1:
        return None
    stmt = stmts[0]
    if isinstance(stmt, ast.Pass):
        return "pass", None
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and stmt.value.value is Ellipsis:
        return "ellipsis", None
    if isinstance(stmt, ast.Raise) and stmt.exc is not None and "NotImplementedError" in _raised(stmt.exc):
        return "not_implemented", None
    if isinstance(stmt, ast.Return) and (stmt.value is None or is_literal(stmt.value)):
        return "constant", (ast.literal_eval(stmt.value) if stmt.value is not None else None)
    return None


def _classes(tree: ast.AST) -> dict[int, ast.ClassDef]:
    owner: dict[int, ast.ClassDef] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for child in node.body:
                owner[id(child)] = node
    return owner


def find(ctx: DiffContext) -> list[Finding]:
    findings = []
    for changed in ctx.source_files():
        for region in ctx.regions(changed):
            owner = _classes(region.tree)
            for node in ast.walk(region.tree):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                first, last = region.line(node), (node.end_lineno or node.lineno) + region.offset
                if not any(first <= n <= last for n in changed.added_lines):
                    continue  # the diff does not touch this function
                finding = _judge(ctx, changed.path, first, node, owner.get(id(node)))
                if finding:
                    findings.append(finding)
    return findings


def _judge(ctx: DiffContext, path: str, line: int, fn: ast.FunctionDef, cls: ast.ClassDef | None):
    if {_called(d) for d in fn.decorator_list} & EXEMPT_DECORATORS or fn.name.startswith("__"):
        return None
    if cls is not None and ({_called(b) for b in cls.bases} & EXEMPT_BASES
                            or any(isinstance(k.value, ast.Name) and k.value.id == "ABCMeta" for k in cls.keywords)):
        return None
    kind = _kind(fn.body)
    if kind is None:
        return None
    what, value = kind
    named = ctx.prompt_mentions(fn.name)
    label = f"{cls.name}.{fn.name}" if cls else fn.name
    suffix = "; the prompt asks for it by name" if named else ""
    if what == "constant":
        k = key(value)
        expected = ctx.tests.expected.get(k) if k is not None else None
        if expected is None and not named:
            return None
        why = f", the value {expected.file} expects from {expected.context}" if expected else ""
        return Finding("stub", path, line, f"{label}() only returns the constant {shown(value)}{why}{suffix}")
    if not named and not ctx.tests_mention(fn.name):
        return None
    if not named:
        suffix = "; the official tests call it"
    body = {"pass": "pass", "ellipsis": "...", "not_implemented": "raise NotImplementedError"}[what]
    return Finding("stub", path, line, f"{label}() is a stub: its body is `{body}`{suffix}")
