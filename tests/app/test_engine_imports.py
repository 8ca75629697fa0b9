"""The engine never imports Textual: it must run headless, in CI and in scripts."""

from __future__ import annotations

import subprocess
import sys

ENGINE = ["testjack_tui.store", "testjack_tui.model", "testjack_tui.pysource", "testjack_tui.formats", "testjack_tui.worlds",
          "testjack_tui.evidence", "testjack_tui.domain", "testjack_tui.authors", "testjack_tui.audit",
          "testjack_tui.report", "testjack_tui.export", "testjack_tui.review", "testjack_tui.settings"]


def test_engine_packages_import_no_textual():
    code = (
        "import importlib, pkgutil, sys\n"
        f"for name in {ENGINE!r}:\n"
        "    mod = importlib.import_module(name)\n"
        "    for info in pkgutil.walk_packages(getattr(mod, '__path__', []), name + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "loaded = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(loaded)\n"
        "sys.exit(1 if loaded else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
