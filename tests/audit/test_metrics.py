"""The paper's measures: recall and precision of one audit against another, and the 95% interval."""

from __future__ import annotations

from pathlib import Path

import pytest

from testjack_tui.store import Store
from testjack_tui.audit.metrics import compare, resolution_interval, wilson
from testjack_tui.audit.rulings import override_verdict
from testjack_tui.audit.verdicts import AUDITED_STEP
from testjack_tui.formats.importing import import_path

MINI = Path(__file__).resolve().parents[2] / "sample_runs" / "mini"


def test_wilson_interval_brackets_the_rate_and_narrows_with_more_data() -> None:
    lo, hi = wilson(3, 10)
    assert lo < 0.3 < hi
    lo2, hi2 = wilson(30, 100)
    assert lo < lo2 < 0.3 < hi2 < hi
    assert wilson(0, 0) == (0.0, 1.0)


def test_compare_measures_recall_and_precision_against_the_baseline(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.db")
    import_path(s, MINI, name="per-trial")
    import_path(s, MINI, name="light")
    override_verdict(s, "chunk-t2", "refuted", "x", run_ref="per-trial")
    override_verdict(s, "chunk-t3", "refuted", "x", run_ref="per-trial")
    override_verdict(s, "chunk-t3", "refuted", "x", run_ref="light")
    override_verdict(s, "chunk-t1", "refuted", "x", run_ref="light")
    result = compare(s, "per-trial", ["light"])
    base, light = result["runs"]
    assert base["recall"] == 1.0 and base["precision"] == 1.0
    assert light["refuted"] == 2 and light["recall"] == 0.5 and light["precision"] == 0.5


def test_the_corrected_rate_gets_an_interval_only_when_trials_stay_unaudited(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.db")
    import_path(s, MINI)
    assert resolution_interval(s, "mini") is None  # nothing was audited: no sample to learn from
    s.mark_step("mini", AUDITED_STEP + "chunk-t1")
    override_verdict(s, "chunk-t1", "refuted", "x")
    ci = resolution_interval(s, "mini")
    assert ci["sampled"] == 1 and ci["unaudited"] == 2
    # resolution_after counts the two unaudited trials as sound; the sample (1 of 1 refuted) says
    # a full audit would likely refute some of them too, so the interval lies below it.
    summary = s.summary("mini")
    lo, hi = wilson(1, 1)
    assert ci["high"] == pytest.approx((2 - lo * 2) / 4, abs=1e-3) and ci["high"] < summary.resolution_after
    assert ci["low"] == pytest.approx(0.0)
