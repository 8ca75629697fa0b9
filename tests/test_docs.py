"""The README and the manual stay in step with the code and with each other.

The README is the short way in (at most 250 lines); the manual is docs/, built by MkDocs from
mkdocs.yml. These tests check what a reader relies on: the README's command table names every
subcommand, its benchmark table every import format, its links lead to files that exist, every
manual page is in the nav, and (when MkDocs is installed) the manual builds with --strict, which
fails on any broken link or anchor.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from testjack_tui.cli import build_parser
from testjack_tui.formats import FORMATS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MKDOCS_YML = ROOT / "mkdocs.yml"


def _section(text: str, heading: str) -> str:
    """The lines under ``## heading`` up to the next ``## ``."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"README.md has no '## {heading}' section"
    return match.group(1)


def _subcommands() -> list[str]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return sorted(action.choices)


def _local_links(text: str) -> list[str]:
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    return [link for link in links if not re.match(r"[a-z]+:", link) and not link.startswith("#")]


def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move detail into a manual page under docs/"


def test_readme_command_table_lists_every_subcommand() -> None:
    table = _section(README.read_text(encoding="utf-8"), "Commands")
    listed = set(re.findall(r"^\| `testjack ([a-z-]+)", table, re.M))
    missing = [name for name in _subcommands() if name not in listed]
    assert not missing, f"README.md's command table has no row for: {', '.join(missing)}"
    assert re.search(r"^\| `testjack` \|", table, re.M), "the table has no row for plain `testjack` (the console)"


def test_readme_benchmark_table_lists_every_format() -> None:
    table = _section(README.read_text(encoding="utf-8"), "Supported benchmarks")
    for fmt in FORMATS:
        row = next((line for line in table.splitlines() if f"| `{fmt}` |" in line), None)
        assert row, f"README.md's benchmark table has no row for --format {fmt}"
        assert re.search(r"\]\(docs/[a-z-]+\.md\)", row), f"the {fmt} row links to no manual page"


def test_readme_links_lead_to_files() -> None:
    for link in _local_links(README.read_text(encoding="utf-8")):
        target = ROOT / link.split("#", 1)[0]
        assert target.exists(), f"README.md links to {link}, which does not exist"


def test_every_manual_page_is_in_the_nav() -> None:
    nav = MKDOCS_YML.read_text(encoding="utf-8")
    pages = sorted(p.name for p in DOCS.glob("*.md"))
    assert pages, "docs/ holds no manual pages"
    missing = [name for name in pages if not re.search(rf":\s*{re.escape(name)}\s*$", nav, re.M)]
    assert not missing, f"mkdocs.yml's nav leaves out: {', '.join(missing)}"


def test_manual_links_stay_inside_the_manual() -> None:
    """A page may link to pages and anchors of the manual; MkDocs checks those. Links out of docs/
    (to the README or to source files) would break in the built site, so pages name such files
    in backticks instead."""
    for page in DOCS.glob("*.md"):
        for link in _local_links(page.read_text(encoding="utf-8")):
            assert not link.startswith(".."), f"{page.name} links out of docs/: {link}"


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason='MkDocs is not installed (pip install -e ".[docs]")')
def test_manual_builds_strictly(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "index.html").exists()
