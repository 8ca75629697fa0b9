"""Import Harbor tasks and job results (terminal-bench style: a container, a script, a reward).

A Harbor task is a directory with ``instruction.md`` (P), ``task.toml`` (limits and metadata),
``environment/`` (the Dockerfile and its build context), ``solution/solve.sh`` (the oracle) and
``tests/`` (``test.sh`` and the files it uses; it writes the reward). A job is a directory of trial
directories, each with ``result.json`` (task name, agent, model, the verifier's reward) and
``verifier/`` outputs.

How it maps onto TestJack's worlds (kept deliberately modest):

- R is the task's ``environment/`` directory as plain files; every world runs on the docker
  backend (``Task.environment.backend``), whatever the machine has: importing never needs Docker.
- The world's image is ``[environment] docker_image`` from task.toml when it names one, else the
  image built from ``environment/Dockerfile`` (the build spec of ``worlds.images``; the docker
  backend builds it once and caches it by a digest of the context).
- G adds the oracle's ``solution/`` files; the test patch adds ``tests/``.
- T0 (``COMMAND``) runs the oracle when it is present (the reference world), then
  ``tests/test.sh`` with a fresh ``/logs/verifier``, both from the world's directory. In a task
  image the docker backend puts the world where Harbor does (at the image's ``WORKDIR``, ``tests/``
  and ``solution/`` also at ``/tests`` and ``/solution``), and the command runs the copies at
  ``/solution`` and ``/tests`` when they are there, the world's own otherwise (an image named in
  task.toml keeps TestJack's layout); scripts written either way work; its single graded id is ``reward``, read from
  ``reward.txt`` (or the ``reward`` of ``reward.json``) as Harbor's verifier does: passed when the
  reward is above 0. The command writes that outcome as a one-case JUnit XML and exits 0 only on
  a pass, so the backends read it like any other report.
- Any other requested ids (the witnesses authors write) run under ``python3 -m pytest`` in the
  same world, after the oracle: the image must have pytest (TestJack's base image has).
- A trial's model world is its patch (``patch.diff``, ``model.patch`` or ``agent/patch.diff`` in
  the trial directory) or its final state (a ``final/`` directory, diffed against R). A trial with
  neither is imported with ``Trial.error`` saying so.
- The official verdict is reward > 0 -> passed, reward 0 -> failed, no reward -> unknown.
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

from testjack_tui.formats import ImportedRun, ImportError_, ImportProblem, tree_digest
from testjack_tui.formats._common import dir_diff, files_digest, links_out, new_snapshot_dir
from testjack_tui.paths import path_inside
from testjack_tui.model import Backend, Environment, Official, Run, Task, TestSpec, Trial
from testjack_tui.worlds.images import build_spec, ready_spec

FORMAT = "harbor"
REWARD_ID = "reward"
# One shell script for T0 and for witnesses, chosen by the requested ids ({tests}). POSIX sh only:
# a Harbor image may have no Python; the reward's sign is read without floating-point tools.
COMMAND = r"""if [ -f /solution/solve.sh ]; then bash /solution/solve.sh
elif [ -f solution/solve.sh ]; then bash solution/solve.sh; fi
set -- {tests}
if [ $# -gt 0 ] && [ "$*" != reward ]; then
  python3 -c 'import pytest' 2>/dev/null || {
    echo "testjack: this task's image has no python3 with pytest; witnesses cannot run in it" >&2
    exit 4; }
  exec python3 -m pytest -p no:cacheprovider -q --junitxml={junit} "$@"
fi
rm -rf /logs/verifier && mkdir -p /logs/verifier || exit 4
if [ -f /tests/test.sh ]; then bash /tests/test.sh; else bash tests/test.sh; fi
r=
if [ -f /logs/verifier/reward.txt ]; then r=$(tr -d ' \t\r\n' < /logs/verifier/reward.txt)
elif [ -f /logs/verifier/reward.json ]; then
  r=$(tr -d ' \t\r\n' < /logs/verifier/reward.json | sed -n 's/.*"reward":\([-+0-9.eE]*\).*/\1/p')
fi
ok=0
case "$r" in
  ''|*[!0-9.eE+-]*) why="no numeric reward in /logs/verifier/reward.txt or reward.json" ;;
  -*) why="reward $r" ;;
  *) case "${r%%[eE]*}" in *[1-9]*) ok=1 ;; *) why="reward $r" ;; esac ;;
esac
echo "testjack: harbor reward: ${r:-none}"
if [ $ok = 1 ]; then
  printf '<testsuite name="harbor"><testcase classname="reward" name="reward"/></testsuite>\n' > {junit}
  exit 0
fi
printf '<testsuite name="harbor"><testcase classname="reward" name="reward"><failure message="%s"/></testcase></testsuite>\n' "$why" > {junit}
exit 1
"""
DEFAULT_TIMEOUT = 600.0
PATCH_NAMES = ("patch.diff", "model.patch", "agent/patch.diff")
FINAL_STATE = "final"


def load(
    path: Path,
    staging: Path,
    name: str | None = None,
    tasks: Path | None = None,
    jobs: Path | list[Path] | None = None,
    **options: Any,
) -> ImportedRun:
    """Read task directories (under ``tasks`` or ``path``) and job directories (``jobs`` or under ``path``)."""
    path, staging = Path(path), Path(staging)
    if not path.exists():
        raise ImportError_([ImportProblem(str(path), "", "no such file or directory")])
    task_dirs = _task_dirs(Path(tasks) if tasks else path)
    job_roots = [Path(j) for j in ([jobs] if isinstance(jobs, (str, Path)) else (jobs or [path]))]
    trial_dirs = [d for root in job_roots for d in _trial_dirs(root)]
    if not task_dirs:
        raise ImportError_([ImportProblem(str(tasks or path), "", "no Harbor task (a directory with task.toml and instruction.md)")])

    skipped: list[ImportProblem] = []
    built: dict[str, Task] = {}
    # a link out of a task's environment/ is not a broken record but an unsafe one: the import stops
    leading_out = [p for d in task_dirs if (d / "environment").is_dir()
                   for p in links_out(d / "environment", "environment/", record=f"task {d.name}")]
    if leading_out:
        raise ImportError_(leading_out)
    for task_dir in task_dirs:
        try:
            task = _task(task_dir, staging)
        except UnicodeDecodeError as exc:
            task = ImportProblem(str(task_dir), f"task {task_dir.name}", f"a file is not UTF-8 text ({exc})")
        if isinstance(task, ImportProblem):
            skipped.append(task)
        else:
            built[task.id] = task

    trials: list[Trial] = []
    for trial_dir in trial_dirs:
        trial = _trial(trial_dir, built)
        if isinstance(trial, ImportProblem):
            skipped.append(trial)
        else:
            trials.append(trial)
    if not built:
        raise ImportError_([ImportProblem(str(path), "", "no task could be imported"), *skipped])

    inputs = [f for d in [*task_dirs, *trial_dirs] for f in sorted(d.rglob("*")) if f.is_file()]
    run = Run(
        id="",
        name=name or path.resolve().name,
        benchmark="Harbor",
        description=f"{len(built)} Harbor tasks, {len(trials)} trials",
        source=str(path.resolve()),
        format=FORMAT,
        default_backend=Backend.DOCKER,
        # File names alone would not tell tasks apart: the layout relative to the input goes in too.
        digest=files_digest(inputs, extra=FORMAT + "".join(_relative(f, path) for f in inputs)),
    )
    return ImportedRun(run=run, tasks=list(built.values()), trials=trials, skipped=skipped)


def _relative(f: Path, base: Path) -> str:
    try:
        return f.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:  # tasks or jobs given outside the main path
        return f.name


def _task_dirs(root: Path) -> list[Path]:
    if (root / "task.toml").exists() or (root / "instruction.md").exists():
        return [root]
    found = [p.parent for p in sorted(root.glob("*/instruction.md"))]
    found += [p.parent for p in sorted(root.glob("*/*/instruction.md"))]
    return found


def _trial_dirs(root: Path) -> list[Path]:
    """Trial directories at most three levels down: jobs/<job>/<trial>/result.json.

    A job's own summary ``result.json`` sits beside its trials; a trial is told apart by its
    ``verifier/`` directory or the ``task_name`` in its result.
    """
    found = []
    for pattern in ("result.json", "*/result.json", "*/*/result.json", "*/*/*/result.json"):
        for result in sorted(root.glob(pattern)):
            d = result.parent
            if (d / "task.toml").exists():
                continue
            if (d / "verifier").is_dir() or _task_name(_json(result) or {}):
                found.append(d)
    return found


def _task(task_dir: Path, staging: Path) -> Task | ImportProblem:
    where = f"task {task_dir.name}"
    instruction = task_dir / "instruction.md"
    if not instruction.is_file():
        return ImportProblem(str(task_dir), where, "instruction.md is missing")
    config: dict[str, Any] = {}
    if (task_dir / "task.toml").exists():
        try:
            config = tomllib.loads((task_dir / "task.toml").read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            return ImportProblem(str(task_dir / "task.toml"), where, f"not valid TOML ({exc})")
    for needed in ("environment", "tests"):
        if not (task_dir / needed).is_dir():
            return ImportProblem(str(task_dir), where, f"{needed}/ is missing")
    if not (task_dir / "tests" / "test.sh").is_file():
        return ImportProblem(str(task_dir), where, "tests/test.sh is missing")
    try:
        snapshot = new_snapshot_dir(staging, f"harbor:{task_dir.name}")
        _copy_tree(task_dir / "environment", snapshot)
        reference = _added(task_dir, "solution") if (task_dir / "solution").is_dir() else ""
        test_patch = _added(task_dir, "tests")
    except (ValueError, OSError) as exc:
        return ImportProblem(str(task_dir), where, str(exc))
    verifier = config.get("verifier", {}) if isinstance(config.get("verifier"), dict) else {}
    timeout = verifier.get("timeout_sec", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) or timeout <= 0:
        return ImportProblem(str(task_dir / "task.toml"), "[verifier] timeout_sec",
                             f"must be a finite number of seconds greater than 0, not {timeout!r}")
    env_conf = config.get("environment", {}) if isinstance(config.get("environment"), dict) else {}
    image = env_conf.get("docker_image") if isinstance(env_conf.get("docker_image"), str) else None
    if image:
        image = ready_spec(image, task_dir.name)  # ready-made, but laid out as Harbor lays it out
    elif (task_dir / "environment" / "Dockerfile").is_file():
        image = build_spec("Dockerfile", task_dir.name)  # built from R itself, the build context
    prompt = instruction.read_text(encoding="utf-8")
    return Task(
        run_id="",
        id=task_dir.name,
        title=_first_line(prompt) or task_dir.name,
        prompt=prompt,
        snapshot=str(snapshot),
        snapshot_digest=tree_digest(snapshot),
        reference_patch=reference,
        test_patch=test_patch,
        tests=TestSpec(
            command=COMMAND,
            fail_to_pass=[REWARD_ID],
            timeout=float(timeout),
        ),
        environment=Environment(backend=Backend.DOCKER, image=image),
        error="" if reference else "the task has no solution/ (oracle); nothing certifies a witness",
    )


def _added(task_dir: Path, sub: str) -> str:
    """A patch that adds the files of ``task_dir/sub`` to R under ``sub/``."""
    return dir_diff(None, task_dir / sub, prefix=f"{sub}/")


def _copy_tree(src: Path, dst: Path) -> None:
    for f in sorted(src.rglob("*")):  # its links were checked by links_out: each leads inside src
        target = dst / f.relative_to(src)
        if f.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif f.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(f.read_bytes())
            target.chmod(0o755 if f.stat().st_mode & 0o111 else 0o644)


def _trial(trial_dir: Path, tasks: dict[str, Task]) -> Trial | ImportProblem:
    result_file = trial_dir / "result.json"
    where = f"trial {trial_dir.name}"
    try:
        path_inside(trial_dir, result_file.name)
    except ValueError as exc:
        return ImportProblem(str(result_file), where, f"{exc}; it was not read")
    result = _json(result_file)
    if result is None:
        return ImportProblem(str(result_file), where, "result.json is not a JSON object")
    task_name = _task_name(result) or trial_dir.name.split("__", 1)[0]
    task = tasks.get(task_name)
    if task is None:
        return ImportProblem(str(result_file), where, f"task {task_name!r} is not among the imported tasks")
    try:
        patch, error = _model_world(trial_dir, task)
    except ValueError as exc:  # a patch that is not UTF-8, or a link out of the trial's directory
        return ImportProblem(str(trial_dir), where, f"{exc}; the trial was not imported")
    agent_info = result.get("agent_info") if isinstance(result.get("agent_info"), dict) else {}
    model_info = agent_info.get("model_info") if isinstance(agent_info.get("model_info"), dict) else {}
    reward = _reward(result, trial_dir)
    if reward is None:
        official = Official.UNKNOWN
    else:
        official = Official.PASSED if reward > 0 else Official.FAILED
    return Trial(
        run_id="",
        id=str(result.get("trial_name") or trial_dir.name),
        task_id=task.id,
        model=str(model_info.get("name") or ""),
        agent=str(agent_info.get("name") or ""),
        patch=patch,
        official=official,
        metadata={"reward": reward, "trial_dir": str(trial_dir)},
        error=error,
    )


def _model_world(trial_dir: Path, task: Task) -> tuple[str, str]:
    for name in PATCH_NAMES:
        if (trial_dir / name).is_file():
            path_inside(trial_dir, name)  # raises ValueError, unread, for a link out of the trial directory
            try:
                return (trial_dir / name).read_text(encoding="utf-8"), ""
            except UnicodeDecodeError as exc:
                raise ValueError(f"{name} is not UTF-8 text ({exc})") from None
    final = trial_dir / FINAL_STATE
    if final.is_dir():
        try:
            return dir_diff(Path(task.snapshot), final), ""
        except ValueError as exc:
            return "", f"the final state cannot be diffed: {exc}"
    return "", "the job holds neither a patch nor the final state of this trial"


def _reward(result: dict[str, Any], trial_dir: Path) -> float | None:
    verifier = result.get("verifier_result")
    if isinstance(verifier, dict):
        rewards = verifier.get("rewards")
        if isinstance(rewards, dict) and isinstance(rewards.get("reward"), (int, float)):
            return float(rewards["reward"])
        if isinstance(verifier.get("reward"), (int, float)):
            return float(verifier["reward"])
    if isinstance(result.get("reward"), (int, float)):
        return float(result["reward"])
    reward_txt = trial_dir / "verifier" / "reward.txt"
    if reward_txt.is_file():
        try:
            return float(reward_txt.read_text().strip())
        except ValueError:
            return None
    return None


def _task_name(result: dict[str, Any]) -> str:
    name = result.get("task_name")
    return name if isinstance(name, str) else ""


def _json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:120]
    return ""
