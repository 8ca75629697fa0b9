"""What the authors' tests share: a scripted endpoint on loopback, a store holding the mini run,
and a git diff of one file for the runs they build."""

import difflib
from pathlib import Path

import pytest

from scripted_server import ScriptedServer
from store import Store
from testjack_tui.formats.importing import import_path

MINI = Path(__file__).resolve().parents[2] / "sample_runs" / "mini"


@pytest.fixture
def server():
    with ScriptedServer() as s:
        yield s


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "t.db")
    import_path(s, MINI)
    yield s
    s.close()


def diff(path: str, before: str, after: str) -> str:
    """A git-style diff of one file from ``before`` ("" for a new file) to ``after``."""
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 "/dev/null" if not before else f"a/{path}", f"b/{path}")
    return f"diff --git a/{path} b/{path}\n" + "".join(lines)
