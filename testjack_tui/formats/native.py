"""The native run format of CONTRACTS.md: run.toml, tasks/<id>/, trials.jsonl, trials/<id>.patch.

The native format is the one users write by hand, so it is strict: any bad input (a missing
prompt.md, a trial naming an unknown task, malformed JSON on line N, a duplicate id, a value of the
wrong type or out of range) stops the import with every problem found, each naming its file and
its line or key, and nothing is imported. run.toml, task.toml and each line of trials.jsonl are
checked against the schemas of :mod:`testjack_tui.formats.schema`; keys they do not know are
warned about by name and ignored.

Every file the importer reads must lie inside the run directory: a trial's ``patch`` that is
absolute, climbs out with ``..`` or leads out through a symbolic link is refused before anything is
opened, and so is a fixed file (prompt.md, task.toml, ...) or a task folder that is a link to
somewhere else.
"""

from __future__ import annotations

import json
import os
import shutil
import tarfile
import tomllib
import uuid
from pathlib import Path
from typing import Any

from testjack_tui.formats import ImportedRun, ImportError_, ImportProblem, tree_digest
from testjack_tui.formats._common import decode_utf8, links_out
from testjack_tui.paths import path_inside
from testjack_tui.formats.schema import TRIAL_REQUIRED, RunToml, TaskToml, TrialLine, check_line, check_toml
from testjack_tui.model import Backend, Environment, Official, Run, Task, TestSpec, Trial
from testjack_tui.worlds.images import dockerfile_of
from testjack_tui.worlds.logparsers import PARSERS
from testjack_tui.worlds.request import DEFAULT_COMMAND


def load(path: Path, staging: Path, name: str | None = None, **_options: Any) -> ImportedRun:
    root = Path(path)
    problems: list[ImportProblem] = []
    warnings: list[ImportProblem] = []
    if not root.is_dir():
        raise ImportError_([ImportProblem(str(root), "", "not a directory (a native run is a folder)")])

    run_toml = root / "run.toml"
    meta = _read_toml(root, run_toml, problems, required=False)
    checked, bad, unknown = check_toml(RunToml, meta, run_toml)
    problems += bad
    warnings += unknown
    meta_run = checked if isinstance(checked, RunToml) else RunToml()
    _image_path(meta_run.defaults.image, run_toml, "[defaults] image", problems)
    run = Run(
        id="",
        name=name or meta_run.name or root.resolve().name,
        benchmark=meta_run.benchmark,
        description=meta_run.description,
        source=str(root.resolve()),
        format="native",
        default_backend=Backend(meta_run.defaults.backend),
        image=meta_run.defaults.image,
    )

    tasks: list[Task] = []
    tasks_dir = root / "tasks"
    task_dirs: list[Path] = []
    if not tasks_dir.is_dir():
        problems.append(ImportProblem(str(tasks_dir), "", "missing: a native run keeps its tasks in tasks/<task-id>/"))
    elif _inside(root, tasks_dir, problems):
        task_dirs = sorted(p for p in tasks_dir.iterdir() if p.is_dir())
    for task_dir in task_dirs:
        if not _inside(root, task_dir, problems):
            continue
        task = _load_task(root, task_dir, staging, problems, warnings)
        if task is not None:
            tasks.append(task)

    # a trial of a task refused above is not "of an unknown task": the task's own problem is named
    refused = {p.name for p in task_dirs} - {t.id for t in tasks}
    trials = _load_trials(root, {t.id for t in tasks}, refused, problems, warnings) if task_dirs else []
    if problems:
        raise ImportError_(problems)
    run.digest = tree_digest(root)
    return ImportedRun(run=run, tasks=tasks, trials=trials, warnings=warnings)


def _load_task(
    root: Path, task_dir: Path, staging: Path, problems: list[ImportProblem], warnings: list[ImportProblem]
) -> Task | None:
    toml_path = task_dir / "task.toml"
    if not toml_path.exists():
        problems.append(ImportProblem(str(toml_path), "", "missing (every task needs a task.toml)"))
        return None
    before = len(problems)
    checked, valid = _task_toml(root, toml_path, problems, warnings)
    task_id = checked.id or task_dir.name
    if task_id != task_dir.name:
        problems.append(
            ImportProblem(str(toml_path), "id", f"id {task_id!r} differs from the folder name {task_dir.name!r}")
        )
    spec = _test_spec(checked.tests, toml_path, valid, problems)
    env_meta = checked.environment
    _image_path(env_meta.image, toml_path, "[environment] image", problems)
    env = Environment(
        backend=Backend(env_meta.backend) if env_meta.backend else None,
        image=env_meta.image,
        requirements=list(env_meta.requirements),
        setup=env_meta.setup,
    )

    prompt = _read_text(root, task_dir / "prompt.md", problems)
    reference = _read_text(root, task_dir / "reference.patch", problems)
    tests_patch_path = task_dir / "tests.patch"
    test_patch = _read_text(root, tests_patch_path, problems) if tests_patch_path.exists() or tests_patch_path.is_symlink() else ""
    if reference is not None and not reference.strip():
        problems.append(ImportProblem(str(task_dir / "reference.patch"), "", "is empty"))

    snapshot = staging / uuid.uuid4().hex
    if not _copy_repo(root, task_dir, snapshot, problems):
        return None
    if prompt is None or reference is None or len(problems) > before:
        return None
    return Task(
        run_id="",
        id=task_id,
        title=checked.title or task_id,
        prompt=prompt,
        snapshot=str(snapshot),
        snapshot_digest=tree_digest(snapshot),
        reference_patch=reference,
        test_patch=test_patch or "",
        tests=spec,
        environment=env,
    )


def _task_toml(
    root: Path, toml_path: Path, problems: list[ImportProblem], warnings: list[ImportProblem]
) -> tuple[TaskToml, bool]:
    """task.toml, checked, and whether it was valid (else the defaults, to check the other files)."""
    before = len(problems)
    meta = _read_toml(root, toml_path, problems, required=True)
    checked, bad, unknown = check_toml(TaskToml, meta, toml_path)
    problems += bad
    warnings += unknown
    if not isinstance(checked, TaskToml):
        return TaskToml(), False  # the task is refused; its other files are still checked
    return checked, len(problems) == before


def _test_spec(tests_meta: Any, toml_path: Path, valid: bool, problems: list[ImportProblem]) -> TestSpec:
    """task.toml's [tests] as a TestSpec; an unknown log parser or no graded test is a problem."""
    spec = TestSpec(
        command=tests_meta.command or DEFAULT_COMMAND,
        fail_to_pass=list(tests_meta.fail_to_pass),
        pass_to_pass=list(tests_meta.pass_to_pass),
        timeout=float(tests_meta.timeout),
        log_parser=tests_meta.log_parser,
    )
    if spec.log_parser and spec.log_parser not in PARSERS:
        problems.append(ImportProblem(str(toml_path), "[tests] log_parser",
                                      f"unknown log parser {spec.log_parser!r} (known: {', '.join(sorted(PARSERS))})"))
    if valid and not spec.graded:
        problems.append(ImportProblem(str(toml_path), "[tests]", "names no graded test (fail_to_pass or pass_to_pass)"))
    return spec


def _copy_repo(root: Path, task_dir: Path, snapshot: Path, problems: list[ImportProblem]) -> bool:
    """Copy R (repo/ or repo.tar.gz) to ``snapshot``; False, with the problem named, when it cannot be."""
    repo_dir, repo_tar = task_dir / "repo", task_dir / "repo.tar.gz"
    try:
        if repo_dir.is_dir():
            if not _inside(root, repo_dir, problems):
                return False
            if leading_out := links_out(repo_dir, "repo/"):
                problems.extend(leading_out)
                return False
            shutil.copytree(repo_dir, snapshot, symlinks=True)
        elif repo_tar.exists():
            if not _inside(root, repo_tar, problems):
                return False
            snapshot.mkdir(parents=True)
            with tarfile.open(repo_tar) as tar:
                tar.extractall(snapshot, filter="data")
        else:
            problems.append(ImportProblem(str(repo_dir), "", "missing: give R as repo/ or repo.tar.gz"))
            return False
    except (OSError, tarfile.TarError, EOFError) as exc:
        problems.append(ImportProblem(str(repo_tar if repo_tar.exists() else repo_dir), "", f"cannot read: {exc}"))
        return False
    return True


def _load_trials(
    root: Path, task_ids: set[str], refused: set[str], problems: list[ImportProblem], warnings: list[ImportProblem]
) -> list[Trial]:
    path = root / "trials.jsonl"
    data = _trials_file(root, path, problems)
    if data is None:
        return []
    trials: list[Trial] = []
    seen: dict[str, int] = {}
    unknown: dict[str, list[int]] = {}  # key -> the lines it is on
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"line {number}"
        obj = _json_line(raw, number, path, problems)
        if obj is None:
            continue
        checked, bad, extra = check_line(TrialLine, obj, path, where)
        if not isinstance(checked, TrialLine):
            problems += bad
            continue
        for key in extra:
            unknown.setdefault(key, []).append(number)
        if checked.id in seen:
            problems.append(
                ImportProblem(str(path), where, f"duplicate trial id {checked.id!r} (first on line {seen[checked.id]})")
            )
            continue
        seen[checked.id] = number
        trial = _trial(root, path, where, checked, task_ids, refused, problems)
        if trial is not None:
            trials.append(trial)
    for key, lines in unknown.items():
        more = f" (and on {len(lines) - 1} more line(s))" if len(lines) > 1 else ""
        warnings.append(ImportProblem(str(path), f"line {lines[0]}", f"unknown key {key!r}, ignored{more}"))
    return trials


def _trials_file(root: Path, path: Path, problems: list[ImportProblem]) -> bytes | None:
    """trials.jsonl's bytes; None, with the problem named, when it is missing, outside or unreadable."""
    if not path.exists():
        problems.append(ImportProblem(str(path), "", "missing: list the trials one JSON object a line"))
        return None
    if not _inside(root, path, problems):
        return None
    try:
        return path.read_bytes()
    except OSError as exc:
        problems.append(ImportProblem(str(path), "", f"cannot read: {exc}"))
        return None


def _json_line(raw: bytes, number: int, path: Path, problems: list[ImportProblem]) -> dict[str, Any] | None:
    """One line of trials.jsonl as a JSON object with the required keys; None, with the problem named, if not."""
    where = f"line {number}"
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(ImportProblem(
            str(path), where, f"not UTF-8 text (byte {raw[exc.start]:#04x} at column {exc.start + 1})"))
        return None
    if number == 1:
        line = line.removeprefix("\ufeff")  # a byte order mark some editors write
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        problems.append(ImportProblem(str(path), where, f"malformed JSON ({exc.msg} at column {exc.colno})"))
        return None
    except RecursionError:
        problems.append(ImportProblem(str(path), where, "malformed JSON (nested too deeply)"))
        return None
    if not isinstance(obj, dict):
        problems.append(ImportProblem(str(path), where, "must be a JSON object"))
        return None
    missing = [k for k in TRIAL_REQUIRED if k not in obj]
    if missing:
        problems.append(ImportProblem(str(path), where, f"missing field(s): {', '.join(missing)}"))
        return None
    return obj


def _trial(root: Path, path: Path, where: str, checked: TrialLine, task_ids: set[str], refused: set[str],
           problems: list[ImportProblem]) -> Trial | None:
    """The trial a checked line describes, with its patch read; None when its task was refused or
    something is wrong (then named in ``problems``)."""
    try:
        patch_path = path_inside(root, checked.patch)
    except ValueError as exc:
        problems.append(ImportProblem(str(path), where, f"patch {exc}; it was not read"))
        return None
    if checked.task in refused:
        return None
    if checked.task not in task_ids:
        problems.append(ImportProblem(str(path), where, f"trial {checked.id!r} names unknown task {checked.task!r}"))
        return None
    try:
        patch_text = patch_path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(ImportProblem(str(path), where, f"cannot read patch {patch_path}: {exc}"))
        return None
    return Trial(
        run_id="",
        id=checked.id,
        task_id=checked.task,
        model=checked.model,
        agent=checked.agent,
        patch=patch_text,
        official=Official(checked.official),
        cost_usd=None if checked.cost_usd is None else float(checked.cost_usd),
        tokens=None if checked.tokens is None else int(checked.tokens),
        metadata=dict(checked.metadata),
    )


def _inside(root: Path, target: Path, problems: list[ImportProblem]) -> bool:
    """Whether ``target`` (a path under ``root``) really lies inside it; a problem names it if not."""
    try:
        path_inside(root, os.path.relpath(target, root))
    except ValueError:
        problems.append(ImportProblem(
            str(target), "", f"is a symbolic link leading outside the run directory (to {target.resolve()}); it was not read"))
        return False
    return True


def _image_path(image: str | None, path: Path, where: str, problems: list[ImportProblem]) -> None:
    """An image ``build:<Dockerfile>`` names a file of R: it must be a relative path that stays in R.

    Only the name is checked: R's links are its own, kept as links in the snapshot.
    """
    dockerfile = dockerfile_of(image)
    if dockerfile is None:
        return
    try:
        path_inside(Path("R"), dockerfile, follow_links=False)
    except ValueError as exc:
        problems.append(ImportProblem(str(path), where, f"the Dockerfile {exc}"))


def _read_toml(root: Path, path: Path, problems: list[ImportProblem], required: bool) -> dict[str, Any]:
    if not path.exists() and not path.is_symlink():
        if required:
            problems.append(ImportProblem(str(path), "", "missing"))
        return {}
    if not _inside(root, path, problems):
        return {}
    try:
        return tomllib.loads(decode_utf8(path.read_bytes(), path))
    except tomllib.TOMLDecodeError as exc:
        problems.append(ImportProblem(str(path), "", f"malformed TOML ({exc})"))
    except ImportError_ as exc:
        problems += exc.problems
    except OSError as exc:
        problems.append(ImportProblem(str(path), "", f"cannot read: {exc}"))
    return {}


def _read_text(root: Path, path: Path, problems: list[ImportProblem]) -> str | None:
    if not path.exists() and not path.is_symlink():
        problems.append(ImportProblem(str(path), "", "missing"))
        return None
    if not _inside(root, path, problems):
        return None
    try:
        return decode_utf8(path.read_bytes(), path)
    except ImportError_ as exc:
        problems += exc.problems
    except OSError as exc:
        problems.append(ImportProblem(str(path), "", f"cannot read: {exc}"))
    return None
