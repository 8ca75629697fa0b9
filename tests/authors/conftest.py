"""What the authors' tests share: a scripted endpoint on loopback, a store holding the mini run,
and an offline audit of a HumanEval-style run."""

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripted_server import ScriptedServer
from testjack_tui.store import Store
from testjack_tui.audit import Audit
from testjack_tui.audit.engine import AuditOptions
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


def audit_layouts(root: Path, styles: dict) -> "Iterator[tuple[Store, str]]":
    """The SWE-bench layout fixtures ``styles`` (name -> style of tests/formats/swebench_layouts.py)
    built under ``root``, imported and audited by the offline author: yields (store, run id), with
    the styles registered and the cache under ``root`` meanwhile."""
    formats = str(Path(__file__).parents[1] / "formats")
    if formats not in sys.path:
        sys.path.insert(0, formats)
    from swebench_layouts import STYLES, build

    mp = pytest.MonkeyPatch()
    mp.setenv("TESTJACK_CACHE", str(root / "cache"))
    for name, style in styles.items():
        mp.setitem(STYLES, name, style)
    try:
        data = build(root, list(styles))
        store = Store(root / "s.db")
        outcome = import_path(store, data, "swebench", repos=data / "repos", swebench_envs=root / "envs.toml")
        options = AuditOptions(author="offline", evidence=False, workers=2)
        assert Audit(store, outcome.run_id, options).execute() == "done"
        yield store, outcome.run_id
    finally:
        mp.undo()


def audit_humaneval(folder: Path, problems: list[dict], samples: list[dict], mode: str) -> tuple[Store, str]:
    """A HumanEval-style run of ``problems`` and ``samples`` written to ``folder``, imported and
    audited there by the offline author in ``mode``: (its store, the run's id)."""
    (folder / "problems.jsonl").write_text("".join(json.dumps(p) + "\n" for p in problems))
    (folder / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    store = Store(folder / "testjack.db")
    run_id = import_path(store, folder).run_id
    options = AuditOptions(mode=mode, author="offline", workers=2, evidence=False)
    assert Audit(store, run_id, options).execute() == "done"
    return store, run_id
