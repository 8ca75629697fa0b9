"""Issue #3's done-when: an audit of a sample run gives the same per-test T0 outcomes on both backends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testjack_tui.store import Store
from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.formats.importing import import_path

pytestmark = pytest.mark.docker

MINI = Path(__file__).resolve().parents[2] / "sample_runs" / "mini"


def t0_outcomes(store: Store) -> dict[str, dict[str, str]]:
    """label -> per-test outcomes of every T0 execution of the run."""
    rows = store.db.execute("SELECT label, result FROM executions WHERE label LIKE 'T0 %'").fetchall()
    return {label: json.loads(result)["outcomes"] for label, result in rows}


def test_t0_outcomes_are_the_same_on_the_local_and_docker_backends(engine, tmp_path: Path) -> None:
    results = {}
    for name in ("local", "docker"):
        store = Store(tmp_path / f"{name}.db")
        import_path(store, MINI)
        status = Audit(store, "mini", AuditOptions(author="none", backend=name, workers=2, evidence=False)).execute()
        assert status == "done"
        results[name] = t0_outcomes(store)
        assert {t.id: t.recomputed for t in store.list_trial_objects("mini")}["chunk-t4"] == "failed"
        assert store.get_task("mini", "chunk").malformed is False
    assert len(results["local"]) == 8  # null, 3 x reference, 4 trials
    assert results["docker"] == results["local"]
