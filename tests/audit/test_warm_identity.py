"""Warm test processes change nothing an audit concludes: the toolbox audited cold and warm.

The default audit (lightweight, evidence and mutation testing with every mutant, the offline author) of
``sample_runs/toolbox`` once with ``TESTJACK_WARM=0`` and once warm: the same verdicts, the same
witnesses with the same results on every world, the same executions under the same cache keys,
each with the same status, exit code and outcomes.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.formats.importing import import_path
from testjack_tui.report import build_report
from testjack_tui.store import Store

TOOLBOX = Path(__file__).resolve().parents[2] / "sample_runs" / "toolbox"


def _audited(tmp_path: Path, monkeypatch, warmth: str) -> tuple[dict, dict]:
    monkeypatch.setenv("TESTJACK_WARM", warmth)
    run = tmp_path / f"toolbox-{warmth}"
    shutil.copytree(TOOLBOX, run)
    store = Store(tmp_path / f"warm-{warmth}.db")
    run_id = import_path(store, run).run_id
    # every mutant, however fast the runs: the default budget is in seconds, and warm runs fit more
    options = AuditOptions(workers=2, mutation_budget_s=3600)
    assert Audit(store, run_id, options).execute() == "done"
    report = json.loads(json.dumps(build_report(store, run_id)))
    concluded = {
        "verdicts": {t["id"]: (t["verdict"], sorted(t["witnesses"])) for t in report["trials"]},
        "witnesses": {w["id"]: (w["code"], w["classification"], w["flaky"], sorted(w["results"].items()))
                      for w in report["witnesses"]},
    }
    executions = {key: (r["status"], r["exit_code"], sorted(r["outcomes"].items()))
                  for key, r in store.list_executions(run_id).items()}
    store.close()
    return concluded, executions


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="warm runs need the whole sandbox (root here)")
def test_the_toolbox_audited_warm_concludes_what_it_does_cold(tmp_path, monkeypatch):
    cold, cold_runs = _audited(tmp_path, monkeypatch, "0")
    warm, warm_runs = _audited(tmp_path, monkeypatch, "1")
    assert warm["verdicts"] == cold["verdicts"]
    assert warm["witnesses"] == cold["witnesses"]
    assert sorted(warm_runs) == sorted(cold_runs)  # the same requests: cache keys unchanged
    assert {k: v for k, v in warm_runs.items() if v != cold_runs[k]} == {}
