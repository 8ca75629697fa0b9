"""Export a HumanEval run as HumanEval+ (EvalPlus) files whose extra inputs come from T1's witnesses.

Written under ``out``:

- ``HumanEvalPlus-T1.jsonl``: one problem per task with EvalPlus's fields (``task_id, prompt,
  entry_point, canonical_solution, test, contract, base_input, plus_input, atol``).
  ``base_input`` holds the literal calls of T0's ``check``; ``plus_input`` the argument lists of the
  witnesses that call the entry point on literal arguments and compare its answer with a literal
  (EvalPlus takes the expected outputs from the reference, ``canonical_solution``, which every
  witness passed). ``test`` is T0's ``check`` followed by the witnesses, each run as it was
  validated, so TestJack's own HumanEval importer grades with T1.
- ``samples.jsonl``: each trial's whole program (``task_id, solution, id, model, agent``).
- ``testjack_t1.json``: the provenance, with each witness's place (an input, or why it is none).

EvalPlus 0.3 reads the problems through ``HUMANEVAL_OVERRIDE_PATH``:

    HUMANEVAL_OVERRIDE_PATH=OUT/HumanEvalPlus-T1.jsonl evalplus.evaluate --dataset humaneval --samples OUT/samples.jsonl

A witness that checks something other than a returned value (an exception, a property of the
answer) has no EvalPlus input: it stays in ``test`` and is named in the provenance.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from testjack_tui.audit.execution import read_world_file
from testjack_tui.export.t1 import T1, ExportError, T1Witness, prepare, write_provenance
from testjack_tui.formats.evalplus_records import T1_EXPORT_MARK
from testjack_tui.formats.humaneval import MODULE, TEST_FILE, TEST_ID
from testjack_tui.model import Task, WorldKind

PROBLEMS_FILE = "HumanEvalPlus-T1.jsonl"
SAMPLES_FILE = "samples.jsonl"

_RUNNER = '''

# T1: TestJack's witnesses join T0's check (their provenance is in testjack_t1.json).
{mark}
_TESTJACK_WITNESSES = [
{entries}]


def check(candidate):
    _testjack_t0_check(candidate)
    for _wid, _code in _TESTJACK_WITNESSES:
        _ns = {{"__name__": "testjack_witness_" + _wid.replace("-", "_")}}
        exec(compile(_code, _wid + ".py", "exec"), _ns)
        for _name, _fn in list(_ns.items()):
            if _name.startswith("test") and callable(_fn):
                _fn()
'''


def write(t1: T1, out: Path) -> dict[str, int]:
    for entry in t1.tasks:
        _check_shape(entry.task)
    prepare(out)
    problems, places = [], {}
    for entry in t1.tasks:
        task = entry.task
        entry_point = task.title
        prompt = task.prompt
        reference = read_world_file(task, WorldKind.REFERENCE, None, MODULE) or ""
        canonical = reference[len(prompt):] if reference.startswith(prompt) else reference
        t0 = original_check(read_world_file(task, WorldKind.NULL, None, TEST_FILE) or "", entry_point)
        params = _parameters(prompt, entry_point)
        plus, where = [], []
        for w in entry.witnesses:
            args, why = witness_input(w.witness.code, entry_point, params)
            if args is None:
                where.append({"witness": w.witness.id, "plus_input": None, "why": why})
            else:
                plus.append(args)
                where.append({"witness": w.witness.id, "plus_input": len(plus) - 1})
        places[task.id] = where
        problems.append({
            "task_id": task.id,
            "prompt": prompt,
            "entry_point": entry_point,
            "canonical_solution": canonical,
            "test": t0 + _runner(entry.witnesses),  # always marked: a file is read one way, whatever its first task
            "contract": "",
            "base_input": check_inputs(t0, params),
            "plus_input": plus,
            "atol": 0,
        })
    with (out / PROBLEMS_FILE).open("w", encoding="utf-8") as f:
        for row in problems:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    tasks = {e.task.id: e.task for e in t1.tasks}
    with (out / SAMPLES_FILE).open("w", encoding="utf-8") as f:
        for trial in t1.trials:
            program = read_world_file(tasks[trial.task_id], WorldKind.MODEL, trial, MODULE) or ""
            f.write(json.dumps({"task_id": trial.task_id, "solution": program, "id": trial.id,
                                "model": trial.model, "agent": trial.agent}, ensure_ascii=False) + "\n")
    write_provenance(out, t1, "evalplus", {"plus_input": places})
    return {"tasks": len(problems), "trials": len(t1.trials), "witnesses": sum(len(t.witnesses) for t in t1.tasks)}


def _check_shape(task: Task) -> None:
    if task.tests.graded != [TEST_ID] or TEST_FILE not in task.test_patch:
        raise ExportError(f"task {task.id} is not a HumanEval task (T0 is not {TEST_ID}); the evalplus "
                          "export is for runs imported with --format humaneval")


def original_check(test_module: str, entry_point: str) -> str:
    """The problem's own ``test`` text inside the test module the HumanEval importer wrote."""
    head = f"from solution import {entry_point}\n"
    start = test_module.find(head)
    body = test_module[start + len(head):] if start >= 0 else test_module
    end = body.rfind("\n\n\ndef test_check():")
    return (body[:end] if end >= 0 else body).rstrip() + "\n"


def _runner(witnesses: list[T1Witness]) -> str:
    entries = "".join(
        f"    # {w.witness.id} ({w.witness.classification}): {w.witness.requirement.replace(chr(10), ' ')}\n"
        f"    ({w.witness.id!r}, {w.file_text()!r}),\n"
        for w in witnesses
    )
    return _RUNNER.format(mark=T1_EXPORT_MARK, entries=entries)


def _parameters(prompt: str, entry_point: str) -> list[str]:
    try:
        tree = ast.parse(prompt + "\n    pass\n")
    except SyntaxError:
        return []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            return [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
    return []


def _is_entry(func: ast.expr, entry_point: str) -> bool:
    return (isinstance(func, ast.Name) and func.id == entry_point) or (
        isinstance(func, ast.Attribute) and func.attr == entry_point)


def _arguments(call: ast.Call, params: list[str]) -> list[Any] | None:
    """The call's arguments in positional order, when every one is a literal; else None."""
    try:
        args = [ast.literal_eval(a) for a in call.args]
        named = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or None in named:
        return None
    for name in params[len(args):]:
        if not named:
            break
        if name not in named:
            return None  # a default skipped before a named argument: no positional form
        args.append(named.pop(name))
    return None if named else args


def witness_input(code: str, entry_point: str, params: list[str]) -> tuple[list[Any] | None, str]:
    """The argument list of a witness that asserts ``entry(literals) == literal``; else None and why."""
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return None, f"does not parse ({exc.msg})"
    tests = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]
    asserts = [n for t in tests for n in ast.walk(t) if isinstance(n, ast.Assert)]
    if len(tests) != 1 or len(asserts) != 1:
        return None, "not one test with one assertion"
    test = asserts[0].test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None, "its assertion is not an equality with the answer"
    sides = [test.left, test.comparators[0]]
    calls = [s for s in sides if isinstance(s, ast.Call) and _is_entry(s.func, entry_point)]
    others = [s for s in sides if s not in calls]
    if len(calls) != 1:
        return None, f"does not compare one call of {entry_point} with a value"
    try:
        ast.literal_eval(others[0])
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None, "compares the answer with a computed value, not a literal"
    args = _arguments(calls[0], params)
    if args is None:
        return None, f"calls {entry_point} on arguments that are not literals"
    if not _json_exact(args):
        return None, "its arguments have no exact JSON form (a tuple, a set, bytes)"
    return args, ""


def _json_exact(value: Any) -> bool:
    """Whether JSON gives back the same value and types (EvalPlus inputs are JSON)."""
    try:
        back = json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return False
    return _same(value, back)


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b or (a != a and b != b)


def check_inputs(check: str, params: list[str]) -> list[list[Any]]:
    """The literal calls ``candidate(...)`` of T0's check, in order: EvalPlus's ``base_input``."""
    try:
        tree = ast.parse(check)
    except SyntaxError:
        return []
    inputs = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "candidate":
            args = _arguments(node, params)
            if args is not None and _json_exact(args):
                inputs.append(args)
    return inputs
