"""End to end: the offline author audits sample_runs/mini through the real engine and worlds.

chunk-t2 returns ``[[]]`` for an empty list (P's own example says ``[]``), chunk-t3 hard-codes
T0's answer for lists that do not split evenly, chunk-t1 is correct, and chunk-t4 fails T0.
"""

from pathlib import Path

import pytest

from testjack_tui.store import Store
from testjack_tui.audit import Audit
from testjack_tui.audit.engine import AuditOptions
from testjack_tui.formats.importing import import_path
from testjack_tui.model import RequirementKind, Verdict, WitnessStatus

MINI = Path(__file__).resolve().parents[2] / "sample_runs" / "mini"


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("store") / "testjack.db")
    run_id = import_path(store, MINI).run_id
    options = AuditOptions(mode="per-trial", author="offline", workers=2, evidence=False)
    assert Audit(store, run_id, options).execute() == "done"
    return store, run_id


def test_offline_author_refutes_the_defective_trials_only(audited):
    store, run_id = audited
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts == {
        "chunk-t1": Verdict.SOUND,
        "chunk-t2": Verdict.REFUTED,
        "chunk-t3": Verdict.REFUTED,
        "chunk-t4": Verdict.NOT_PASSING,
    }


def test_witnesses_are_certified_short_and_grounded(audited):
    store, run_id = audited
    witnesses = store.list_witnesses(run_id, "chunk", status=str(WitnessStatus.VALIDATED))
    assert witnesses and len(witnesses) <= 6  # few enough for an analyst to read
    for w in witnesses:
        results = {k: str(v.outcome) for k, v in store.witness_results(w.id).items()}
        assert results["reference"] == "pass"  # every witness passed on the reference
        assert results["chunk-t1"] == "pass"  # and none fails the correct trial
        assert "def test_" in w.code and w.code.count("assert ") + w.code.count("pytest.raises(") == 1
    refuting_t2 = [w for w in witnesses if str(store.witness_results(w.id)["chunk-t2"].outcome) == "fail"]
    # P's own example `chunk([], 3) == []` is what refutes chunk-t2, as an explicit requirement
    assert any(w.requirement_kind == RequirementKind.EXPLICIT and "chunk([], 3)" in w.code for w in refuting_t2)
