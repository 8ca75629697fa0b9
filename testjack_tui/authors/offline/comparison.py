"""How T0 compares a function's answers, so that a witness judges them no more strictly than T0 does.

A benchmark's tests say what counts as the same answer: ``==``, a tolerance (``abs(a - b) < t``,
``math.isclose``, ``pytest.approx``), order left out (``sorted``), repetition left out (``set``),
truthiness alone (``assert f(x)``, ``assert not f(x)``), or only whether there is an answer
(``is None``). A witness that compares more strictly than T0 (``== None`` where T0 only asks for
a false value) holds a trial to something neither P nor T0 asks of it. So the loosest comparison
T0 applies to a function is the one its witnesses use. Truthiness speaks for truth values only:
where the reference's answer is a bool or None, a witness asks for its truth (or for an answer at
all) if T0 ever does so; other answers keep the loosest of T0's other comparisons. A use of the answer that is none of these
(``len(f(x)) == 3``, ``f(x) in (a, b)``, the answer fed to another function) is ``unread``: the
witness then keeps ``==`` and its author doubts it (it needs an analyst's ruling to refute).

Read with ``ast`` from the test source: no library reads test assertions as comparisons.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any, Iterable

from testjack_tui.pysource.names import name_of

# from strictest to loosest; ``unread`` is a use of the answer this module cannot read
ORDER = ("equal", "close", "unordered", "set", "unread")
TRUTH_ORDER = ("truth", "none")  # how T0 judges truth values: their truth, or only None or not
_CLOSE_CALLS = {"isclose", "allclose", "assert_allclose", "assert_almost_equal"}


@dataclass(frozen=True)
class Comparison:
    """The loosest way T0 compares a function's answers; ``kind`` "" when T0 compares none."""

    kind: str = ""
    rel: float | None = None  # tolerances, for ``close``
    abs: float | None = None
    seen: str = ""  # an example of T0's comparison, for the analyst
    truth: str = ""  # "truth" or "none" when T0 judges some answers by their truth alone
    pinned: bool = False  # ``==`` or ``is`` against True, False or None: a truth value compared exactly

    def looser(self, other: "Comparison") -> "Comparison":
        truth = max(self.truth, other.truth, key=lambda t: TRUTH_ORDER.index(t) if t else -1)
        if not self.kind or not other.kind:
            kept = self if self.kind else other
        elif ORDER.index(self.kind) == ORDER.index(other.kind) == ORDER.index("close"):
            kept = Comparison("close", _max(self.rel, other.rel), _max(self.abs, other.abs), self.seen)
        else:
            kept = self if ORDER.index(self.kind) >= ORDER.index(other.kind) else other
        return Comparison(kept.kind, kept.rel, kept.abs, kept.seen, truth, self.pinned or other.pinned)

    def for_answer(self, expected: Any) -> str:
        """The kind that judges this expected answer: its truth for a bool or None, if T0 asks so."""
        if self.truth and (expected is None or isinstance(expected, bool)):
            return self.truth
        return self.kind

    def doubt(self, expected: Any) -> str:
        """Why a witness expecting ``expected`` cannot be sure it compares as T0 does; "" when it can."""
        if self.for_answer(expected) != "unread":
            return ""
        return (f"T0 compares this function's answers in a way TestJack does not read ({self.seen}); the "
                "witness compares with ==, which may be stricter than T0")

    def agrees(self, expected: Any, actual: Any) -> bool:
        """Whether ``actual`` counts as ``expected`` under this comparison (values, not sources)."""
        kind = self.for_answer(expected)
        try:
            if kind == "truth":
                return bool(expected) == bool(actual)
            if kind == "none":
                return (expected is None) == (actual is None)
            if kind == "set":
                return set(expected) == set(actual)
            if kind == "unordered":
                return sorted(expected) == sorted(actual)
            if kind == "close" and _numbers(expected) and _numbers(actual):
                return _close(expected, actual, self.rel, self.abs)
        except Exception:  # unhashable, unorderable, not iterable: the comparison cannot be made
            return False
        return False


def _max(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


def _numbers(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    return isinstance(value, (list, tuple)) and bool(value) and all(_numbers(v) for v in value)


def _close(a: Any, b: Any, rel: float | None, abs_: float | None) -> bool:
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(_close(x, y, rel, abs_) for x, y in zip(a, b))
    return math.isclose(a, b, rel_tol=rel if rel is not None else 1e-6, abs_tol=abs_ if abs_ is not None else 1e-12)


def _number(node: ast.AST) -> float | None:
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _call_of(node: ast.AST, what: str) -> ast.AST | None:
    """The single argument of ``what(x)`` (``sorted``, ``set``, ``abs``, ...)."""
    if isinstance(node, ast.Call) and name_of(node.func) == what and len(node.args) >= 1:
        return node.args[0]
    return None


class _Reader:
    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.answers: set[str] = set()  # variables that hold an answer: ``r = f(x)``

    def is_answer(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Call) and name_of(node.func) in self.names:
            return True
        inner = _call_of(node, "list") or _call_of(node, "tuple")  # an iterator's items, in order
        if inner is not None and isinstance(node, ast.Call) and len(node.args) == 1 and self.is_answer(inner):
            return True
        return isinstance(node, ast.Name) and node.id in self.answers

    def mentions(self, node: ast.AST) -> bool:
        return any(self.is_answer(n) for n in ast.walk(node))

    def judge(self, test: ast.AST) -> list[Comparison]:
        """The comparisons one ``assert`` applies to the function's answers."""
        seen = ast.unparse(test)[:80]
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return [c for v in test.values for c in self.judge(v)]
        if not self.mentions(test):
            return []
        if self.is_answer(test) or isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) \
                and self.is_answer(test.operand):
            return [Comparison(truth="truth", seen=seen)]
        if isinstance(test, ast.Call) and name_of(test.func) in _CLOSE_CALLS:
            if any(self.is_answer(a) for a in test.args[:2]):
                kw = {k.arg: _number(k.value) for k in test.keywords if k.arg}
                return [Comparison("close", kw.get("rel_tol", kw.get("rtol")), kw.get("abs_tol", kw.get("atol")),
                                   seen)]
            return [Comparison("unread", seen=seen)]
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            return [self._compare(test.left, test.ops[0], test.comparators[0], seen)]
        return [Comparison("unread", seen=seen)]

    def _compare(self, left: ast.AST, op: ast.cmpop, right: ast.AST, seen: str) -> Comparison:
        if isinstance(op, (ast.Is, ast.IsNot)):
            for side, other in ((left, right), (right, left)):
                if self.is_answer(side) and isinstance(other, ast.Constant):
                    if other.value is None:
                        return Comparison(truth="none", seen=seen)
                    return Comparison("equal", seen=seen, pinned=isinstance(other.value, bool))
            return Comparison("unread", seen=seen)
        if isinstance(op, (ast.Eq, ast.NotEq)):
            for side, other in ((left, right), (right, left)):
                if self.mentions(other):
                    continue
                if isinstance(side, ast.Compare) and len(side.ops) == 1 and isinstance(other, ast.Constant) \
                        and isinstance(side.ops[0], (ast.Is, ast.IsNot)):
                    return self._compare(side.left, side.ops[0], side.comparators[0], seen)  # (f(x) is None) == True
                if self.is_answer(side):
                    if _call_of(other, "approx") is not None:
                        kw = {k.arg: _number(k.value) for k in other.keywords if k.arg}
                        return Comparison("close", kw.get("rel"), kw.get("abs"), seen)
                    pinned = isinstance(other, ast.Constant) and (other.value is None or isinstance(other.value, bool))
                    return Comparison("equal", seen=seen, pinned=pinned)
                for wrapper, kind in (("sorted", "unordered"), ("set", "set"), ("frozenset", "set")):
                    inner = _call_of(side, wrapper)
                    if inner is not None and self.is_answer(inner):
                        return Comparison(kind, seen=seen)
                inner = _call_of(side, "round")
                if inner is not None and self.is_answer(inner):
                    digits = _number(side.args[1]) if len(side.args) > 1 else 0.0
                    return Comparison("close", 0.0, 10 ** -(digits or 0.0), seen)
            return Comparison("unread", seen=seen)
        if isinstance(op, (ast.Lt, ast.LtE)):
            diff = _call_of(left, "abs") or _call_of(left, "fabs")
            tol = _number(right)
            if isinstance(diff, ast.BinOp) and isinstance(diff.op, ast.Sub) and tol is not None \
                    and (self.is_answer(diff.left) != self.is_answer(diff.right)) \
                    and not (self.mentions(diff.left) and self.mentions(diff.right)):
                return Comparison("close", 0.0, tol, seen)
        return Comparison("unread", seen=seen)


def t0_comparison(sources: Iterable[str], names: Iterable[str]) -> Comparison:
    """The loosest comparison T0's ``assert`` statements apply to the answers of ``names``."""
    reader = _Reader(set(names))
    found = Comparison()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):  # an answer kept in a variable first: ``r = f(x)``
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and reader.is_answer(node.value):
                reader.answers.add(node.targets[0].id)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assert):
                for c in reader.judge(node.test):
                    found = found.looser(c)
    return found


def stricter_than_t0(code: str, sources: Iterable[str], names: Iterable[str]) -> str:
    """Why a witness written by hand or by a model compares answers more strictly than T0; "" if not.

    The offline author renders its witnesses with T0's comparison; a witness from another author is
    read instead: ``==`` where T0 allows a tolerance, any order, repeats, or only a truth value
    (``f(x) == None`` where T0 asks ``not f(x)``) holds a trial to more than T0 does.
    """
    names = set(names)
    t0 = t0_comparison(sources, names)
    if not (t0.kind or t0.truth):
        return ""  # T0 compares none of these answers: nothing to be stricter than
    mine = t0_comparison([code], names)
    stricter = (mine.kind and mine.kind != "unread" and t0.kind
                and ORDER.index(mine.kind) < ORDER.index(t0.kind)) or (mine.pinned and bool(t0.truth))
    if not stricter:
        return ""
    return (f"the witness compares answers more strictly ({mine.seen}) than T0 does ({t0.seen}); "
            "a trial held to that may meet everything P and T0 ask")
