"""Rendering witnesses: one short pytest file per checked behaviour, readable by an analyst.

A witness states one call and what it must give: ``assert f(<input>) == <expected>``, or
``with pytest.raises(<Error>)`` when it must raise. A call whose result is an iterator is checked
by its first items (``list(itertools.islice(f(<input>), 20)) == [...]``), an object a constructor
builds by the attributes the reference's object shows (``obj = C(<input>)``, then one ``assert``
per attribute). The module docstring says what it checks
and where the expectation comes from (P's own example, or the reference on an input found by a
probe or by amplifying T0), so the analyst can judge it without reading TestJack's code.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from testjack_tui.authors.offline.comparison import Comparison
from testjack_tui.authors.offline.probe import ITEMS, REPR_KEY
from testjack_tui.pysource.signatures import Access, safe_identifier

_APPROX_NUMBERS = (int, float)


@dataclass(frozen=True)
class Spec:
    """Everything a witness file is rendered from (kept by the author for ``refine``)."""

    function: str  # the task function's name
    access: Access
    args: str  # argument list source
    expected: str | None = None  # literal source of the expected result
    raises: str | None = None  # exception class name when the call must raise
    source: str = "probe"  # "prompt" (P's example), "probe" (differential), "amplified" (T0 mutated)
    why: str = ""  # one line for the analyst: how the input was found
    deadline: float | None = None  # seconds the call may take (the trial ran out of time, the reference did not)
    # a result witness on an input of the author's own: a call that gives no answer within these
    # seconds is skipped there (a slow finding, not a wrong answer); any answer must be the reference's
    patience: float | None = None
    shape: str = ""  # the reference's result, materialised: "items" (an iterator's) or "view" (an object's)
    # any answer will do (the reference's value on this input is an accident P does not pin down):
    # only an exception fails it, and, as with ``patience``, no answer in time skips it
    answers_only: bool = False
    compare: Comparison = Comparison()  # how T0 compares this function's answers: no more strictly here
    doubt: str = ""  # why the expectation may not bind a trial (see ``Witness.doubt``)

    @property
    def doubts(self) -> str:
        """Why this witness can at most need a ruling; "" when nothing casts doubt on it."""
        reasons = [self.doubt]
        if not (self.raises or self.deadline or self.answers_only):
            reasons.append(self.compare.doubt(_literal(self.expected or "None")))
        return "; ".join(r for r in reasons if r)

    @property
    def call(self) -> str:
        return f"{self.access.expr}({self.args})"

    @property
    def checked(self) -> str:
        """The expression whose value the witness compares (an iterator's first items)."""
        return f"list(itertools.islice({self.call}, {ITEMS}))" if self.shape == "items" else self.call

    @property
    def shown_call(self) -> str:
        if "." in self.function:  # a method: show the object it is called on, ``Pager(10).pages(50)``
            return f"{self.access.expr}({self.args})"
        return f"{self.function}({self.args})"


def _uses_floats(value: object) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, float) for v in value) and all(
            isinstance(v, _APPROX_NUMBERS) and not isinstance(v, bool) for v in value
        )
    if isinstance(value, dict):
        return any(isinstance(v, float) for v in value.values()) and all(
            isinstance(v, _APPROX_NUMBERS) and not isinstance(v, bool) for v in value.values()
        )
    return False


def expectation(expected: str) -> tuple[str, bool]:
    """The right-hand side of the assertion, and whether it needs ``pytest``.

    Floats are compared with ``pytest.approx``: the last digit of a float is an accident of the
    order of operations, not a requirement.
    """
    try:
        value = ast.literal_eval(expected)
    except (ValueError, SyntaxError):
        return expected, False
    if _uses_floats(value):
        return f"pytest.approx({expected})", True
    return expected, False


def requirement_text(spec: Spec) -> str:
    if spec.deadline:
        # a timing witness states a time limit and nothing else: what the answer is, is for
        # the other witnesses to say (on a size-scaled input a trial may hit an interpreter
        # limit, recursion depth, without having been shown slow)
        return f"{shorten(spec.shown_call, 160)} gives its answer within {spec.deadline:g} s, as the reference does"
    if spec.raises:
        outcome = f"raises {spec.raises}"
    elif spec.answers_only:
        outcome = f"returns without raising (the reference returns {shorten(spec.expected or '', 40)}; any value will do)"
    elif spec.shape == "items":
        outcome = f"yields {shorten(spec.expected or '')} (its first {ITEMS} items)"
    elif spec.shape == "view":
        outcome = f"builds an object with {shorten(_view_text(spec.expected))}"
    else:
        outcome = f"returns {shorten(spec.expected or '')}"
    if spec.patience:
        outcome += f" whenever it answers within {spec.patience:g} s"
    if spec.source == "prompt":
        return f"P's example: {spec.shown_call} {outcome}"
    return f"{shorten(spec.shown_call, 160)} {outcome}, as the reference does"


def shorten(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def test_name(spec: Spec) -> str:
    kind = "in_time" if spec.deadline else "raises" if spec.raises else "answers" if spec.answers_only else "result"
    tail = safe_identifier(spec.args)[:30].lower()
    return f"test_{safe_identifier(spec.function)}_{kind}_{tail}".rstrip("_")


def render(spec: Spec) -> str:
    """The whole test file for ``spec``."""
    if spec.source == "prompt":
        origin = "The prompt states this example; the reference passes it."
    elif spec.source == "amplified":
        origin = "Input: an official test's input, mutated; expectation: the reference's result."
    else:
        origin = "Input: found by a differential probe; expectation: the reference's result."
    if spec.deadline:
        origin = origin.split(";")[0] + "; expectation: an answer within the time limit, as the reference gives."
    elif spec.answers_only:
        origin = origin.split(";")[0] + "; expectation: an answer (any value) and no exception, as the reference gives."
    doc = requirement_text(spec)
    lines = [
        f'"""Witness (TestJack offline author): {_docline(doc)}.',
        "",
        origin,
    ]
    if spec.why:
        lines.append(_docline(spec.why))
    lines.append('"""')
    needs_pytest = bool(spec.raises) and not spec.deadline
    view = spec.shape == "view" and not spec.raises and not spec.deadline and not spec.answers_only
    rhs = ""
    checks: list[tuple[str, str]] = []
    if view:
        checks = _view_checks(spec.expected)
        needs_pytest = any(expectation(value)[1] for _, value in checks)
    elif not spec.raises and not spec.deadline and not spec.answers_only:
        rhs, approx = expectation(spec.expected or "None")
        needs_pytest = needs_pytest or approx or spec.compare.kind == "close" and _is_number(spec.expected or "")
    patient = bool(spec.patience) and not spec.deadline
    imports = (["import itertools"] if spec.shape == "items" else [])
    needs_pytest = needs_pytest or patient  # a patient witness skips when no answer comes in time
    imports += (["import signal"] if spec.deadline or patient else []) + (["import pytest"] if needs_pytest else [])
    imports += list(spec.access.imports)
    lines += ["", *imports, ""]
    call = spec.checked
    if spec.deadline:
        lines += ["", *_WITHIN]
        call = f"_within({spec.deadline:g}, lambda: {spec.checked})"
    elif patient:
        lines += ["", *_ANSWER]
        call = f"_answer({spec.patience:g}, lambda: {spec.checked})"
    lines += ["", f"def {test_name(spec)}():"]
    lines.append(f'    """{_docline(doc)}."""')
    if spec.deadline:
        lines.append(f"    {call}")
    elif spec.answers_only:
        lines.append(f"    {call}  # any value; an exception fails")
    elif spec.raises:
        lines += [f"    with pytest.raises({spec.raises}):", f"        {call}"]
    elif view:
        lines.append(f"    obj = {call}")
        lines += [f"    assert {read} == {expectation(value)[0]}" for read, value in checks]
    else:
        lines.append("    " + _judged(call, spec.expected or "None", rhs, spec.compare))
    return "\n".join(lines) + "\n"


def _judged(call: str, expected: str, rhs: str, compare: Comparison) -> str:
    """The assertion of a result, compared as T0 compares this function's answers."""
    value = _literal(expected)
    kind = compare.for_answer(value)
    if kind == "truth":
        return (f"assert {call}  # T0 asks only for a true value here" if value
                else f"assert not {call}  # T0 asks only for a false value here")
    if kind == "none":
        return f"assert {call} is {'' if value is None else 'not '}None  # T0 asks only for (no) answer"
    if kind in ("set", "unordered"):
        wrap = "set" if kind == "set" else "sorted"
        return f"assert {wrap}({call}) == {wrap}({expected})  # T0 compares these answers as {kind}"
    if kind == "close" and (rhs.startswith("pytest.approx(") or _is_number(expected)):
        tol = ", ".join(f"{k}={v!r}" for k, v in (("rel", compare.rel), ("abs", compare.abs)) if v is not None)
        return f"assert {call} == pytest.approx({expected}{', ' + tol if tol else ''})  # T0's tolerance"
    return f"assert {call} == {rhs}"


def _literal(expected: str) -> object:
    try:
        return ast.literal_eval(expected)
    except (ValueError, SyntaxError):
        return expected


def _is_number(expected: str) -> bool:
    value = _literal(expected)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# A deadline inside the test itself: a trial that never returns fails this one test in time,
# instead of holding up the whole witness run until its command times out. The TimeoutError is
# raised outside the interrupted call: pytest cannot render a traceback through a frame a signal
# interrupted mid-instruction (its line number is None), and reports an internal error instead.
# Any other end of the call (a result, an exception) is an answer in time: the witness fails only
# for want of time, so its every failure is a slow trial.
def _alarmed(head: list[str], late_base: str, body: list[str], tail: list[str] = ()) -> list[str]:
    """A helper function for a witness file: ``body`` runs under a SIGALRM of ``seconds``."""
    return [
        *head,
        "",
        f"    class Late({late_base}):",
        "        pass",
        "",
        "    def late(signum, frame):",
        "        raise Late",
        "",
        "    previous = signal.signal(signal.SIGALRM, late)",
        "    signal.setitimer(signal.ITIMER_REAL, seconds)",
        "    try:",
        *body,
        "    finally:",
        "        signal.setitimer(signal.ITIMER_REAL, 0)",
        "        signal.signal(signal.SIGALRM, previous)",
        *tail,
        "",
    ]


_WITHIN = _alarmed(
    ["def _within(seconds, call):",
     '    """Run call(); TimeoutError when it gives no answer (a result or an exception) within `seconds`."""'],
    "Exception",
    ["        call()", "        return", "    except Late:", "        pass", "    except Exception:", "        return"],
    ['    raise TimeoutError(f"no result within {seconds} s (the reference needs far less)")'],
)


# A patient result witness waits for an answer only so long: a trial that gives none in time is
# skipped there (a ``slow`` finding, never a wrong answer: slowness is not wrongness unless P
# bounds it, and the timing witnesses state that bound), while one that answers otherwise, or
# stops with an exception such as RecursionError, fails it. ``Late`` derives from BaseException
# so that a trial's own ``except Exception`` cannot swallow the deadline.
_ANSWER = _alarmed(
    ["def _answer(seconds, call):",
     '    """call(), or a skip when it gives no answer (a result or an exception) within `seconds`."""'],
    "BaseException",
    ["        return call()", "    except Late:", "        pass"],
    ['    pytest.skip(f"no answer within {seconds} s: slow here, which is reported apart from wrong answers")'],
)


def _view_checks(expected: str | None) -> list[tuple[str, str]]:
    """(read, expected literal) per name of an object's view: ``obj.lo``, ``repr(obj)``."""
    try:
        shown = ast.literal_eval(expected or "{}")
    except (ValueError, SyntaxError):
        return []
    return [("repr(obj)" if name == REPR_KEY else f"obj.{name}", repr(value))
            for name, value in sorted(shown.items(), key=lambda kv: (kv[0] == REPR_KEY, kv[0]))]


def _view_text(expected: str | None) -> str:
    checks = _view_checks(expected)
    return ", ".join(f"{read} == {value}" for read, value in checks) if checks else "no attribute to compare"


def _docline(text: str) -> str:
    # keep docstrings valid: no backslash escapes, no closing quotes inside
    return re.sub(r"\s+", " ", text.replace("\\", "\\\\").replace('"""', "'''")).strip()


_NOT_TASK_CALLS = {"raises", "approx", "_within", "_answer", "signal", "setitimer", "TimeoutError", "call", "Late",
                   "list", "islice", "repr"}


def calls_in_witness(code: str) -> set[str]:
    """Normalised call sources a witness file makes (to skip proposing the same check twice)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name and name not in _NOT_TASK_CALLS:
                out.add(f"{name}({', '.join([ast.unparse(a) for a in node.args] + [ast.unparse(k) for k in node.keywords])})")
    return out


def call_key(function: str, args: str) -> str:
    function = function.rsplit(".", 1)[-1]  # as ``calls_in_witness`` names it: ``Class().m(x)`` is ``m(x)``
    try:
        node = ast.parse(f"{function}({args})", mode="eval").body
    except SyntaxError:
        return f"{function}({args})"
    assert isinstance(node, ast.Call)
    return f"{function}({', '.join([ast.unparse(a) for a in node.args] + [ast.unparse(k) for k in node.keywords])})"
