"""The native run format of CONTRACTS.md: run.toml, tasks/<id>/, trials.jsonl, trials/<id>.patch.

The native format is the one users write by hand, so it is strict: any bad input (a missing
prompt.md, a trial naming an unknown task, malformed JSON on line N, a duplicate id) stops the
import with every problem found, each naming its file and line, and nothing is imported.
"""

from __future__ import annotations

import json
import shutil
import tarfile
import tomllib
import uuid
from pathlib import Path
from typing import Any

from testjack_tui.formats import ImportedRun, ImportError_, ImportProblem, tree_digest
from testjack_tui.model import Backend, Environment, Official, Run, Task, TestSpec, Trial
from testjack_tui.worlds.logparsers import PARSERS
from testjack_tui.worlds.request import DEFAULT_COMMAND


def load(path: Path, staging: Path, name: str | None = None, **_options: Any) -> ImportedRun:
    root = Path(path)
    problems: list[ImportProblem] = []
    if not root.is_dir():
        raise ImportError_([ImportProblem(str(root), "", "not a directory (a native run is a folder)")])

    meta = _read_toml(root / "run.toml", problems, required=False)
    defaults = meta.get("defaults", {}) if isinstance(meta.get("defaults"), dict) else {}
    backend = _backend(defaults.get("backend", "local"), root / "run.toml", "[defaults] backend", problems)
    run = Run(
        id="",
        name=name or str(meta.get("name") or root.resolve().name),
        benchmark=str(meta.get("benchmark", "")),
        description=str(meta.get("description", "")),
        source=str(root.resolve()),
        format="native",
        default_backend=backend or Backend.LOCAL,
        image=defaults.get("image"),
    )

    tasks: list[Task] = []
    tasks_dir = root / "tasks"
    if not tasks_dir.is_dir():
        problems.append(ImportProblem(str(tasks_dir), "", "missing: a native run keeps its tasks in tasks/<task-id>/"))
    else:
        for task_dir in sorted(p for p in tasks_dir.iterdir() if p.is_dir()):
            task = _load_task(task_dir, staging, problems)
            if task is not None:
                tasks.append(task)

    trials = _load_trials(root, {t.id for t in tasks}, problems) if tasks_dir.is_dir() else []
    if problems:
        raise ImportError_(problems)
    run.digest = tree_digest(root)
    return ImportedRun(run=run, tasks=tasks, trials=trials)


def _load_task(task_dir: Path, staging: Path, problems: list[ImportProblem]) -> Task | None:
    toml_path = task_dir / "task.toml"
    if not toml_path.exists():
        problems.append(ImportProblem(str(toml_path), "", "missing (every task needs a task.toml)"))
        return None
    meta = _read_toml(toml_path, problems, required=True)
    task_id = str(meta.get("id") or task_dir.name)
    if task_id != task_dir.name:
        problems.append(
            ImportProblem(str(toml_path), "id", f"id {task_id!r} differs from the folder name {task_dir.name!r}")
        )
    tests_meta = meta.get("tests", {})
    if not isinstance(tests_meta, dict):
        problems.append(ImportProblem(str(toml_path), "[tests]", "must be a table"))
        tests_meta = {}
    spec = TestSpec(
        command=str(tests_meta.get("command") or DEFAULT_COMMAND),
        fail_to_pass=_str_list(tests_meta.get("fail_to_pass", []), toml_path, "[tests] fail_to_pass", problems),
        pass_to_pass=_str_list(tests_meta.get("pass_to_pass", []), toml_path, "[tests] pass_to_pass", problems),
        timeout=float(tests_meta.get("timeout", 120)),
        log_parser=str(tests_meta.get("log_parser") or ""),
    )
    if spec.log_parser and spec.log_parser not in PARSERS:
        problems.append(ImportProblem(str(toml_path), "[tests] log_parser",
                                      f"unknown log parser {spec.log_parser!r} (known: {', '.join(sorted(PARSERS))})"))
    if not spec.graded:
        problems.append(ImportProblem(str(toml_path), "[tests]", "names no graded test (fail_to_pass or pass_to_pass)"))
    env_meta = meta.get("environment", {}) if isinstance(meta.get("environment"), dict) else {}
    env = Environment(
        backend=_backend(env_meta["backend"], toml_path, "[environment] backend", problems)
        if env_meta.get("backend")
        else None,
        image=env_meta.get("image"),
        requirements=_str_list(env_meta.get("requirements", []), toml_path, "[environment] requirements", problems),
        setup=env_meta.get("setup"),
    )

    prompt = _read_text(task_dir / "prompt.md", problems)
    reference = _read_text(task_dir / "reference.patch", problems)
    tests_patch_path = task_dir / "tests.patch"
    test_patch = _read_text(tests_patch_path, problems) if tests_patch_path.exists() else ""
    if reference is not None and not reference.strip():
        problems.append(ImportProblem(str(task_dir / "reference.patch"), "", "is empty"))

    snapshot = staging / uuid.uuid4().hex
    repo_dir, repo_tar = task_dir / "repo", task_dir / "repo.tar.gz"
    try:
        if repo_dir.is_dir():
            shutil.copytree(repo_dir, snapshot, symlinks=True)
        elif repo_tar.exists():
            snapshot.mkdir(parents=True)
            with tarfile.open(repo_tar) as tar:
                tar.extractall(snapshot, filter="data")
        else:
            problems.append(ImportProblem(str(repo_dir), "", "missing: give R as repo/ or repo.tar.gz"))
            return None
    except (OSError, tarfile.TarError) as exc:
        problems.append(ImportProblem(str(repo_tar if repo_tar.exists() else repo_dir), "", f"cannot read: {exc}"))
        return None
    if prompt is None or reference is None:
        return None
    return Task(
        run_id="",
        id=task_id,
        title=str(meta.get("title", task_id)),
        prompt=prompt,
        snapshot=str(snapshot),
        snapshot_digest=tree_digest(snapshot),
        reference_patch=reference,
        test_patch=test_patch or "",
        tests=spec,
        environment=env,
    )


def _load_trials(root: Path, task_ids: set[str], problems: list[ImportProblem]) -> list[Trial]:
    path = root / "trials.jsonl"
    if not path.exists():
        problems.append(ImportProblem(str(path), "", "missing: list the trials one JSON object a line"))
        return []
    trials: list[Trial] = []
    seen: dict[str, int] = {}
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            where = f"line {number}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(ImportProblem(str(path), where, f"malformed JSON ({exc.msg} at column {exc.colno})"))
                continue
            if not isinstance(obj, dict):
                problems.append(ImportProblem(str(path), where, "must be a JSON object"))
                continue
            missing = [k for k in ("id", "task", "patch", "official") if k not in obj]
            if missing:
                problems.append(ImportProblem(str(path), where, f"missing field(s): {', '.join(missing)}"))
                continue
            trial_id = str(obj["id"])
            if trial_id in seen:
                problems.append(
                    ImportProblem(str(path), where, f"duplicate trial id {trial_id!r} (first on line {seen[trial_id]})")
                )
                continue
            seen[trial_id] = number
            if obj["task"] not in task_ids:
                problems.append(ImportProblem(str(path), where, f"trial {trial_id!r} names unknown task {obj['task']!r}"))
                continue
            if obj["official"] not in ("passed", "failed"):
                problems.append(
                    ImportProblem(str(path), where, f"official must be \"passed\" or \"failed\", not {obj['official']!r}")
                )
                continue
            patch_path = root / str(obj["patch"])
            try:
                patch_text = patch_path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(ImportProblem(str(path), where, f"cannot read patch {patch_path}: {exc}"))
                continue
            trials.append(
                Trial(
                    run_id="",
                    id=trial_id,
                    task_id=str(obj["task"]),
                    model=str(obj.get("model", "")),
                    agent=str(obj.get("agent", "")),
                    patch=patch_text,
                    official=Official(obj["official"]),
                    cost_usd=_num(obj.get("cost_usd")),
                    tokens=int(obj["tokens"]) if isinstance(obj.get("tokens"), (int, float)) else None,
                    metadata=obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {},
                )
            )
    return trials


def _read_toml(path: Path, problems: list[ImportProblem], required: bool) -> dict[str, Any]:
    if not path.exists():
        if required:
            problems.append(ImportProblem(str(path), "", "missing"))
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        problems.append(ImportProblem(str(path), "", f"malformed TOML ({exc})"))
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(ImportProblem(str(path), "", f"cannot read: {exc}"))
    return {}


def _read_text(path: Path, problems: list[ImportProblem]) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        problems.append(ImportProblem(str(path), "", "missing"))
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(ImportProblem(str(path), "", f"cannot read: {exc}"))
    return None


def _str_list(value: Any, path: Path, where: str, problems: list[ImportProblem]) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(ImportProblem(str(path), where, "must be a list of strings"))
        return []
    return list(value)


def _backend(value: Any, path: Path, where: str, problems: list[ImportProblem]) -> Backend | None:
    try:
        return Backend(value)
    except ValueError:
        problems.append(ImportProblem(str(path), where, f"must be \"local\" or \"docker\", not {value!r}"))
        return None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None
