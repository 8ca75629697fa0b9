"""Variants of one of T0's test functions: a literal argument mutated, a call repeated or dropped,
two arguments of one type swapped (the kinds of change DSpot makes to Java tests); and, from what
P states (``Stated``), a string argument handed as a path object where P says the parameter takes
one (``typed``), and a call of a function P names beside another on the same input made of that
other instead (``peer_calls``). The stated ones come first, the calls on lines the test patch adds
(where the task's authors check the fix) before the others, at most half the budget.

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
from dataclasses import dataclass, field

from testjack_tui.authors.offline.mutation import mutate_value
from testjack_tui.authors.offline.stated_peers import Peer
from testjack_tui.pysource.names import name_of

PER_LITERAL = 3  # mutations tried per literal argument, at least (a test with few literals gets more)


@dataclass(frozen=True)
class Variant:
    """One variant of a test: its function (renamed) and the change, in words."""

    fn: ast.FunctionDef | ast.AsyncFunctionDef
    change: str
    stated: bool = False  # from what P states: the reference must answer it (an exception drops it)
    imports: tuple[str, ...] = ()  # import lines the variant needs (a peer the test module lacks)
    added: bool = False  # its change is on a line the test patch adds
    peer: bool = False  # another function P names in place of the test's (never explicit: see repo_amplify)


@dataclass(frozen=True)
class PathParam:
    """A parameter P says takes a path object (``os.PathLike``): the function's name, its place
    among the parameters and its name."""

    function: str
    index: int
    name: str


@dataclass(frozen=True)
class Stated:
    """What P states that a test's variants draw on, with what they need of the test's file: its
    module-level helper functions (a one-line helper's call is inlined before its callee is
    swapped) and the lines the test patch adds to it."""

    paths: tuple[PathParam, ...] = ()
    peers: tuple[Peer, ...] = ()
    helpers: dict[str, ast.FunctionDef] = field(default_factory=dict)
    added: frozenset[int] = frozenset()


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


def variants_of(fn: ast.FunctionDef | ast.AsyncFunctionDef, budget: int, told: Stated = Stated()) -> list[Variant]:
    """Up to ``budget`` variants of ``fn``: what P states first (half the budget at most), then
    literal mutations, then swaps, repeats and drops."""
    stated = sorted([*typed(fn, told), *peer_calls(fn, told)], key=lambda v: not v.added)[:max(1, budget // 2)]
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


def typed(fn: ast.FunctionDef | ast.AsyncFunctionDef, told: Stated) -> list[Variant]:
    """Each string literal handed to a parameter P says takes a path object, handed as
    ``pathlib.PurePosixPath`` of that string instead: the statement's own type for the same input,
    which a fix that tests for ``str`` alone misses. A pure path touches no file system."""
    out: list[Variant] = []
    skip = _asserted(fn)
    for ci, call in enumerate(_calls(fn)):
        if id(call) in skip:
            continue
        for p in told.paths:
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
                                       stated=True, added=getattr(call, "lineno", 0) in told.added))
    return out


def peer_calls(fn: ast.FunctionDef | ast.AsyncFunctionDef, told: Stated) -> list[Variant]:
    """Each call of a function P names beside a peer on the same input, made of the peer with the
    same arguments (a call of a one-line helper of the test module that returns such a call is
    inlined first, so the swap reaches it)."""
    out: list[Variant] = []
    skip = _asserted(fn)
    for ci, call in enumerate(_calls(fn)):
        target = _inlined(call, told.helpers) if id(call) not in skip else None
        for p in told.peers:
            if target is None or name_of(target.func) != p.callee:
                continue
            twin = copy.deepcopy(fn)
            site = _calls(twin)[ci]
            new = copy.deepcopy(target)
            site.func, site.args, site.keywords = ast.Name(p.peer, ast.Load()), new.args, new.keywords
            out.append(Variant(ast.fix_missing_locations(twin),
                               f"{ast.unparse(call)[:50]} -> {ast.unparse(site)[:70]} (P names {p.peer} beside {p.callee})",
                               stated=True, peer=True, imports=(p.imported,) if p.imported else (),
                               added=getattr(call, "lineno", 0) in told.added))
    return out


def _inlined(call: ast.Call, helpers: dict[str, ast.FunctionDef]) -> ast.Call | None:
    """``call`` itself, or, for a helper whose body is ``return g(...)`` of its plain parameters, that
    call of ``g`` with the arguments in place of the parameters; None when a helper cannot be inlined."""
    helper = helpers.get(call.func.id) if isinstance(call.func, ast.Name) else None
    if helper is None:
        return call
    body = [s for s in helper.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    a = helper.args
    if (len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call)
            or a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs or call.keywords
            or len(call.args) != len(a.args) or any(isinstance(x, ast.Starred) for x in call.args)):
        return None
    values = {p.arg: x for p, x in zip(a.args, call.args)}

    class Put(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            return copy.deepcopy(values[node.id]) if node.id in values else node

    return Put().visit(copy.deepcopy(body[0].value))


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
