"""Import SWE-bench: a dataset, the agents' predictions, and optionally the harness's report.

Dataset rows carry ``instance_id, repo, base_commit, problem_statement, patch, test_patch,
FAIL_TO_PASS, PASS_TO_PASS, version`` (the two lists may be JSON strings, as on the Hub). Each row
becomes a task: R is ``repo`` at ``base_commit``, G is ``patch``, the test patch is ``test_patch``
and the graded ids are FAIL_TO_PASS / PASS_TO_PASS exactly as given. Predictions
(``instance_id, model_name_or_path, model_patch``) become trials. A harness report (``resolved_ids``
or ``{instance: {"resolved": bool}}``) sets each trial's official verdict; without one it is
"unknown" and TestJack's official evaluator computes it. The harness writes one report per model,
named ``<model>.<run_id>.json`` (``/`` in the model's name as ``__``); a report whose file name
starts so applies to that model's predictions only, any other report to every prediction. Several
reports may be given or found in the directory.

Repositories and R: ``swebench_sources``; reports: ``swebench_reports``.

Test commands, as the harness runs them: rows from SWE-bench 5 datasets carry their own
``eval_script`` and ``image``; the command between the harness's start/end markers is used as is,
on the docker backend. Otherwise the repository's runner (``swebench_env``: a data file of
environment facts per repository and version, which the user can extend; an installed ``swebench``
release before 5 fills in what it does not say) runs the test files the test patch touches
(``test_directives``; Django's runner gets their module labels), in the environment the data names
(pip packages, the pytest to use, extra PYTHONPATH entries), or in the harness's instance image when
the Docker engine has it. The graded ids are what the log is read for, never what the runner is
given: each is read from the log by the harness's parsers' rules (``worlds.harness_parsers``) and
graded as the harness grades (``audit.grading``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from testjack_tui.formats import ImportedRun, ImportError_, ImportProblem
from testjack_tui.formats._common import (
    as_list,
    files_digest,
    first_record,
    links_out,
    open_text,
    read_records,
)
from testjack_tui.formats.swebench_env import EnvDataError, env_files, local_images, task_environment
from testjack_tui.formats.swebench_env import _tables as _env_tables
from testjack_tui.formats.swebench_env import test_directives as _directives
from testjack_tui.formats.swebench_reports import read_report, Reports
from testjack_tui.formats.swebench_sources import NoSource, RepoSources
from testjack_tui.model import Backend, Environment, Official, Run, Task, TestSpec, Trial

FORMAT = "swebench"
PYTEST_COMMAND = "python -m pytest -p no:cacheprovider -rA --junitxml={junit} {tests}"
TIMEOUT = 1800.0
DATASET_FIELDS = ("instance_id", "repo", "base_commit", "patch", "test_patch")
START_MARK = ">>>>> Start Test Output"
END_MARK = ">>>>> End Test Output"
_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz")


def load(
    path: Path,
    staging: Path,
    name: str | None = None,
    predictions: Path | list[Path] | None = None,
    report: Path | list[Path] | None = None,
    repos: Path | None = None,
    repo_url: str | None = None,
    swebench_envs: str | Path | None = None,
    **options: Any,
) -> ImportedRun:
    """Read the dataset, predictions and report; write each instance's R under ``staging``."""
    path, staging = Path(path), Path(staging)
    dataset_files, prediction_files, report_files = _locate(path, predictions, report)
    _check_sources(path, repos, repo_url, swebench_envs)
    skipped: list[ImportProblem] = []
    resolved = Reports([(f, read_report(f)) for f in report_files]) if report_files else None
    rows = _read_rows(dataset_files, skipped)
    sources = (Path(repos) if repos else None, repo_url)
    images = local_images()  # the harness's sweb.eval.* instance images, when an engine has them
    tasks = build_tasks(rows, dataset_files[0], staging, sources, skipped,
                        lambda row, snapshot: _task(row, snapshot, swebench_envs, images))
    trials = _read_trials(prediction_files, rows, resolved, skipped)
    if not tasks:
        raise ImportError_([ImportProblem(str(path), "", "no instance could be imported"), *skipped])
    docker = all(t.environment.backend == Backend.DOCKER for t in tasks)
    run = Run(
        id="",
        name=name or (path.resolve().name if path.is_dir() else _stem(dataset_files[0])),
        benchmark="SWE-bench",
        description=f"{len(tasks)} SWE-bench instances, {len(trials)} predictions",
        source=str(path.resolve()),
        format=FORMAT,
        default_backend=Backend.DOCKER if docker else Backend.LOCAL,
        digest=files_digest(
            [*dataset_files, *prediction_files, *report_files], extra=FORMAT
        ),
    )
    return ImportedRun(run=run, tasks=tasks, trials=trials, skipped=skipped)


def _check_sources(path: Path, repos: Path | None, repo_url: str | None, swebench_envs: str | Path | None) -> None:
    """Stop before anything is imported when no repository can be had or an environment file is unreadable."""
    if repos is None and repo_url is None:
        raise ImportError_(
            [ImportProblem(str(path), "", "no repositories: pass repos=DIR (local clones) or repo_url=TEMPLATE")]
        )
    try:  # a user's environment file that cannot be read is named before anything is imported
        _env_tables(env_files(swebench_envs))
    except EnvDataError as exc:
        where, _, why = str(exc).partition(": ")
        raise ImportError_([ImportProblem(where, "", why)]) from exc


def _read_rows(dataset_files: list[Path], skipped: list[ImportProblem],
               check: Callable[[dict[str, Any]], str] | None = None) -> dict[str, dict[str, Any]]:
    """The dataset's rows by instance id; a broken (by ``check``) or repeated row goes to ``skipped``."""
    rows: dict[str, dict[str, Any]] = {}
    for dataset_file in dataset_files:
        for where, row in read_records(dataset_file, key_field="instance_id"):
            if isinstance(row, ImportProblem):
                skipped.append(row)
                continue
            problem = (check or _check_row)(row)
            record = f"instance {row['instance_id']}" if isinstance(row.get("instance_id"), str) else where
            if problem:
                skipped.append(ImportProblem(str(dataset_file), record, problem))
            elif row["instance_id"] in rows:
                skipped.append(ImportProblem(str(dataset_file), record, "duplicate instance_id; the first is kept"))
            else:
                rows[row["instance_id"]] = row
    return rows


def build_tasks(rows: dict[str, dict[str, Any]], dataset_file: Path, staging: Path,
                sources: tuple[Path | None, str | None], skipped: list[ImportProblem],
                make_task: Callable[[dict[str, Any], tuple[str, str]], Task]) -> list[Task]:
    """A task per row whose repository can be had (the others leave ``rows``, named in ``skipped``):
    ``make_task(row, (R's directory, its digest))``. Shared with ``swebench_pro``."""
    tasks: list[Task] = []
    leading_out: list[ImportProblem] = []
    with tempfile.TemporaryDirectory(prefix="testjack-clones-") as clone_cache:
        repos = RepoSources(*sources, Path(clone_cache))
        for iid, row in list(rows.items()):
            try:
                snapshot = repos.snapshot(row["repo"], row["base_commit"], staging)
            except NoSource as exc:
                skipped.append(ImportProblem(str(dataset_file), f"instance {iid}", str(exc)))
                del rows[iid]
                continue
            # an unsafe repository, not a broken record: the import stops (after naming them all)
            leading_out += links_out(Path(snapshot[0]), f"the repository {row['repo']} at {row['base_commit'][:12]}",
                                     file=str(dataset_file), record=f"instance {iid}")
            tasks.append(make_task(row, snapshot))
    if leading_out:
        raise ImportError_(leading_out)
    return tasks


def _read_trials(prediction_files: list[Path], rows: dict[str, dict[str, Any]], resolved: Reports | None,
                 skipped: list[ImportProblem]) -> list[Trial]:
    """A trial per prediction of an imported instance; the others go to ``skipped``."""
    records: list[tuple[Path, str, dict[str, Any]]] = []
    for prediction_file in prediction_files:
        for where, row in read_records(prediction_file, key_field="instance_id"):
            if isinstance(row, ImportProblem):
                skipped.append(row)
            else:
                records.append((prediction_file, where, row))
    if resolved is not None:  # which reports are one model's own is known once all models are
        resolved.models = {_model_of(r) for _, _, r in records}
    trials: list[Trial] = []
    seen: set[str] = set()
    for prediction_file, where, row in records:
        trial = _trial(row, rows, resolved, seen)
        if isinstance(trial, str):
            iid = row.get("instance_id")
            record = f"{where} (instance {iid})" if isinstance(iid, str) else where
            skipped.append(ImportProblem(str(prediction_file), record, trial))
            continue
        seen.add(trial.id)
        trials.append(trial)
    return trials


# -- inputs ------------------------------------------------------------------------------------


def _locate(
    path: Path, predictions: Path | list[Path] | None, report: Path | list[Path] | None
) -> tuple[list[Path], list[Path], list[Path]]:
    if not path.exists():
        raise ImportError_([ImportProblem(str(path), "", "no such file or directory")])
    given = [Path(p) for p in ([predictions] if isinstance(predictions, (str, Path)) else (predictions or []))]
    reports = [Path(p) for p in ([report] if isinstance(report, (str, Path)) else (report or []))]
    for p in [*given, *reports]:
        if not p.exists():
            raise ImportError_([ImportProblem(str(p), "", "file not found")])
    if path.is_file():
        return [path], given, reports
    datasets: list[Path] = []
    preds: list[Path] = []
    found_reports: list[Path] = []
    for f in sorted(path.iterdir()):
        if not f.is_file() or not f.name.lower().endswith(_SUFFIXES):
            continue
        row = first_record(f)
        if row is None:
            open_text(f)  # an unreadable file (a corrupt .gz, bytes that are not UTF-8) is named, not passed over
            continue
        if "base_commit" in row:
            datasets.append(f)
        elif "model_patch" in row or any(isinstance(v, dict) and "model_patch" in v for v in row.values()):
            preds.append(f)
        elif "resolved_ids" in row or any(isinstance(v, dict) and "resolved" in v for v in row.values()):
            found_reports.append(f)
    if not datasets:
        raise ImportError_([ImportProblem(str(path), "", "no dataset file (rows with instance_id, repo, base_commit, ...)")])
    return datasets, given or preds, reports or found_reports


def _check_row(row: dict[str, Any]) -> str:
    missing = [f for f in DATASET_FIELDS if not isinstance(row.get(f), str) or not row[f]]
    if missing:
        return "missing field(s): " + ", ".join(missing)
    if "/" not in row["repo"]:
        return f"repo {row['repo']!r} is not owner/name"
    for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        if as_list(row.get(key)) is None:
            return f"{key} is not a list of test ids"
    if not as_list(row.get("FAIL_TO_PASS")):
        return "FAIL_TO_PASS is empty: nothing for the reference to fix"
    return ""


# -- model objects -----------------------------------------------------------------------------


def _task(row: dict[str, Any], snapshot: tuple[str, str], envs: str | Path | None = None,
          images: set[str] | None = None) -> Task:
    command, environment, log_parser = _command_and_environment(row, snapshot[0], envs, images)
    return Task(
        run_id="",
        id=row["instance_id"],
        title=_title(row),
        prompt=str(row.get("problem_statement") or ""),
        snapshot=snapshot[0],
        snapshot_digest=snapshot[1],
        reference_patch=row["patch"],
        test_patch=row["test_patch"],
        tests=TestSpec(
            command=command,
            fail_to_pass=as_list(row.get("FAIL_TO_PASS")) or [],
            pass_to_pass=as_list(row.get("PASS_TO_PASS")) or [],
            timeout=TIMEOUT,
            log_parser=log_parser,
        ),
        environment=environment,
    )


def _command_and_environment(row: dict[str, Any], snapshot: str | None, envs: str | Path | None = None,
                             images: set[str] | None = None) -> tuple[str, Environment, str]:
    """T0's command, environment and (harness) log parser for one dataset row."""
    script = row.get("eval_script")
    if isinstance(script, str) and START_MARK in script and END_MARK in script:
        body = script.split(START_MARK, 1)[1].split(END_MARK, 1)[0]
        lines = [ln for ln in body.splitlines()[1:] if ln.strip() and not ln.lstrip().startswith(": '")]
        image = row.get("image") if isinstance(row.get("image"), str) else None
        command = " && ".join(lines)
        return command, Environment(backend=Backend.DOCKER, image=image), log_parser_for(command, row["repo"])
    found = task_environment(row, snapshot or "", extra=envs, images=images)
    environment = Environment(requirements=found.requirements)
    if found.docker:
        environment = Environment(backend=Backend.DOCKER, image=found.image)
    return found.command, environment, found.log_parser


def test_command(row: dict[str, Any]) -> tuple[str, Environment]:
    """T0's command and environment for one dataset row (see the module docstring for the order)."""
    command, environment, _ = _command_and_environment(row, None)
    return command, environment


def log_parser_for(command: str, repo: str) -> str:
    """The harness's log parser for a command (``worlds.harness_parsers``).

    Django's and SymPy's runners are told by their scripts; any other command (an eval_script's
    ``pytest -rA ...`` line) is read as pytest's ``-rA`` output, by the harness's rules.
    """
    if "runtests.py" in command or (repo == "django/django" and "pytest" not in command):
        return "swebench-django"
    if "bin/test" in command or (repo == "sympy/sympy" and "pytest" not in command):
        return "swebench-sympy"
    return "swebench-pytest"


def test_directives(test_patch: str, repo: str) -> list[str]:
    """The test files a test patch touches, in the form the repository's runner takes."""
    return _directives(test_patch, repo)


def _title(row: dict[str, Any]) -> str:
    statement = str(row.get("problem_statement") or "").strip()
    first = statement.splitlines()[0].strip() if statement else ""
    return first[:120] or row["instance_id"]


def _trial(
    row: dict[str, Any], rows: dict[str, dict[str, Any]], resolved: Reports | None, seen: set[str]
) -> Trial | str:
    iid = row.get("instance_id")
    if not isinstance(iid, str):
        return "missing instance_id"
    if iid not in rows:
        return f"instance {iid} is not in the dataset (or could not be imported)"
    patch = row.get("model_patch", row.get("patch"))  # ``patch``: SWE-bench Pro's gather_patches.py
    if patch is None:
        patch = ""
    if not isinstance(patch, str):
        return "model_patch is not text"
    model = _model_of(row)
    trial_id = str(row.get("id") or (f"{iid}@{model}" if model else iid))
    if trial_id in seen:
        return f"duplicate prediction {trial_id!r}"
    if resolved is not None:
        official = Official.PASSED if resolved.resolved(iid, model) else Official.FAILED
    elif isinstance(row.get("resolved"), bool):
        official = Official.PASSED if row["resolved"] else Official.FAILED
    else:
        official = Official.UNKNOWN
    known = {"instance_id", "model_name_or_path", "model_patch", "patch", "prefix", "id", "resolved", "cost",
             "cost_usd"}
    cost = row.get("cost_usd", row.get("cost"))
    return Trial(
        run_id="",
        id=trial_id,
        task_id=iid,
        model=model,
        agent=str(row.get("agent") or ""),
        patch=patch,
        official=official,
        cost_usd=float(cost) if isinstance(cost, (int, float)) else None,
        metadata={k: v for k, v in row.items() if k not in known},
        error="" if patch.strip() else "the prediction's model_patch is empty",
    )


def _model_of(row: dict[str, Any]) -> str:
    """The prediction's model: ``model_name_or_path``, or SWE-bench Pro's ``prefix``."""
    return str(row.get("model_name_or_path") or row.get("prefix") or "")


def _stem(p: Path) -> str:
    name = p.name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return name
