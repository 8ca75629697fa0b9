"""A SWE-bench task's environment and command, from data: ``swebench_envs.toml`` and the user's own.

The harness keeps, per repository and version, the runner it calls, the Python version, the pip
packages and pre-install steps of the environment. Those facts are carried here as a data file
(``swebench_envs.toml`` beside this module; a user's file of the same shape, given with
``--swebench-envs FILE`` or ``$TESTJACK_SWEBENCH_ENVS``, is laid over it, key by key), so that a
SWE-bench dataset imports without the ``swebench`` package. When an installed ``swebench`` release
before 5 carries ``MAP_REPO_VERSION_TO_SPECS``, its spec for the repository and version fills in
what neither file says.

``task_environment(row, snapshot)`` gives T0's command (the runner on the test files of the test
patch, as the harness runs it), the log parser that reads it by the harness's rules, and the
environment (pip specs, with the pytest to use; or the harness's instance image ``sweb.eval.*``
when the Docker engine has it, run as the harness does: repository at ``/testbed``, its conda
environment activated).
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from testjack_tui.environment import Variables, read
from testjack_tui.patches import file_paths

BUILTIN = Path(__file__).with_name("swebench_envs.toml")
NON_TEST_EXTS = (".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml")
# the harness activates its conda environment "testbed"; /bin/sh has no `source`, PATH does the same
HARNESS_ACTIVATE = "export PATH=/opt/miniconda3/envs/testbed/bin:$PATH"
PARSER_OF_RUNNER = {"pytest": "swebench-pytest", "django": "swebench-django", "sympy": "swebench-sympy"}


class EnvDataError(Exception):
    """A user's environment file that cannot be read (the message names the file)."""


@dataclass
class RepoSpec:
    test_cmd: str = "pytest -rA"
    runner: str = "pytest"
    python: str = ""
    pip_packages: list[str] = field(default_factory=list)
    pytest: str = ""
    pythonpath: list[str] = field(default_factory=list)
    pre_install: list[str] = field(default_factory=list)
    local: bool = True
    source: str = "default"  # where the facts came from, for messages


def _read(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise EnvDataError(f"{path}: cannot read the SWE-bench environment file: {exc}") from exc
    repos = data.get("repos", {})
    if not isinstance(repos, dict):
        raise EnvDataError(f"{path}: [repos] must be a table of \"owner/name\" tables")
    return repos


@lru_cache(maxsize=8)
def _tables(extra: tuple[str, ...]) -> tuple[tuple[str, dict[str, Any]], ...]:
    return tuple((str(p), _read(Path(p))) for p in (str(BUILTIN), *extra))


def env_files(extra: str | Path | None = None) -> tuple[str, ...]:
    given = read(Variables).swebench_envs  # $TESTJACK_SWEBENCH_ENVS
    files = [given] if given else []
    if extra:
        files.append(str(extra))
    return tuple(str(Path(f).resolve()) for f in files)


def repo_spec(repo: str, version: str, extra: str | Path | None = None) -> RepoSpec:
    """The facts for ``repo`` at ``version``: built-in data, then the user's files, then swebench."""
    merged: dict[str, Any] = {}
    sources: list[str] = []
    for name, repos in _tables(env_files(extra)):
        table = repos.get(repo)
        if not isinstance(table, dict):
            continue
        layer = {k: v for k, v in table.items() if k != "versions"}
        versions = table.get("versions") or {}
        if isinstance(versions, dict) and isinstance(versions.get(version), dict):
            layer.update(versions[version])
        merged.update(layer)
        sources.append(Path(name).name)
    installed = _swebench_spec(repo, version)
    if installed:
        for key in ("test_cmd", "python", "pip_packages", "pre_install"):
            value = installed.get(key)
            if key not in merged and value:
                merged[key] = " && ".join(value) if key == "test_cmd" and isinstance(value, list) else value
        sources.append("swebench")
    spec = RepoSpec(source=", ".join(sources) or "default")
    for key, value in merged.items():
        if hasattr(spec, key):
            setattr(spec, key, value)
    if repo == "django/django" and "runner" not in merged:
        spec.runner = "django"
    if repo == "sympy/sympy" and "runner" not in merged:
        spec.runner = "sympy"
    return spec


def _swebench_spec(repo: str, version: str) -> dict[str, Any] | None:
    """The harness's spec, when a swebench release that has them (before 5) is installed."""
    try:
        from swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS  # type: ignore[import-not-found]
    except Exception:
        return None
    spec = MAP_REPO_VERSION_TO_SPECS.get(repo, {}).get(version)
    return dict(spec) if isinstance(spec, dict) else None


# -- the command ---------------------------------------------------------------------------------


def test_directives(test_patch: str, repo: str, runner: str = "") -> list[str]:
    """What the harness hands its runner: the files the test patch touches (Django: module labels)."""
    paths = [p for p in file_paths(test_patch) if not p.endswith(NON_TEST_EXTS)]
    if repo == "django/django" or runner == "django":
        return [p.removeprefix("tests/").removesuffix(".py").replace("/", ".") for p in paths if p.endswith(".py")]
    return paths


def _pytest_line(test_cmd: str) -> str:
    """``pytest ...`` as ``python -m pytest -p no:cacheprovider ...`` (the world's interpreter)."""
    tokens = test_cmd.split(None, 1)
    if tokens and tokens[0] == "pytest":
        rest = tokens[1] if len(tokens) > 1 else ""
        return f"python -m pytest -p no:cacheprovider {rest}".strip()
    return test_cmd


def src_entries(snapshot: str | Path) -> list[str]:
    """``src`` when the repository keeps a package there (a src/ layout)."""
    src = Path(snapshot) / "src"
    if src.is_dir() and any((d / "__init__.py").is_file() for d in src.iterdir() if d.is_dir()):
        return ["src"]
    return []


@dataclass
class TaskEnvironment:
    command: str
    log_parser: str
    requirements: list[str]
    image: str | None = None
    docker: bool = False
    notes: list[str] = field(default_factory=list)


def task_environment(row: dict[str, Any], snapshot: str | Path, *, extra: str | Path | None = None,
                     images: set[str] | None = None) -> TaskEnvironment:
    repo, version = row["repo"], str(row.get("version", ""))
    spec = repo_spec(repo, version, extra)
    runner = spec.runner if spec.runner in PARSER_OF_RUNNER else "pytest"
    directives = test_directives(row.get("test_patch") or "", repo, runner)
    if runner == "pytest":
        # the files graded ids name that the test patch does not touch (datasets written by other
        # tools than the harness, e.g. an export of T1): the harness's own datasets have none
        ids = [*(_list(row.get("FAIL_TO_PASS"))), *(_list(row.get("PASS_TO_PASS")))]
        named = [i.split("::")[0] for i in ids if "::" in i and i.split("::")[0].endswith(".py")]
        directives = list(dict.fromkeys([*directives, *named]))
    quoted = " ".join(shlex.quote(d) for d in directives)
    iid = str(row.get("instance_id") or "")
    image = instance_image(iid, images) if iid else None
    if image:
        # the harness's instance image: its conda environment, the repository at /testbed
        from testjack_tui.worlds.images import ready_spec

        command = f"{HARNESS_ACTIVATE} && {spec.test_cmd} {quoted}".strip()
        return TaskEnvironment(command, PARSER_OF_RUNNER[runner], [], ready_spec(image, iid),
                               docker=True, notes=[f"runs in the harness's image {image}"])
    test_cmd = _pytest_line(spec.test_cmd) if runner == "pytest" else spec.test_cmd
    if runner == "django" and test_cmd.startswith("./tests/runtests.py"):
        test_cmd = "python " + test_cmd.removeprefix("./")
    elif runner == "sympy" and " bin/test" in f" {test_cmd}" and "python bin/test" not in test_cmd:
        test_cmd = test_cmd.replace("bin/test", "python bin/test", 1)
    entries = [*spec.pythonpath, *[e for e in src_entries(snapshot) if e not in spec.pythonpath]]
    entries = [e for e in entries if (Path(snapshot) / e).is_dir()]
    # a command of its own, so that witness runs (which rebuild the runner's line) keep it
    prefix = f"export PYTHONPATH={':'.join(entries)}:$PYTHONPATH && " if entries else ""
    command = f"{prefix}{test_cmd} {quoted}".strip()
    requirements = list(spec.pip_packages)
    if spec.pytest and runner == "pytest":
        requirements.append(spec.pytest)
    notes = []
    if not spec.local:
        notes.append(f"{repo} needs an image (compiled code or system packages); no sweb.eval image of "
                     f"{iid or repo} is on this Docker engine")
    return TaskEnvironment(command, PARSER_OF_RUNNER[runner], requirements, notes=notes)


def _list(value: Any) -> list[str]:
    from testjack_tui.formats._common import as_list

    return as_list(value) or []


# -- the harness's instance images -------------------------------------------------------------


def instance_image_names(instance_id: str) -> list[str]:
    """The names the harness gives an instance's image (with and without the Hub's namespace)."""
    key = instance_id.replace("__", "_1776_").lower()
    return [f"sweb.eval.x86_64.{key}:latest", f"swebench/sweb.eval.x86_64.{key}:latest"]


def instance_image(instance_id: str, images: set[str] | None) -> str | None:
    if not images:
        return None
    return next((n for n in instance_image_names(instance_id) if n in images), None)


def local_images() -> set[str]:
    """The sweb.eval.* images on the Docker engine; empty when there is no engine (never fails)."""
    if not shutil.which("docker"):
        return set()
    try:
        done = subprocess.run(["docker", "images", "--format", "{{.Repository}}:{{.Tag}}"],
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    if done.returncode:
        return set()
    return {line.strip() for line in done.stdout.splitlines() if "sweb.eval." in line}
