"""EvalPlus's released records (HumanEval+, MBPP+) as HumanEval problems whose ``check`` is EvalPlus's grading.

An EvalPlus record has no ``check()``: its tests are inputs (``base_input``, and ``plus_input``
for the extended tests) whose expected answers EvalPlus computes by running the reference
(``prompt + canonical_solution``) and compares with the sample's, within ``atol`` where they are
floats. T0 here is that grading written out as a ``check(candidate)``: the reference is run once
at import, in a child process (a reference may loop or print), and each input becomes one assert.

Whatever EvalPlus does for particular tasks is read from the ``evalplus`` package itself
(Apache-2.0; the optional extra ``testjack[evalplus]``) at import time, so TestJack names no task:
inputs turned back into tuples (``mbpp_deserialize_inputs``), answers judged only by whether they
are None, and the special oracles of its grader. For a task one of those applies to, the test
module holds EvalPlus's own special-oracle code (its ``_special_oracle`` module and the
special-oracle block of its grader, taken from the installed package) and every input is judged
by it; the other tasks get plain asserts (``==``, or ``pytest.approx`` where the answer holds
floats), which is what the offline author reads as T0's comparison.
"""

from __future__ import annotations

import ast
import functools
import inspect
import json
import pickle
import subprocess
import sys
import textwrap
from typing import Any

EXTRA = "pip install 'testjack[evalplus]'"
RECORD_FIELDS = ("task_id", "prompt", "canonical_solution", "entry_point", "base_input")
REFERENCE_TIMEOUT_S = 120.0  # the reference on every input of one task
TESTS = ("base", "plus")  # base: what EvalPlus grades as "base"; plus: base and the extended inputs


class RecordError(Exception):
    """Why one EvalPlus record cannot be turned into a task (the caller names file and record)."""


class EvalPlusUnavailable(RecordError):
    """No record can be read: the evalplus package is missing, or is not a version TestJack reads."""


# What TestJack's own T1 export (``testjack export --format evalplus``) writes into ``test``: there
# ``test`` is T1 in full (T0's check and every witness, some of which have no EvalPlus input), so
# such a record is read by its ``test``, as a HumanEval problem, not by its inputs.
T1_EXPORT_MARK = "_testjack_t0_check = check"


def is_evalplus_record(row: dict[str, Any]) -> bool:
    """A record EvalPlus released (inputs, no check() that says it all); not TestJack's T1 export."""
    return "base_input" in row and T1_EXPORT_MARK not in str(row.get("test", ""))


def as_humaneval(record: dict[str, Any], tests: str = "base") -> dict[str, Any]:
    """The record as a HumanEval problem (``task_id, prompt, canonical_solution, entry_point, test``)."""
    missing = [f for f in RECORD_FIELDS if f not in record]
    if missing:
        raise RecordError("missing field(s): " + ", ".join(missing))
    if tests not in TESTS:
        raise RecordError(f"T0 must be one of {', '.join(TESTS)}, not {tests!r}")
    if tests == "plus" and not isinstance(record.get("plus_input"), list):
        raise RecordError("--t0 plus needs plus_input (a list of argument lists)")
    evalplus = _evalplus()
    dataset = "mbpp" if str(record["task_id"]).startswith("Mbpp/") else "humaneval"
    inputs = _inputs(record, "base_input", dataset, evalplus)
    if tests == "plus":
        inputs += _inputs(record, "plus_input", dataset, evalplus)
    entry = record["entry_point"]
    not_none = entry in evalplus.not_none
    answers = _answers(record, inputs, not_none)
    try:
        atol = float(record.get("atol") or 0)
    except (TypeError, ValueError) as exc:
        raise RecordError(f"atol must be a number, not {record.get('atol')!r}") from exc
    if _special(evalplus, dataset, entry):
        body = _oracle_check(evalplus, dataset, entry, inputs, answers, atol)
    else:
        body = _plain_check(inputs, answers, atol)
    row = {k: record[k] for k in ("task_id", "prompt", "canonical_solution", "entry_point")}
    row["test"] = body
    return row


class _EvalPlus:
    """What TestJack reads from the installed evalplus package."""

    def __init__(self) -> None:
        from evalplus.data.mbpp import mbpp_deserialize_inputs
        from evalplus.eval import _special_oracle, unsafe_execute

        self.version = _version()
        self.deserialize = mbpp_deserialize_inputs
        self.not_none = set(_special_oracle.MBPP_OUTPUT_NOT_NONE_TASKS)
        self.oracle_module = inspect.getsource(_special_oracle)
        self.oracle_names = {k: v for k, v in vars(_special_oracle).items() if not k.startswith("__")}
        self.block = _special_block(inspect.getsource(unsafe_execute), self.version)


def _version() -> str:
    try:
        from evalplus import __version__
        return str(__version__)
    except ImportError:
        return "unknown"


@functools.lru_cache(maxsize=1)
def _evalplus() -> _EvalPlus:
    try:
        return _EvalPlus()
    except ImportError as exc:
        raise EvalPlusUnavailable(f"EvalPlus records are graded with the evalplus package, which is not installed "
                          f"({exc}): {EXTRA}") from exc


def _special_block(grader: str, version: str) -> str:
    """The special-oracle block of EvalPlus's grader (between its two "special oracles" markers)."""
    lines = grader.splitlines()
    marks = [i for i, line in enumerate(lines) if "special oracles" in line]
    if len(marks) != 2:
        raise EvalPlusUnavailable(f"evalplus {version}: its grader has no special-oracle block where TestJack "
                          f"looks for one; install the version testjack[evalplus] names")
    block = textwrap.dedent("\n".join(lines[marks[0] + 1:marks[1]]))
    ast.parse(block)
    return block


def _special(evalplus: _EvalPlus, dataset: str, entry: str) -> bool:
    """Whether EvalPlus's special-oracle block does anything for this task: its conditions read only
    the dataset, the entry point and the oracle module's names, so they are decided here."""
    names = dict(evalplus.oracle_names, dataset=dataset, entry_point=entry)

    def acts(body: list[ast.stmt]) -> bool:
        for node in body:
            if not isinstance(node, ast.If):
                return True
            try:
                taken = eval(compile(ast.Expression(node.test), "<evalplus>", "eval"), names)
            except NameError:  # a condition on the answers: only a run can decide, so the oracle is kept
                return True
            if acts(node.body if taken else node.orelse):
                return True
        return False

    return acts(ast.parse(evalplus.block).body)


def _inputs(record: dict[str, Any], field: str, dataset: str, evalplus: _EvalPlus) -> list[list[Any]]:
    inputs = record[field]
    if not isinstance(inputs, list) or not all(isinstance(args, list) for args in inputs):
        raise RecordError(f"{field} must be a list of argument lists")
    return evalplus.deserialize(record["task_id"], inputs) if dataset == "mbpp" else inputs


# Runs the reference on every input in a child process and prints each answer as a literal (or,
# for a value with no literal, a pickle); with not_none, only whether the answer is None.
_ANSWERS = r"""
import json, pickle, sys
problem = pickle.loads(bytes.fromhex(sys.stdin.read()))
space = {}
exec(problem["prompt"] + problem["canonical_solution"], space)
f = space[problem["entry_point"]]
out = []
for args in problem["inputs"]:
    value = f(*args)
    if problem["not_none"]:
        value = value is not None
    try:
        text = repr(value)
        ok = eval(text, {}) == value
    except Exception:
        ok = False
    out.append(text if ok else "__import__('pickle').loads(bytes.fromhex(%r))" % pickle.dumps(value).hex())
print(json.dumps(out))
"""


def _answers(record: dict[str, Any], inputs: list[list[Any]], not_none: bool) -> list[str]:
    """The reference's answer to each input, as Python source."""
    problem = {k: record[k] for k in ("prompt", "canonical_solution", "entry_point")}
    problem.update(inputs=inputs, not_none=not_none)
    try:
        done = subprocess.run([sys.executable, "-c", _ANSWERS], input=pickle.dumps(problem).hex(),
                              capture_output=True, text=True, timeout=REFERENCE_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        raise RecordError(f"the reference did not answer its inputs within {REFERENCE_TIMEOUT_S:.0f} s") from exc
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RecordError(f"the reference fails on its inputs: {last}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _literal(value: Any) -> str:
    text = repr(value)
    try:
        if eval(text, {}) == value:
            return text
    except Exception:
        pass
    return f"__import__('pickle').loads(bytes.fromhex({pickle.dumps(value).hex()!r}))"


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, (list, tuple, set)):
        return any(_has_float(v) for v in value)
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    return False


def _plain_check(inputs: list[list[Any]], answers: list[str], atol: float) -> str:
    lines = ["def check(candidate):", "    import pytest"]
    for args, expected in zip(inputs, answers):
        call = f"candidate({', '.join(_literal(a) for a in args)})"
        if atol or _has_float(eval(expected, {})):
            lines.append(f"    assert {call} == pytest.approx({expected}, rel=1e-6, abs={max(atol, 1e-6)!r})")
        else:
            lines.append(f"    assert {call} == {expected}")
    return "\n".join(lines) + "\n"


# EvalPlus's rule after its special oracles (facts of its grader, written here): floats, or
# lists of floats, get atol 1e-6 at least; an inexact answer then passes when it has the expected
# type and length and is within atol + 1e-7 x |expected| of it, element by element.
_TOLERANCE = '''
def _evalplus_floats(x):
    return isinstance(x, float) or (isinstance(x, (list, tuple)) and bool(x) and all(isinstance(i, float) for i in x))


def _evalplus_flat(x):
    return [v for i in x for v in _evalplus_flat(i)] if isinstance(x, (list, tuple)) else [x]


def _evalplus_tolerance(out, exp, atol, exact_match):
    if atol == 0 and _evalplus_floats(exp):
        atol = 1e-6
    if exact_match or atol == 0:
        return bool(exact_match)
    assert type(out) == type(exp)
    if isinstance(exp, (list, tuple)):
        assert len(out) == len(exp)
    pairs = list(zip(_evalplus_flat(out), _evalplus_flat(exp)))
    return all(o == e or abs(o - e) <= atol + 1e-7 * abs(e) for o, e in pairs)
'''


def _oracle_check(evalplus: _EvalPlus, dataset: str, entry: str, inputs: list[list[Any]], answers: list[str],
                  atol: float) -> str:
    """A check that judges each answer with EvalPlus's special-oracle code, then its tolerance rule."""
    block = textwrap.indent(evalplus.block, " " * 8)
    grade = (
        "def _evalplus_base(dataset, entry_point, inp, out, exp, atol):\n"
        "    exact_match = out == exp\n"
        "    for _once in (0,):\n"
        f"{block}\n"
        "        break\n"
        "    else:\n"
        "        return True  # the block's `continue`: EvalPlus counts this input as passed\n"
        "    return _evalplus_tolerance(out, exp, atol, exact_match)\n"
    )
    lines = ["def check(candidate):"]
    for args, expected in zip(inputs, answers):
        given = ", ".join(_literal(a) for a in args)
        # the call written out, as in the plain asserts: readers of T0 (the offline author) take
        # the task's inputs from its calls
        lines.append(f"    assert _evalplus_base({dataset!r}, {entry!r}, [{given}], candidate({given}), {expected}, {atol!r})")
    header = f"# EvalPlus {evalplus.version}'s special oracles (Apache-2.0), read from the installed package.\n"
    return "\n\n".join([header + evalplus.oracle_module.strip(), _TOLERANCE.strip(), grade, "\n".join(lines) + "\n"])
