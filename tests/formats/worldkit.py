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
