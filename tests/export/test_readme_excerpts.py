"""The README's excerpts of command output are what the current code prints on the sample run.

They are written by ``benchmarks/readme_excerpts.py``; this test reruns its commands on the
audited toolbox run the export tests share (no audit of its own) and names a stale excerpt.
"""

from __future__ import annotations

import importlib.util

import pytest

from .conftest import ROOT

pytestmark = pytest.mark.slow


def _script():
    spec = importlib.util.spec_from_file_location("readme_excerpts", ROOT / "benchmarks" / "readme_excerpts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_shows_what_the_commands_print_now(toolbox) -> None:
    script = _script()
    store, _ = toolbox
    readme = script.README.read_text(encoding="utf-8")
    assert set(script.shown(readme)) == set(script.BLOCKS)  # every excerpt has its marker
    blocks = script.excerpts(store.path)
    assert script.stale(readme, blocks) == [], "regenerate: python benchmarks/readme_excerpts.py"
    # what the README's prose says of the run is in the excerpt it comments on
    summary = "\n".join(blocks["report"])
    assert "| 27 | 22 | 9 (40.9%) | 6 |" in summary and "81.5% | 48.1% |" in summary
