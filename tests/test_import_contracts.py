"""The import contracts in pyproject.toml (``[tool.importlinter]``) hold: every arrow points down
the layers, and the engine imports no Textual.

import-linter reads a package from one folder on disk, and ``testjack_tui.store`` and
``testjack_tui.themes`` live in the repository's top-level ``store/`` and ``themes/`` (pyproject's
package-dir). So the check runs on the package laid out as it installs: a copy of the three
folders' Python files in a temporary directory, first on ``PYTHONPATH``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.test_layering import PACKAGES, ROOT


def _installed_layout(into: Path) -> Path:
    for folder, package in PACKAGES.items():
        shutil.copytree(ROOT / folder, into / Path(*package.split(".")),
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"), dirs_exist_ok=True)
    return into


def _lint(root: Path) -> subprocess.CompletedProcess:
    lint = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(lint), "--no-cache", str(ROOT / "pyproject.toml")], cwd=root,
                          env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True, text=True)


def test_every_import_points_down_and_the_engine_imports_no_textual(tmp_path):
    done = _lint(_installed_layout(tmp_path / "pkg"))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Contracts: 2 kept, 0 broken." in done.stdout


def test_a_climbing_import_breaks_the_layers(tmp_path):
    root = _installed_layout(tmp_path / "pkg")
    target = root / "testjack_tui" / "worlds" / "request.py"
    target.write_text(target.read_text() + "\nfrom testjack_tui.audit import engine  # climbs\n")
    engine_side = root / "testjack_tui" / "audit" / "metrics.py"
    engine_side.write_text(engine_side.read_text() + "\nimport textual  # not headless\n")
    done = _lint(root)
    assert done.returncode != 0
    assert "testjack_tui.worlds is not allowed to import testjack_tui.audit" in done.stdout
    assert "testjack_tui.audit.metrics -> textual" in done.stdout
