"""A test variant's assertions turned into observations, and observations back into assertions.

The observing form of a variant (``observing``) evaluates what each ``assert`` looks at and prints
it instead of judging it: the value of ``L`` in ``assert L == R`` (or ``L is R``, ``L ==
pytest.approx(R)``), and the truth of any other asserted expression; each top-level statement
that raises ends the variant there, and the exception's type is printed. The reference world runs
it more than once, and an observation that differs between runs (an id, an address, a time, the
order of a hash) is dropped (``agreed``), never asserted. ``render`` writes the variant back with
what the reference gave, in the original's style: ``==`` a literal (``pytest.approx`` for a float,
``is`` for ``None``/``True``/``False`` where it used ``is``), ``assert E`` or
``assert not E`` for truth, ``pytest.raises`` around the statement that raised. A value with no
literal ``repr`` is not asserted (its expression is still evaluated). Beside each value, whether
the check as the test wrote it holds on it (``Seen.held``): the observed side is evaluated once,
and only the expected side again.
"""

from __future__ import annotations

import ast
import copy
import json
from dataclasses import dataclass, field

MARK = "@@TJ-OBSERVED@@"
REPR_LIMIT = 2000

_HELPERS = f'''
import ast as _tj_ast, json as _tj_json


def _tj_put(row):
    print("\\n" + {MARK!r} + _tj_json.dumps(row), flush=True)


def _tj_seen(v, i, thunk, holds):
    value = thunk()
    row = {{"v": v, "i": i, "t": type(value).__name__}}
    try:
        row["ok"] = bool(holds(value))
    except Exception:
        row["ok"] = False
    try:
        row["b"] = bool(value)
    except Exception:
        pass
    try:
        text = repr(value)
        if len(text) <= {REPR_LIMIT} and _tj_ast.literal_eval(text) == value:
            row["r"] = text
    except Exception:
        pass
    _tj_put(row)
    return value


def _tj_raised(v, s, exc):
    kind = type(exc)
    _tj_put({{"v": v, "s": s, "e": kind.__qualname__, "m": kind.__module__}})
'''


_UNITTEST = {"assertEqual": "ueq", "assertEquals": "ueq", "assertIs": "uis", "assertTrue": "utrue",
             "assertFalse": "utrue"}


def kind_of(node: ast.stmt) -> tuple[str, ast.expr] | None:
    """(how the check compares, the expression observed), for an ``assert`` (eq, approx, is, truth)
    or a unittest ``self.assertEqual(L, R)`` (ueq), ``assertIs(L, R)`` (uis), ``assertTrue(E)`` /
    ``assertFalse(E)`` (utrue)."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute):
        kind = _UNITTEST.get(node.value.func.attr)
        args = node.value.args
        if kind and args and not node.value.keywords and len(args) == (1 if kind == "utrue" else 2):
            return kind, args[0]
        return None
    if not isinstance(node, ast.Assert):
        return None
    test = node.test
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op, right = test.ops[0], test.comparators[0]
        if isinstance(op, ast.Eq):
            approx = isinstance(right, ast.Call) and ast.unparse(right.func).endswith("approx")
            return ("approx" if approx else "eq"), test.left
        if isinstance(op, ast.Is) and isinstance(right, ast.Constant) and right.value in (None, True, False):
            return "is", test.left
    return "truth", test


def checks(fn: ast.AST) -> int:
    """How many checks a test makes (those ``observing`` observes)."""
    return len(_asserts(fn))


def _asserts(fn: ast.AST) -> list[ast.stmt]:
    return [n for stmt in fn.body for n in ast.walk(stmt) if isinstance(n, ast.stmt) and kind_of(n) is not None]


class _Checks(ast.NodeTransformer):
    """Visits each check of a test: every ``assert``, and the statements ``order`` numbers (calls
    such as unittest's ``assertEqual``), each rewritten by ``_rewrite``."""

    order: dict[int, int]

    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        return self._rewrite(node)

    def visit_Expr(self, node: ast.Expr) -> ast.stmt:
        return self._rewrite(node) if id(node) in self.order else node

    def _rewrite(self, node: ast.stmt) -> ast.stmt:
        raise NotImplementedError


class _Observe(_Checks):
    def __init__(self, v: int, order: dict[int, int]):
        self.v, self.order = v, order

    def _rewrite(self, node: ast.stmt) -> ast.stmt:
        kind, seen = kind_of(node)
        call = ast.Call(ast.Name("_tj_seen", ast.Load()),
                        [ast.Constant(self.v), ast.Constant(self.order[id(node)]),
                         ast.Lambda(ast.arguments([], [], None, [], [], None, []), seen),
                         _as_written(kind, node)], [])
        return ast.copy_location(ast.Expr(call), node)


def _as_written(kind: str, node: ast.stmt) -> ast.Lambda:
    """``lambda _tj_v: ...``: the check as the test wrote it, on the observed value ``_tj_v``."""
    value = ast.Name("_tj_v", ast.Load())
    if kind in ("eq", "approx", "is"):
        test = node.test
        body: ast.expr = ast.Compare(value, [test.ops[0]], [test.comparators[0]])
    elif kind in ("ueq", "uis"):
        body = ast.Compare(value, [ast.Eq() if kind == "ueq" else ast.Is()], [node.value.args[1]])
    elif kind == "utrue" and node.value.func.attr == "assertFalse":
        body = ast.UnaryOp(ast.Not(), value)
    else:  # truth, assertTrue
        body = value
    return ast.Lambda(ast.arguments([], [ast.arg("_tj_v")], None, [], [], None, []), body)


def observing(fn: ast.FunctionDef, v: int) -> ast.FunctionDef:
    """The variant with its asserts observed, each top-level statement's exception recorded."""
    twin = copy.deepcopy(fn)
    twin.name = f"{fn.name}_observed_{v}"  # variants of one test side by side in one file
    order = {id(a): i for i, a in enumerate(_asserts(twin))}
    _Observe(v, order).visit(twin)
    body: list[ast.stmt] = []
    for s, stmt in enumerate(twin.body):
        handler = ast.parse(f"try:\n    pass\nexcept Exception as _tj_exc:\n    _tj_raised({v}, {s}, _tj_exc)\n"
                            f"    _tj_put({{'v': {v}, 'done': True}})\n    return\n").body[0]
        handler.body = [stmt]
        body.append(handler)
    body.append(ast.parse(f"_tj_put({{'v': {v}, 'done': True}})").body[0])
    twin.body = body
    return ast.fix_missing_locations(twin)


def helpers() -> list[ast.stmt]:
    return ast.parse(_HELPERS).body


@dataclass
class Seen:
    """What one variant showed in one run."""

    values: dict[int, list[tuple]] = field(default_factory=dict)  # assert index -> (type, repr, truth) per pass
    raised: tuple[int, str, str] | None = None  # (statement, exception name, its module)
    done: bool = False
    held: dict[int, bool] = field(default_factory=dict)  # assert index -> the check as written held on every pass


def read(stdout: str) -> dict[int, Seen]:
    out: dict[int, Seen] = {}
    for line in stdout.splitlines():
        if MARK not in line:  # pytest's progress may share the line
            continue
        try:
            row = json.loads(line[line.index(MARK) + len(MARK):])
            seen = out.setdefault(int(row["v"]), Seen())
        except (ValueError, KeyError, TypeError):
            continue
        if row.get("done"):
            seen.done = True
        elif "s" in row:
            seen.raised = (int(row["s"]), str(row["e"]), str(row["m"]))
        elif "i" in row:
            seen.values.setdefault(int(row["i"]), []).append((row.get("t"), row.get("r"), row.get("b")))
            if "ok" in row:
                seen.held[int(row["i"])] = seen.held.get(int(row["i"]), True) and row["ok"] is True
    return out


def agreed(runs: list[dict[int, Seen]]) -> dict[int, Seen]:
    """The variants every run finished, with the observations every run made alike (others dropped)."""
    if not runs:
        return {}
    out: dict[int, Seen] = {}
    for v, first in runs[0].items():
        others = [r.get(v) for r in runs[1:]]
        if not first.done or any(o is None or not o.done or o.raised != first.raised for o in others):
            continue
        kept = {i: vals for i, vals in first.values.items() if all(o.values.get(i) == vals for o in others)}
        held = {i: ok and all(o.held.get(i) is True for o in others) for i, ok in first.held.items()}
        out[v] = Seen(kept, first.raised, True, held)
    return out


def dropped(runs: list[dict[int, Seen]], v: int) -> int:
    """How many of variant ``v``'s observations differed between runs."""
    first = runs[0].get(v)
    kept = agreed(runs).get(v)
    return 0 if first is None or kept is None else len(first.values) - len(kept.values)


@dataclass(frozen=True)
class Rendered:
    fn: ast.FunctionDef
    asserted: int  # assertions written from the reference's values
    raises: str  # the exception the variant expects ("" when none)
    imports: tuple[str, ...]  # import lines the expectation needs (``from module import Exception``)


class _Assert(_Checks):
    """Each observed assert rewritten with the reference's value; one without an agreed literal value
    is only evaluated."""

    def __init__(self, values: dict[int, list[tuple]], order: dict[int, int]):
        self.values, self.order, self.asserted = values, order, 0

    def _rewrite(self, node: ast.stmt) -> ast.stmt:
        kind, seen = kind_of(node)
        got = {tuple(x) for x in self.values.get(self.order[id(node)], [])}
        if len(got) == 1:
            (_type, text, truth), = got
            receiver = node.value.func.value if kind.startswith("u") else None
            new = _assertion(kind, seen, text, truth, receiver)
            if new is not None:
                self.asserted += 1
                return ast.copy_location(new, node)
        return ast.copy_location(ast.Expr(seen), node)


def _assertion(kind: str, seen: ast.expr, text: str | None, truth: bool | None,
               receiver: ast.expr | None = None) -> ast.stmt | None:
    if kind in ("truth", "utrue"):
        if truth is None:
            return None
        if receiver is not None:
            return ast.Expr(ast.Call(ast.Attribute(receiver, "assertTrue" if truth else "assertFalse", ast.Load()), [seen], []))
        return ast.Assert(seen if truth else ast.UnaryOp(ast.Not(), seen))
    if text is None:
        return None
    value = ast.parse(text, mode="eval").body
    # a float the reference computed is compared as pytest.approx / assertAlmostEqual compare: a
    # trial that computes it another way may differ in its last digits and be right
    floating = isinstance(ast.literal_eval(text), float)
    if receiver is not None:
        check = "assertAlmostEqual" if floating else "assertEqual"
        if kind == "uis" and text in ("None", "True", "False"):
            check = "assertIs"
        return ast.Expr(ast.Call(ast.Attribute(receiver, check, ast.Load()), [seen, value], []))
    if kind == "is" and text in ("None", "True", "False"):
        return ast.Assert(ast.Compare(seen, [ast.Is()], [value]))
    if floating:
        value = ast.Call(ast.Attribute(ast.Name("pytest", ast.Load()), "approx", ast.Load()), [value], [])
    return ast.Assert(ast.Compare(seen, [ast.Eq()], [value]))


def render(fn: ast.FunctionDef, seen: Seen) -> Rendered:
    """The variant with the reference's observations as its assertions."""
    twin = copy.deepcopy(fn)
    order = {id(a): i for i, a in enumerate(_asserts(twin))}
    writer = _Assert(seen.values, order)
    writer.visit(twin)
    raises, imports = "", ()
    if seen.raised is not None:
        s, name, module = seen.raised
        # imported from its module by name: a package may shadow the module's name with a function
        # (``sympy.core.sympify``), so ``module.Name`` would not reach it
        raises = name
        imports = () if module == "builtins" else (f"from {module} import {name.split('.')[0]}",)
        expected = ast.parse(raises, mode="eval").body
        # a unittest method says it as its class does (no pytest in a Django or SymPy environment)
        owner = "self" if twin.args.args and twin.args.args[0].arg == "self" else "pytest"
        method = "assertRaises" if owner == "self" else "raises"
        guard = ast.With([ast.withitem(ast.Call(ast.Attribute(ast.Name(owner, ast.Load()), method, ast.Load()),
                                                [expected], []))], [twin.body[s]])
        twin.body = [*twin.body[:s], guard]
    return Rendered(ast.fix_missing_locations(twin), writer.asserted, raises, imports)
