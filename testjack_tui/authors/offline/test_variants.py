"""Variants of one of T0's test functions: a literal argument mutated, a call repeated or dropped,
two arguments of one type swapped (the kinds of change DSpot makes to Java tests), and a string
argument handed as a path object where P says the parameter takes one (``typed``).

A repository's tests build their inputs with code (a request context, an expression, a parsed
tree), so there is no literal call of the task's function to mutate; the test itself is varied
instead, and the reference says what each variant must give (``observed_tests``). Literals are
mutated with the function-level author's own mutations (``mutation.mutate_value``), a few per
literal. Variants are syntax trees: the stdlib ``ast`` parses and unparses exactly the Python the
task's interpreter runs, and the rewriting is a handful of node replacements, so no library
(libcst would also keep comments, which a generated test does not need) is worth its dependency.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

from testjack_tui.authors.offline.mutation import mutate_value
from testjack_tui.pysource.names import name_of

PER_LITERAL = 3  # mutations tried per literal argument, at least (a test with few literals gets more)


@dataclass(frozen=True)
class Variant:
    """One variant of a test: its function (renamed) and the change, in words."""

    fn: ast.FunctionDef | ast.AsyncFunctionDef
    change: str
    stated: bool = False  # a type P states for the argument: the reference must accept it (no raises)


@dataclass(frozen=True)
class PathParam:
    """A parameter P says takes a path object (``os.PathLike``): the function's name, its place
    among the parameters and its name."""

    function: str
    index: int
    name: str


def _literal(node: ast.expr) -> tuple[bool, object]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def _calls(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Call]:
    """The calls of the body, in walk order (decorators such as ``parametrize`` are not varied)."""
    return [n for stmt in fn.body for n in ast.walk(stmt) if isinstance(n, ast.Call)]


def _asserted(fn: ast.AST) -> set[int]:
    """ids of the nodes that state an expectation (an assert's expected side, a unittest
    ``assert*`` call and its expected arguments): never mutated, the reference re-observes them."""
    out: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
            for side in node.test.comparators:
                out |= {id(n) for n in ast.walk(side)}
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr.startswith("assert")):
            out.add(id(node))
            for side in node.args[1:]:
                out |= {id(n) for n in ast.walk(side)}
    return out


def variants_of(fn: ast.FunctionDef | ast.AsyncFunctionDef, budget: int,
                paths: tuple[PathParam, ...] = ()) -> list[Variant]:
    """Up to ``budget`` variants of ``fn``: the types P states first (they are few), then literal
    mutations, then swaps, repeats and drops."""
    stated = typed(fn, paths)
    others = [*_swapped(fn), *_statement_edits(fn)]
    # a third of the budget is kept for swaps, repeats and drops when the test has them
    room = budget - len(stated)
    made = [*stated, *_mutated_literals(fn, room - min(len(others), room // 3)), *others]
    seen: set[str] = set()
    out: list[Variant] = []
    for v in made:
        text = ast.dump(v.fn)
        if text not in seen:
            seen.add(text)
            out.append(v)
    return out[:budget]


def _mutated_literals(fn: ast.FunctionDef | ast.AsyncFunctionDef, budget: int) -> list[Variant]:
    out: list[Variant] = []
    skip = _asserted(fn)
    places = [(ci, ai, arg) for ci, call in enumerate(_calls(fn)) if id(call) not in skip
              for ai, arg in enumerate([*call.args, *(k.value for k in call.keywords)])
              if not isinstance(arg, ast.Starred) and _literal(arg)[0]]
    each = max(PER_LITERAL, budget // max(1, len(places)))
    for ci, ai, arg in places:
        value = _literal(arg)[1]
        news = list({repr(m): m for m in mutate_value(value) if repr(m) != repr(value)}.values())
        for new in news[:each]:
                out.append(Variant(_replace_arg(fn, ci, ai, new), f"{ast.unparse(arg)[:60]} -> {repr(new)[:60]}"))
                if len(out) >= budget:
                    return out
    return out


def typed(fn: ast.FunctionDef | ast.AsyncFunctionDef, paths: tuple[PathParam, ...]) -> list[Variant]:
    """Each string literal handed to a parameter P says takes a path object, handed as
    ``pathlib.PurePosixPath`` of that string instead: the statement's own type for the same input,
    which a fix that tests for ``str`` alone misses. A pure path touches no file system."""
    out: list[Variant] = []
    skip = _asserted(fn)
    for ci, call in enumerate(_calls(fn)):
        if id(call) in skip:
            continue
        for p in paths:
            if name_of(call.func) != p.function:
                continue
            args = [*((i, a) for i, a in enumerate(call.args) if i == p.index),
                    *((len(call.args) + k, kw.value) for k, kw in enumerate(call.keywords) if kw.arg == p.name)]
            for ai, arg in args:
                ok, value = _literal(arg)
                if ok and isinstance(value, str) and not isinstance(arg, ast.Starred):
                    new = f"pathlib.PurePosixPath({value!r})"
                    out.append(Variant(_replace_arg(fn, ci, ai, new, parsed=True),
                                       f"{p.name}={ast.unparse(arg)[:50]} -> {new[:70]} (P: {p.name} may be an os.PathLike)",
                                       stated=True))
    return out


def _replace_arg(fn: ast.AST, ci: int, ai: int, value: object, parsed: bool = False) -> ast.FunctionDef:
    twin = copy.deepcopy(fn)
    call = _calls(twin)[ci]
    new = ast.parse(str(value) if parsed else repr(value), mode="eval").body
    if ai < len(call.args):
        call.args[ai] = new
    else:
        call.keywords[ai - len(call.args)].value = new
    return ast.fix_missing_locations(twin)


def _swapped(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Variant]:
    out: list[Variant] = []
    skip = _asserted(fn)
    for ci, call in enumerate(_calls(fn)):
        if id(call) in skip:
            continue
        values = [_literal(a) for a in call.args]
        for i in range(len(values) - 1):
            a, b = values[i], values[i + 1]
            if a[0] and b[0] and type(a[1]) is type(b[1]) and a[1] != b[1]:
                twin = copy.deepcopy(fn)
                c = _calls(twin)[ci]
                c.args[i], c.args[i + 1] = c.args[i + 1], c.args[i]
                out.append(Variant(twin, f"arguments {i + 1} and {i + 2} of {ast.unparse(call.func)[:40]} swapped"))
    return out


def _statement_edits(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Variant]:
    """A call made for its effect (a statement of its own) repeated, or dropped."""
    out: list[Variant] = []
    for body_owner in _owners(fn):
        for i, stmt in enumerate(body_owner.body):
            if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
                continue
            shown = ast.unparse(stmt)[:60]
            for how in ("repeated", "dropped"):
                twin = copy.deepcopy(fn)
                owner = _owners(twin)[_owners(fn).index(body_owner)]
                if how == "repeated":
                    owner.body.insert(i, copy.deepcopy(owner.body[i]))
                elif len(owner.body) > 1:
                    del owner.body[i]
                else:
                    continue
                out.append(Variant(ast.fix_missing_locations(twin), f"{shown} {how}"))
    return out


def _owners(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """The function and the blocks inside it that hold statements, in walk order."""
    return [fn, *(n for stmt in fn.body for n in ast.walk(stmt) if isinstance(getattr(n, "body", None), list))]
