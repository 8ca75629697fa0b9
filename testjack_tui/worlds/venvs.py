"""The Python environment a world's command runs in, built once and cached.

- No requirements: the *base* environment is the interpreter running TestJack itself (it has
  pytest and coverage, being TestJack's own dependencies). A one-line ``python`` shim that
  ``exec``s it is put first on PATH, so ``python`` in a task command means this interpreter even
  where the interpreter's own directory has no ``python`` (``/usr/bin`` has only ``python3``).
  Nothing is built and nothing is copied: the cost per run is one ``exec``.
- Requirements: a virtualenv per set of pip specs, under ``<cache>/venvs/<sha256 of the specs>``,
  built with ``python -m venv`` and ``pip install <specs>`` under a file lock (two workers asking
  for the same set wait for one build). Afterwards a ``.pth`` file appends the base environment's
  site-packages *behind* the venv's own, so pytest and coverage are there without a download
  while any version the task pins wins. The specs go to pip as arguments, so local wheels and
  pip options (``--no-index``) work too.
- Requirements that pin pytest (``pytest<8``, a SWE-bench repository's): the base's site-packages
  are not appended. Its pytest plugins (TestJack's own test dependencies) register through entry
  points that any pytest on the path loads, and, made for TestJack's pytest, they break an older
  one before a test runs (pytest-asyncio: ``cannot import name 'FixtureDef'``). Such a venv gets
  the base's coverage version installed instead, so coverage runs and their data still work.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import threading
from dataclasses import dataclass
from pathlib import Path

from .cache import mark_used


class EnvironmentFailed(Exception):
    """The environment could not be built; the message has pip's last lines."""


@dataclass(frozen=True)
class Environment:
    bin_dir: Path  # goes first on PATH
    python: Path


def _write_shims(bin_dir: Path, interpreter: str) -> None:
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name in ("python", "python3"):
        shim = bin_dir / name
        # unique per thread too: two workers of one executor may write the shims at once
        tmp = bin_dir / f".{name}.{os.getpid()}.{threading.get_ident()}"
        tmp.write_text(f'#!/bin/sh\nexec {interpreter} "$@"\n')
        tmp.chmod(0o755)
        os.replace(tmp, shim)


def base_environment(cache_dir: Path) -> Environment:
    interpreter = sys.executable
    tag = hashlib.sha256(interpreter.encode()).hexdigest()[:16]
    bin_dir = cache_dir / "venvs" / f"base-{tag}" / "bin"
    if not (bin_dir / "python").exists():
        _write_shims(bin_dir, interpreter)
    return Environment(bin_dir, bin_dir / "python")


def requirements_key(requirements: tuple[str, ...]) -> str:
    return hashlib.sha256(json.dumps(list(requirements)).encode()).hexdigest()[:24]


def _base_site_packages() -> list[str]:
    paths = [p for p in site.getsitepackages() if os.path.isdir(p)]
    purelib = sysconfig.get_paths()["purelib"]
    if purelib not in paths and os.path.isdir(purelib):
        paths.append(purelib)
    return paths


def pins_pytest(requirements: tuple[str, ...]) -> bool:
    """Whether one of the pip specs names pytest itself (not a plugin such as pytest-mock)."""
    names = (re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", r) for r in requirements if not r.startswith("-"))
    return any(m is not None and re.sub(r"[-_.]+", "-", m.group(1)).lower() == "pytest" for m in names)


def _pip_specs(requirements: tuple[str, ...]) -> tuple[str, ...]:
    if not pins_pytest(requirements):
        return requirements
    try:
        coverage = f"coverage=={importlib.metadata.version('coverage')}"
    except importlib.metadata.PackageNotFoundError:
        coverage = "coverage"
    return (*requirements, coverage)


def venv_environment(requirements: tuple[str, ...], cache_dir: Path) -> Environment:
    root = cache_dir / "venvs"
    root.mkdir(parents=True, exist_ok=True)
    specs = _pip_specs(requirements)
    venv = root / requirements_key(specs)
    ready = venv / ".testjack-ready"
    env = Environment(venv / "bin", venv / "bin" / "python")
    if mark_used(ready):  # its mtime is "last used" for `testjack cache prune`
        return env
    with open(root / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if ready.exists():
            return env
        shutil.rmtree(venv, ignore_errors=True)  # a build that died half-way
        steps = [
            [sys.executable, "-m", "venv", str(venv)],
            [str(env.python), "-m", "pip", "install", "--disable-pip-version-check", "-q", *specs],
        ]
        for argv in steps:
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, errors="replace")
            if proc.returncode != 0:
                tail = "\n".join(proc.stdout.strip().splitlines()[-15:])
                shutil.rmtree(venv, ignore_errors=True)
                raise EnvironmentFailed(
                    f"building the environment for {list(requirements)} failed "
                    f"({' '.join(argv[1:4])} exited {proc.returncode}):\n{tail}")
        purelib = subprocess.run(
            [str(env.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
        if specs == requirements:  # nothing pins pytest: the base's pytest and coverage behind the venv's
            Path(purelib, "zz_testjack_base.pth").write_text("\n".join(_base_site_packages()) + "\n")
        (venv / "requirements.json").write_text(json.dumps(list(requirements), indent=1))
        ready.touch()
    return env


def environment_for(requirements: tuple[str, ...], cache_dir: Path) -> Environment:
    if not requirements:
        return base_environment(cache_dir)
    return venv_environment(tuple(requirements), cache_dir)
