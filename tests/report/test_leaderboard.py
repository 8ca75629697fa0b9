"""The corrected leaderboard, as `testjack leaderboard` and the reports show it.

The stores are built with the store's own API (SQLite, no mocks): trials with the benchmark's
verdicts, TestJack's verdicts and the marks of the trials that had their own audit, so every
count, interval and rank below can be worked out by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from testjack_tui.store import Store
from testjack_tui.audit.metrics import wilson
from testjack_tui.audit.verdicts import AUDITED_STEP
from testjack_tui.model import Official, Run, Task, Trial, Verdict, VerdictRecord, VerdictSource
from testjack_tui.model import TestSpec as Spec
from testjack_tui.report import build_report, render
from testjack_tui.report.leaderboard import leaderboard

ROOT = Path(__file__).resolve().parents[2]


def make_store(path: Path, trials: list[tuple[str, str, str, str]], audited: set[str] = frozenset()) -> Store:
    """trials: (model, agent, official, verdict); ids are t0, t1, ... in that order."""
    store = Store(path)
    repo = path.parent / "repo"
    repo.mkdir(exist_ok=True)
    (repo / "README").write_text("r\n")
    task = Task("", "task", "task", "prompt", str(repo), "repo-1", "", "", Spec("true", fail_to_pass=["x"]))
    rows = [Trial("", f"t{i}", "task", model, agent, "", Official(official))
            for i, (model, agent, official, _) in enumerate(trials)]
    store.import_run(Run(id="board", name="board", benchmark="bench", digest="board-1"), [task], rows)
    store.set_verdicts([VerdictRecord("board", f"t{i}", Verdict(v), VerdictSource.AUTO, "set by the test")
                        for i, (*_, v) in enumerate(trials)])
    for tid in audited:
        store.mark_step("board", AUDITED_STEP + tid)
    return store


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "testjack_tui.cli", *args], capture_output=True, text=True, cwd=ROOT)


# model-a: 4 trials, 4 passes, 1 refuted and 1 reward hack -> 2/4 after
# model-b: 4 trials, 3 passes, 1 refuted                  -> 2/4 after (a tie with model-a)
# model-c: 4 trials, 2 passes, none refuted, 1 unaudited  -> 2/4 after, an interval that covers the unaudited one
SMALL = [
    ("model-a", "agent-x", "passed", "sound"), ("model-a", "agent-x", "passed", "sound"),
    ("model-a", "agent-y", "passed", "refuted"), ("model-a", "agent-y", "passed", "reward_hack"),
    ("model-b", "agent-x", "passed", "sound"), ("model-b", "agent-x", "passed", "sound"),
    ("model-b", "agent-y", "passed", "refuted"), ("model-b", "agent-y", "failed", "not_passing"),
    ("model-c", "agent-x", "passed", "sound"), ("model-c", "agent-y", "passed", "unaudited"),
    ("model-c", "agent-y", "failed", "not_passing"), ("model-c", "agent-y", "failed", "not_passing"),
]
SMALL_AUDITED = {"t0", "t1", "t2", "t4", "t5", "t6", "t8"}


@pytest.fixture
def small(tmp_path: Path) -> Path:
    make_store(tmp_path / "s.db", SMALL, SMALL_AUDITED).close()
    return tmp_path / "s.db"


def test_counts_ties_and_ranks_before_and_after(small: Path) -> None:
    rows = {r.name: r for r in leaderboard(Store(small), "board")}
    a, b, c = rows["model-a"], rows["model-b"], rows["model-c"]
    assert (a.trials, a.passing, a.refuted, a.reward_hack, a.resolution_before, a.resolution_after) == (4, 4, 2, 1, 1.0, 0.5)
    assert (b.passing, b.refuted, b.resolution_after) == (3, 1, 0.5)
    assert (c.passing, c.refuted, c.unaudited, c.resolution_after) == (2, 0, 1, 0.5)  # unaudited counts as a pass
    # before: a 4/4, b 3/4, c 2/4; after: all three 2/4, one shared rank
    assert [a.rank_before, b.rank_before, c.rank_before] == [1, 2, 3]
    assert [a.rank_after, b.rank_after, c.rank_after] == [1, 1, 1]
    assert a.tied_after == ["model-b", "model-c"] and not a.tied_before
    assert [b.rank_change, c.rank_change] == [1, 2]


def test_intervals_are_wilson_and_cover_the_unaudited_trials(small: Path) -> None:
    rows = {r.name: r for r in leaderboard(Store(small), "board")}
    a, c = rows["model-a"], rows["model-c"]
    assert a.resolution_after_95 == tuple(round(x, 4) for x in wilson(2, 4))  # every passing trial has a verdict
    assert a.resolution_before_95 == tuple(round(x, 4) for x in wilson(4, 4))
    # model-c's one unaudited trial: its own audited sample is t8 (not refuted), so the rate's
    # interval is wilson(0, 1); the corrected count lies between 2 - high and 2 - low
    low_rate, high_rate = wilson(0, 1)
    assert (c.sample_scope, c.sampled, c.refuted_in_sample) == ("group", 1, 0)
    assert c.resolution_after_95 == (round(wilson(2 - high_rate, 4)[0], 4), round(wilson(2 - low_rate, 4)[1], 4))
    assert c.resolution_after_95[0] < wilson(2, 4)[0] and c.resolution_after_95[0] <= 0.5 <= c.resolution_after_95[1]


def test_the_run_sample_stands_in_for_a_model_with_no_audited_trial(tmp_path: Path) -> None:
    trials = [("model-a", "", "passed", "refuted"), ("model-a", "", "passed", "sound"),
              ("model-b", "", "passed", "unaudited"), ("model-b", "", "passed", "unaudited")]
    rows = {r.name: r for r in leaderboard(make_store(tmp_path / "s.db", trials, {"t0", "t1"}), "board")}
    b = rows["model-b"]
    assert (b.sample_scope, b.sampled, b.refuted_in_sample) == ("run", 2, 1)
    low_rate, high_rate = wilson(1, 2)
    assert b.resolution_after_95 == (round(wilson(2 - 2 * high_rate, 2)[0], 4), round(wilson(2 - 2 * low_rate, 2)[1], 4))


def test_a_rank_change_inside_overlapping_intervals_is_shown_as_such(small: Path) -> None:
    rows = {r.name: r for r in leaderboard(Store(small), "board")}
    c = rows["model-c"]
    assert sorted(c.crossed) == ["model-a", "model-b"] and c.change_within_intervals is True
    assert c.rank_after_range == (1, 3)  # every interval overlaps: any rank is possible


def test_a_rank_change_beyond_the_intervals_is_not_called_noise(tmp_path: Path) -> None:
    # x: 100 trials, 90 passes, none refuted -> 0.90; y: 95 passes, 60 refuted -> 0.35
    trials = [("x", "", "passed" if i < 90 else "failed", "sound" if i < 90 else "not_passing") for i in range(100)]
    trials += [("y", "", "passed" if i < 95 else "failed",
                "refuted" if i < 60 else "sound" if i < 95 else "not_passing") for i in range(100)]
    rows = leaderboard(make_store(tmp_path / "s.db", trials), "board")
    x, y = rows
    assert (x.name, x.rank_before, x.rank_after, y.rank_before, y.rank_after) == ("x", 2, 1, 1, 2)
    assert x.crossed_beyond_interval == ["y"] and x.change_within_intervals is False
    assert x.rank_after_range == (1, 1) and y.rank_after_range == (2, 2)


def test_by_agent_groups_by_agent(small: Path) -> None:
    rows = {r.name: r for r in leaderboard(Store(small), "board", by="agent")}
    assert set(rows) == {"agent-x", "agent-y"}
    assert (rows["agent-x"].trials, rows["agent-x"].passing, rows["agent-x"].refuted) == (5, 5, 0)
    assert (rows["agent-y"].trials, rows["agent-y"].passing, rows["agent-y"].refuted) == (7, 4, 3)
    assert rows["agent-x"].rank_after == 1


def test_the_command_prints_the_table_and_the_json(small: Path) -> None:
    proc = cli("leaderboard", "board", "--store", str(small))
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if "model-" in line]
    assert [line.split("│")[2].strip() for line in lines] == ["model-a", "model-b", "model-c"]
    c = next(line for line in lines if "model-c" in line).split("│")
    # rank 1= (shared), 4 trials, 2 passes, 50.0% before and after, its interval, was 3rd, up 2 inside the intervals
    assert [cell.strip() for cell in c[1:-1]] == [
        "1=", "model-c", "4", "2", "50.0%", "0", "0", "1", "50.0%", "[6.3, 85.0]", "3", "up 2 (within CI)"]
    proc = cli("leaderboard", "board", "--by", "agent", "--json", "--store", str(small))
    data = json.loads(proc.stdout)
    assert data["by"] == "agent" and [r["agent"] for r in data["leaderboard"]] == ["agent-x", "agent-y"]
    proc = cli("leaderboard", "nope", "--store", str(small))
    assert proc.returncode == 2 and "no run 'nope'" in proc.stderr


def test_every_report_carries_the_leaderboard(small: Path) -> None:
    report = build_report(Store(small), "board")
    rows = report["leaderboard"]
    # the contract's fields, one row per model
    for key in ("model", "trials", "passing", "resolution_before", "refuted", "reward_hack", "resolution_after",
                "resolution_after_95", "rank_before", "rank_after"):
        assert key in rows[0]
    assert [r["model"] for r in rows] == ["model-a", "model-b", "model-c"]
    assert json.loads(render(report, "json"))["leaderboard"] == rows
    md = render(report, "md")
    section = md[md.index("## Leaderboard"):md.index("## Refutations")]
    assert "| 1= | model-c | 4 | 2 | 50.0% | 0 | 0 | 1 | 50.0% | [6.3, 85.0] | 3 | up 2; order with model-a, model-b changed within the 95% intervals |" in section
    page = render(report, "html")
    assert "<h2>Leaderboard (corrected)</h2>" in page and "<td>model-c</td>" in page and "within the 95% intervals" in page
