"""Import HumanEval / EvalPlus problems and samples as a run of one-module repositories.

Each problem becomes a task whose repository R holds ``solution.py``: the prompt (signature and
docstring) followed by a body that raises ``NotImplementedError``, so the null world fails T0.
The reference patch G fills in ``canonical_solution``; each sample's patch makes ``solution.py``
the sample's program. T0 is the problem's own ``check(candidate)``, added by the test patch as
``test_humaneval.py`` and graded as ``test_humaneval.py::test_check``.

EvalPlus's extended inputs (``plus_input``, ``atol``, ...) are deliberately not imported as
tests: they are what an audit is measured against, not what the benchmark graded.

Inputs: ``path`` is a directory holding a problems file and one or more samples files (told apart
by their first record), or the problems file itself with ``samples=PATH``. A sample is
``{task_id, solution}`` (the whole program) or ``{task_id, completion}`` (a body appended to the
prompt), with optional ``id``, ``model``, ``agent`` and a verdict (``passed``, ``base_status``,
``result`` or ``official``); without a verdict the trial's official result is "unknown".
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from testjack_tui.formats import ImportedRun, ImportError_, ImportProblem
from testjack_tui.formats._common import (
    files_digest,
    first_record,
    read_records,
    text_file_diff,
    write_snapshot,
)
from testjack_tui.model import Environment, Official, Run, Task, TestSpec, Trial

FORMAT = "humaneval"
MODULE = "solution.py"
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
    **options: Any,
) -> ImportedRun:
    """Read problems and samples; write each task's R under ``staging``; return the run."""
    path = Path(path)
    staging = Path(staging)
    problems_file, sample_files = _locate(path, samples)

    skipped: list[ImportProblem] = []
    tasks: list[Task] = []
    problems: dict[str, dict[str, Any]] = {}
    for where, row in read_records(problems_file):
        if isinstance(row, ImportProblem):
            skipped.append(row)
            continue
        problem = _check_problem(row)
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

    trials: list[Trial] = []
    seen_ids: set[str] = set()
    per_task: dict[str, int] = {}
    for sample_file in sample_files:
        for where, row in read_records(sample_file):
            if isinstance(row, ImportProblem):
                skipped.append(row)
                continue
            trial = _trial(row, problems, per_task, seen_ids)
            if isinstance(trial, str):
                skipped.append(ImportProblem(str(sample_file), _where(where, row), trial))
                continue
            seen_ids.add(trial.id)
            trials.append(trial)

    benchmark = _benchmark_name(problems)
    run = Run(
        id="",
        name=name or (path.resolve().name if path.is_dir() else _stem(problems_file)),
        benchmark=benchmark,
        description=f"{len(tasks)} {benchmark} problems, {len(trials)} samples",
        source=str(path.resolve()),
        format=FORMAT,
        digest=files_digest([problems_file, *sample_files], extra=FORMAT),
    )
    return ImportedRun(run=run, tasks=tasks, trials=trials, skipped=skipped)


def null_program(prompt: str, entry_point: str) -> str:
    """The prompt with a body that raises, indented to fit the entry point's ``def``."""
    if not prompt.endswith("\n"):
        prompt += "\n"
    indent = "    "
    match = None
    for match in re.finditer(rf"^([ \t]*)(?:async[ \t]+)?def[ \t]+{re.escape(entry_point)}\b", prompt, re.M):
        pass  # the last definition of the entry point is the one the prompt leaves open
    if match:
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


def _locate(path: Path, samples: Path | list[Path] | None) -> tuple[Path, list[Path]]:
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
        row = first_record(f)
        if row is None:
            continue
        if "canonical_solution" in row or ("prompt" in row and "entry_point" in row):
            problems_files.append(f)
        elif "task_id" in row and ("solution" in row or "completion" in row):
            sample_files.append(f)
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
        program = row["solution"]
    elif isinstance(row.get("completion"), str):
        program = problem["prompt"] + row["completion"]
    else:
        return "has neither solution (the whole program) nor completion (the body) as text"
    official = _official(row)
    if isinstance(official, str) and official not in (o.value for o in Official):
        return official
    per_task[task_id] = per_task.get(task_id, 0) + 1
    trial_id = str(row["id"]) if row.get("id") not in (None, "") else f"{task_id}#{per_task[task_id]}"
    if trial_id in seen:
        return f"duplicate sample id {trial_id!r}"
    null = null_program(problem["prompt"], problem["entry_point"])
    known = {"id", "task_id", "solution", "completion", "model", "agent", "passed", "base_status", "result", "official"}
    return Trial(
        run_id="",
        id=trial_id,
        task_id=task_id,
        model=str(row.get("model") or ""),
        agent=str(row.get("agent") or ""),
        patch=text_file_diff(MODULE, null, program),
        official=Official(official),
        metadata={k: v for k, v in row.items() if k not in known},
    )


def _official(row: dict[str, Any]) -> str:
    """The sample's own verdict, if it carries one: human-eval's ``passed``/``result``, EvalPlus's ``base_status``."""
    if "official" in row:
        value = str(row["official"]).lower()
        return value if value in ("passed", "failed", "unknown") else f"official {row['official']!r} is not passed/failed"
    if isinstance(row.get("passed"), bool):
        return Official.PASSED if row["passed"] else Official.FAILED
    status = row.get("base_status")
    if isinstance(status, str):
        return Official.PASSED if status.lower() in ("pass", "passed", "success") else Official.FAILED
    result = row.get("result")
    if isinstance(result, str):
        return Official.PASSED if result.lower() == "passed" else Official.FAILED
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
