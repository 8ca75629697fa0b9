"""Import HumanEval / EvalPlus problems and samples as a run of one-module repositories.

Each problem becomes a task whose repository R holds ``solution.py``: the prompt (signature and
docstring) followed by a body that raises ``NotImplementedError``, so the null world fails T0.
The reference patch G fills in ``canonical_solution``; each sample's patch makes ``solution.py``
the sample's program. T0 is the problem's own ``check(candidate)``, added by the test patch as
``test_humaneval.py`` and graded as ``test_humaneval.py::test_check``.

EvalPlus's released records (HumanEval+, MBPP+: ``base_input`` and no ``check``) are recognised
and read through ``evalplus_records``: T0 is then EvalPlus's base grading of the base inputs, or,
with ``t0="plus"``, of the base and the extended inputs (``plus_input``). The extended inputs are
not T0 by default: they are what an audit is measured against, not what the benchmark graded as base.

Inputs: ``path`` is a directory holding a problems file and one or more samples files (told apart
by their first rows), or the problems file itself with ``samples=PATH``. A sample is
``{task_id, solution}`` (the whole program) or ``{task_id, completion}`` (a body appended to the
prompt), with optional ``id``, ``model``, ``agent`` and a verdict (``passed``, ``base_status``,
``result`` or ``official``); without a verdict the trial's official result is "unknown", and a
verdict outside the known values is refused (see ``_official``).

Samples are not always labelled right: some tools write the body under ``solution``. A solution
that does not define the entry point at top level is read as a body (prompt + solution) when that
compiles, and a completion that does not compile after the prompt but is a whole program defining
the entry point is read as that program; each samples file gets one warning counting the samples
read so. A solution that is neither a program defining the entry point nor a body completing the
prompt cannot be told apart from garbage: the import is refused, naming the file and the line.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from testjack_tui.formats import ImportedRun, ImportError_, ImportProblem
from testjack_tui.formats._common import (
    files_digest,
    first_records,
    open_text,
    read_records,
    text_file_diff,
    write_snapshot,
)
from testjack_tui.formats.evalplus_records import (
    TESTS,
    EvalPlusUnavailable,
    RecordError,
    as_humaneval,
    is_evalplus_record,
)
from testjack_tui.model import Environment, Official, Run, Task, TestSpec, Trial

FORMAT = "humaneval"
MODULE = "solution.py"
SNIFF_ROWS = 20  # rows read to tell a problems file from a samples file
TEST_FILE = "test_humaneval.py"
TEST_ID = f"{TEST_FILE}::test_check"
COMMAND = "python -m pytest -p no:cacheprovider -q --junitxml={junit} {tests}"
TIMEOUT = 30.0
PROBLEM_FIELDS = ("task_id", "prompt", "canonical_solution", "test", "entry_point")
_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz")


def load(
    path: Path,
    staging: Path,
    name: str | None = None,
    samples: Path | list[Path] | None = None,
    t0: str = "base",
    fmt: str = FORMAT,
    **options: Any,
) -> ImportedRun:
    """Read problems and samples; write each task's R under ``staging``; return the run.

    ``t0`` says which of an EvalPlus record's inputs are T0 (``base`` or ``plus``); ``fmt`` is the
    format name the run is recorded under (``evalplus`` reads through here too)."""
    path = Path(path)
    staging = Path(staging)
    if t0 not in TESTS:
        raise ImportError_([ImportProblem(str(path), "", f"T0 must be one of {', '.join(TESTS)}, not {t0!r}")])
    problems_file, sample_files = locate(path, samples)
    skipped: list[ImportProblem] = []
    problems, tasks = _read_problems(problems_file, staging, skipped, t0)
    trials, warnings = _read_samples(sample_files, problems, skipped)
    benchmark = _benchmark_name(problems)
    run = Run(
        id="",
        name=name or (path.resolve().name if path.is_dir() else _stem(problems_file)),
        benchmark=benchmark,
        description=f"{len(tasks)} {benchmark} problems, {len(trials)} samples",
        source=str(path.resolve()),
        format=fmt,
        digest=files_digest([problems_file, *sample_files], extra=FORMAT if t0 == "base" else f"{FORMAT} t0={t0}"),
    )
    return ImportedRun(run=run, tasks=tasks, trials=trials, skipped=skipped, warnings=warnings)


def _read_problems(
    problems_file: Path, staging: Path, skipped: list[ImportProblem], t0: str = "base"
) -> tuple[dict[str, dict[str, Any]], list[Task]]:
    """The usable problems by task id, each with its task (R written under ``staging``); the
    others go to ``skipped``, and the import stops when none is usable."""
    tasks: list[Task] = []
    problems: dict[str, dict[str, Any]] = {}
    for where, row in read_records(problems_file):
        if isinstance(row, ImportProblem):
            skipped.append(row)
            continue
        problem = _released(row, t0) if is_evalplus_record(row) else _check_problem(row)
        if isinstance(problem, EvalPlusUnavailable):
            raise ImportError_([ImportProblem(str(problems_file), _where(where, row), str(problem))])
        if isinstance(problem, str):
            skipped.append(ImportProblem(str(problems_file), _where(where, row), problem))
            continue
        if problem["task_id"] in problems:
            skipped.append(
                ImportProblem(str(problems_file), _where(where, row), "duplicate task_id; the first is kept")
            )
            continue
        problems[problem["task_id"]] = problem
        tasks.append(_task(problem, staging))
    if not problems:
        raise ImportError_(
            [ImportProblem(str(problems_file), "", "no usable problem (each needs " + ", ".join(PROBLEM_FIELDS) + ")"), *skipped]
        )
    return problems, tasks


def _read_samples(
    sample_files: list[Path], problems: dict[str, dict[str, Any]], skipped: list[ImportProblem]
) -> tuple[list[Trial], list[ImportProblem]]:
    """A trial per usable sample, and warnings about samples read otherwise than labelled; a
    sample that cannot be read at all stops the import (after naming them all)."""
    trials: list[Trial] = []
    seen_ids: set[str] = set()
    per_task: dict[str, int] = {}
    refused: list[ImportProblem] = []
    warnings: list[ImportProblem] = []
    for sample_file in sample_files:
        reread: dict[str, list[str]] = {"body": [], "program": []}  # how relabelled -> where
        total = 0
        for where, row in read_records(sample_file):
            if isinstance(row, ImportProblem):
                skipped.append(row)
                continue
            trial = _trial(row, problems, per_task, seen_ids)
            if isinstance(trial, _Unreadable):
                refused.append(ImportProblem(str(sample_file), _where(where, row), str(trial)))
                continue
            if isinstance(trial, str):
                skipped.append(ImportProblem(str(sample_file), _where(where, row), trial))
                continue
            total += 1
            if trial.metadata.get(READ_AS):
                reread[trial.metadata[READ_AS]].append(_where(where, row))
            seen_ids.add(trial.id)
            trials.append(trial)
        warnings += _relabel_warnings(sample_file, reread, total)
        if not total and any(p.file == str(sample_file) for p in skipped):
            first = next(p for p in skipped if p.file == str(sample_file))
            refused.append(ImportProblem(str(sample_file), "", f"no record is a sample (first: {first.record}: "
                                         f"{first.message}); is it the samples file?"))
    if refused:
        raise ImportError_(refused)
    return trials, warnings


def null_program(prompt: str, entry_point: str) -> str:
    """The prompt with a body that raises, indented to fit the entry point's ``def``."""
    if not prompt.endswith("\n"):
        prompt += "\n"
    match = None
    for match in re.finditer(rf"^([ \t]*)(?:async[ \t]+)?def[ \t]+{re.escape(entry_point)}\b", prompt, re.M):
        pass  # the last definition of the entry point is the one the prompt leaves open
    if match is None:  # no signature (MBPP's prompts): the null world defines the entry point, so it imports
        return f"{prompt}\n\ndef {entry_point}(*args, **kwargs):\n    raise NotImplementedError(\"{entry_point} is not implemented yet\")\n"
    indent = match.group(1) + "    "
    return f"{prompt}{indent}raise NotImplementedError(\"{entry_point} is not implemented yet\")\n"


def test_module(problem: dict[str, Any]) -> str:
    """The official test file: the task's ``check`` run against the entry point from solution.py."""
    entry = problem["entry_point"]
    # The original harness ran prompt, completion and test in one namespace, so checks may use the
    # prompt's helpers and imports (``poly``, ``math``); the star import gives them the same names.
    return (
        "# Official HumanEval test (T0), imported by TestJack.\n"
        "from solution import *  # noqa: F401,F403\n"
        f"from solution import {entry}\n"
        f"{problem['test'].rstrip()}\n"
        "\n\n"
        "def test_check():\n"
        f"    check({entry})\n"
    )


def locate(path: Path, samples: Path | list[Path] | None) -> tuple[Path, list[Path]]:
    if not path.exists():
        raise ImportError_([ImportProblem(str(path), "", "no such file or directory")])
    given = [Path(s) for s in ([samples] if isinstance(samples, (str, Path)) else (samples or []))]
    for s in given:
        if not s.exists():
            raise ImportError_([ImportProblem(str(s), "", "samples file not found")])
    if path.is_file():
        return path, given
    problems_files: list[Path] = []
    sample_files: list[Path] = []
    for f in sorted(path.iterdir()):
        if not f.is_file() or not f.name.lower().endswith(_SUFFIXES):
            continue
        rows = first_records(f, SNIFF_ROWS)
        if not rows:
            open_text(f)  # an unreadable file (a corrupt .gz, bytes that are not UTF-8) is named, not passed over
            continue
        if any("canonical_solution" in r or ("prompt" in r and "entry_point" in r) for r in rows):
            problems_files.append(f)
        elif any("task_id" in r and ("solution" in r or "completion" in r) for r in rows):
            sample_files.append(f)  # a bad first row is then named and skipped like any other
    if not problems_files:
        raise ImportError_(
            [ImportProblem(str(path), "", "no problems file (JSONL rows with task_id, prompt, canonical_solution, test, entry_point)")]
        )
    if len(problems_files) > 1:
        names = ", ".join(f.name for f in problems_files)
        raise ImportError_([ImportProblem(str(path), "", f"more than one problems file ({names}); pass one file and samples=")])
    return problems_files[0], given or sample_files


def _check_problem(row: dict[str, Any]) -> dict[str, Any] | str:
    missing = [f for f in PROBLEM_FIELDS if not isinstance(row.get(f), str)]
    if missing:
        return "missing or non-text field(s): " + ", ".join(missing)
    if not row["entry_point"].isidentifier():
        return f"entry_point {row['entry_point']!r} is not a Python name"
    if "def check" not in row["test"]:
        return "test does not define check(candidate)"
    return row


def _released(row: dict[str, Any], t0: str) -> dict[str, Any] | str | EvalPlusUnavailable:
    """An EvalPlus record as a checked HumanEval problem, or why it cannot be one."""
    try:
        return _check_problem(as_humaneval(row, t0))
    except EvalPlusUnavailable as exc:
        return exc
    except RecordError as exc:
        return f"EvalPlus record: {exc}"


def _task(problem: dict[str, Any], staging: Path) -> Task:
    prompt, entry = problem["prompt"], problem["entry_point"]
    null = null_program(prompt, entry)
    snapshot, digest = write_snapshot(staging, {MODULE: null})
    reference = prompt + problem["canonical_solution"]
    return Task(
        run_id="",
        id=problem["task_id"],
        title=entry,
        prompt=prompt,
        snapshot=snapshot,
        snapshot_digest=digest,
        reference_patch=text_file_diff(MODULE, null, reference),
        test_patch=text_file_diff(TEST_FILE, None, test_module(problem)),
        tests=TestSpec(command=COMMAND, fail_to_pass=[TEST_ID], pass_to_pass=[], timeout=TIMEOUT),
        environment=Environment(),
    )


def _trial(
    row: dict[str, Any], problems: dict[str, dict[str, Any]], per_task: dict[str, int], seen: set[str]
) -> Trial | str:
    task_id = row.get("task_id")
    if not isinstance(task_id, str):
        return "missing task_id"
    problem = problems.get(task_id)
    if problem is None:
        return f"task_id {task_id!r} is not in the problems file"
    if isinstance(row.get("solution"), str):
        field = "solution"
    elif isinstance(row.get("completion"), str):
        field = "completion"
    else:
        return "has neither solution (the whole program) nor completion (the body) as text"
    program, read_as = _program(row[field], field, problem)
    if read_as is None:
        return _Unreadable(program)
    official = _official(row)
    if isinstance(official, _Unreadable):
        return official
    per_task[task_id] = per_task.get(task_id, 0) + 1
    trial_id = str(row["id"]) if row.get("id") not in (None, "") else f"{task_id}#{per_task[task_id]}"
    if trial_id in seen:
        return f"duplicate sample id {trial_id!r}"
    null = null_program(problem["prompt"], problem["entry_point"])
    known = {"id", "task_id", "solution", "completion", "model", "agent", "passed", "base_status", "result", "official"}
    metadata = {k: v for k, v in row.items() if k not in known}
    if read_as:
        metadata[READ_AS] = read_as
    return Trial(
        run_id="",
        id=trial_id,
        task_id=task_id,
        model=str(row.get("model") or ""),
        agent=str(row.get("agent") or ""),
        patch=text_file_diff(MODULE, null, program),
        official=Official(official),
        metadata=metadata,
    )


READ_AS = "testjack_read_as"  # metadata of a sample read another way than its field says: "body" or "program"


class _Unreadable(str):
    """Why a sample's text is neither a program nor a body: the import is refused for it."""


def _program(text: str, field: str, problem: dict[str, Any]) -> tuple[str, str | None]:
    """The sample's whole program and how it was read.

    The second value is "" when the text was read as its field says, "body" for a solution read as
    prompt + solution, "program" for a completion read as the whole program, and None when the text
    is neither (the first value then says why).
    """
    prompt, entry = problem["prompt"], problem["entry_point"]
    as_body = prompt + text
    if field == "completion":
        if _compile_error(as_body) is None or not (_defines(text, entry) and _compile_error(text) is None):
            return as_body, ""  # a body that does not compile is the sample's own failure
        return text, "program"
    if _defines(text, entry):
        return text, ""  # a program that does not compile is the sample's own failure
    body_error = _compile_error(as_body)
    if body_error is None:
        return as_body, "body"
    if _compile_error(text) is None:
        return text, ""  # a program that defines no entry point: T0 will say so
    return _Unreadable(
        f"solution is neither a program defining {entry}() at top level nor a body completing the prompt "
        f"(prompt + solution: {body_error})"
    ), None


def _defines(text: str, name: str) -> bool:
    """Whether ``text`` binds ``name`` at top level (def, class, assignment or import).

    Text that does not parse is judged by its lines: a ``def name`` at column 0.
    """
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return re.search(rf"^(?:async[ \t]+)?def[ \t]+{re.escape(name)}\b", text, re.M) is not None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".")[0]) == name for a in node.names):
                return True
    return False


def _compile_error(program: str) -> str | None:
    """None when ``program`` compiles as a module (nothing is run), else the compiler's complaint."""
    try:
        compile(program, MODULE, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"{exc.msg} at line {exc.lineno}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return str(exc) or type(exc).__name__
    return None


def _relabel_warnings(sample_file: Path, reread: dict[str, list[str]], total: int) -> list[ImportProblem]:
    out = []
    for how, places in reread.items():
        if not places:
            continue
        what = ("gave a solution that does not define its entry point at top level: read as a body "
                "completing the prompt (prompt + solution)") if how == "body" else (
                "gave a completion that is a whole program, not a body: read as that program")
        out.append(ImportProblem(str(sample_file), "", f"{len(places)} of {total} samples {what}; first: {places[0]}"))
    return out


def _official(row: dict[str, Any]) -> Official | _Unreadable:
    """The sample's own verdict, if it carries one: human-eval's ``passed``/``result``, EvalPlus's ``base_status``.

    A value outside the known ones is refused, not guessed: ``"passed": "maybe"`` taken as no
    verdict (or as a failure) would change which trials are audited as passing.
    """
    if row.get("official") is not None:
        value = str(row["official"]).lower()
        if value in ("passed", "failed", "unknown"):
            return Official(value)
        return _Unreadable(f'official must be "passed", "failed" or "unknown", not {row["official"]!r}')
    if row.get("passed") is not None:
        if isinstance(row["passed"], bool):
            return Official.PASSED if row["passed"] else Official.FAILED
        return _Unreadable(f"passed must be true or false, not {row['passed']!r}")
    status = row.get("base_status")
    if status is not None:
        value = str(status).lower() if isinstance(status, str) else None
        if value in ("pass", "passed", "success"):
            return Official.PASSED
        if value in ("fail", "failed", "failure", "timeout", "error"):
            return Official.FAILED
        return _Unreadable(f'base_status must be "pass", "fail", "timeout" or "error", not {status!r}')
    result = row.get("result")
    if result is not None:
        # human-eval writes "passed", "timed out" or "failed: <why>"
        value = result.lower() if isinstance(result, str) else ""
        if value == "passed":
            return Official.PASSED
        if value == "timed out" or value.startswith("failed"):
            return Official.FAILED
        return _Unreadable(f'result must be "passed", "timed out" or "failed: ...", not {result!r}')
    return Official.UNKNOWN


def _where(where: str, row: dict[str, Any]) -> str:
    ident = row.get("id") or row.get("task_id")
    return f"{where} ({ident})" if isinstance(ident, str) and ident else where


def _benchmark_name(problems: dict[str, dict[str, Any]]) -> str:
    prefixes = {tid.split("/", 1)[0] for tid in problems if "/" in tid}
    return prefixes.pop() if len(prefixes) == 1 else "HumanEval"


def _stem(p: Path) -> str:
    name = p.name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return name
