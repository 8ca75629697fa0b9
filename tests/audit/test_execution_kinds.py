"""The breakdown of a per-trial audit's executions by what each is for (benchmarks/bench_breakdown.py,
quoted in docs/scale.md) names every execution the engine runs, with the counts the manual explains:
per task T0 on the null world and three times on the reference, per trial T0 on its world and one
offline probe on the reference and one on the trial. A label the breakdown cannot read would show
up here as a kind of its own."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

EVALPLUS_DEV = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "evalplus-dev"
if not EVALPLUS_DEV.is_dir():
    EVALPLUS_DEV = Path("/work/shared/corpora/evalplus-dev")

PER_TASK = {"T0 null": 1, "T0 reference": 3}
PER_TRIAL = {"T0 model a trial": 1, "offline probe on reference": 1, "offline probe on model": 1}
WITNESS_RUNS = {"witness on reference", "witness on null", "witness on a trial"}


@pytest.mark.slow
@pytest.mark.skipif(not (EVALPLUS_DEV / "problems.jsonl").is_file(), reason="the evalplus-dev corpus is not here")
def test_every_execution_of_a_per_trial_audit_has_a_kind(tmp_path: Path) -> None:
    from benchmarks.bench_breakdown import audit, table
    from benchmarks.corpora import write_slice

    write_slice(EVALPLUS_DEV, tmp_path / "slice", tasks={1, 3})
    figures, executed = audit(tmp_path / "slice", tmp_path / "s.db", workers=2)
    counts = collections.Counter({name: len(requests) for name, requests in executed.items()})
    tasks, trials = 2, figures["audited"]
    assert figures["status"] == "done" and trials == 4
    assert set(counts) <= set(PER_TASK) | set(PER_TRIAL) | WITNESS_RUNS, counts
    for name, each in PER_TASK.items():
        assert counts[name] == each * tasks, (name, counts)
    for name, each in PER_TRIAL.items():
        assert counts[name] == each * trials, (name, counts)
    lines = table(figures, executed, {})
    assert any(line.startswith("| offline probe on reference | 4 | 1.00 |") for line in lines), lines
    # where the wall time went: two workers, and the official tests of both tasks in one stream
    assert figures["in_flight_s"].get("2", 0) > 0, figures["in_flight_s"]
    assert any(line.startswith("wall time with N executions running: 0: ") for line in lines), lines
