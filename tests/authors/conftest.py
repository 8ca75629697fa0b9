"""Fixtures the LLM author's tests share: a scripted endpoint on loopback, and a store holding the mini run."""

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
