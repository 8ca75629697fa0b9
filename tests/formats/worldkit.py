"""Test helpers: build a world from an imported task the way the executor does (copy R, git apply)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def git_apply(root: Path, patch: str, check: bool = False) -> subprocess.CompletedProcess[str]:
    args = ["git", "apply", "--whitespace=nowarn", *(["--check"] if check else []), "-"]
    return subprocess.run(args, input=patch, text=True, cwd=root, capture_output=True)


def world(snapshot: str, target: Path, *patches: str) -> Path:
    """R copied to ``target`` with ``patches`` applied in order; fails the test if one does not apply."""
    shutil.copytree(snapshot, target)
    for patch in patches:
        if not patch:
            continue
        done = git_apply(target, patch)
        assert done.returncode == 0, f"git apply failed: {done.stderr}\n{patch}"
    return target


def pytest_passes(root: Path, test_id: str) -> bool:
    """Plain pytest on one test id in ``root`` (no third-party plugins: they only slow the start)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", test_id],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )
    return done.returncode == 0


# Runs pytest in one process per batch of worlds (pytest.main per world, fresh modules each time):
# a subprocess per task would make this check take minutes instead of seconds.
PYTEST_EACH = """
import os, sys, pytest
failed = []
for root in sys.argv[1:]:
    os.chdir(root)
    sys.path.insert(0, root)
    for mod in ("solution", "test_humaneval"):
        sys.modules.pop(mod, None)
    code = pytest.main(["-p", "no:cacheprovider", "-q", "test_humaneval.py::test_check"])
    sys.path.remove(root)
    if code != 0:
        failed.append(os.path.basename(root))
print("FAILED:" + ",".join(failed))
"""


def worlds_failing_t0(roots: list[Path], batch: int = 50) -> list[str]:
    """The names of the worlds whose T0 (``test_humaneval.py::test_check``) fails, ``batch`` worlds
    to a process (each batch gets its own time limit)."""
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # plain pytest, and 2-3x faster to start
    failing: list[str] = []
    for start in range(0, len(roots), batch):
        chunk = roots[start:start + batch]
        done = subprocess.run(
            [sys.executable, "-c", PYTEST_EACH, *map(str, chunk)], capture_output=True, text=True, timeout=600, env=env
        )
        last = done.stdout.strip().splitlines()[-1]
        assert last.startswith("FAILED:"), done.stdout[-2000:] + done.stderr[-2000:]
        failing += [x for x in last.removeprefix("FAILED:").split(",") if x]
    return failing
