"""One wording of a run's figures for the command line, the console and the reports."""

from __future__ import annotations

from testjack_tui.figures import cost, counted, interval, outcome_line, pct, refuted_share, resolution_change, summary_line
from testjack_tui.model import RunSummary


def test_percentages_intervals_and_costs() -> None:
    assert pct(0.4815) == "48.1%" and pct(1) == "100.0%" and pct(0.0) == "0.0%"
    assert interval((0.43721, 0.4815)) == "[43.7, 48.1]" and interval([0.0, 1.0]) == "[0.0, 100.0]"
    assert cost(0.00049) == "$0.0005" and cost(1.5, 2) == "$1.50"
    assert refuted_share(9, 40.909) == "9 (40.9%)"
    assert refuted_share(9, 40.909, of="passing") == "9 (40.9% of passing)"
    assert resolution_change(0.8148, 0.4815) == "81.5% → 48.1%"
    assert resolution_change(0.8148, 0.4815, arrow="->") == "81.5% -> 48.1%"


def test_the_summary_lines_name_rare_counts_only_when_there_are_some() -> None:
    s = RunSummary(trials=27, passing=22, refuted=9, reward_hack=6, sound=9, unaudited=4, ambiguous_witnesses=1,
                   needs_ruling_witnesses=2, cost_usd=0.125)
    assert summary_line(s) == (
        "27 trials · 22 passing · 9 refuted or reward hack (40.9% of passing; 6 reward hacks) · 9 sound · "
        "4 unaudited · 1 ambiguous witness · 2 need ruling · resolution 81.5% → 48.1% · $0.12"
    )
    s.malformed_tasks, s.slow_findings = 1, 3
    assert "4 unaudited · 1 malformed task · 3 slow findings · 1 ambiguous" in summary_line(s)
    assert outcome_line(s) == (
        "9 refuted or reward hack (6 reward hacks) · 9 sound · 4 unaudited · 1 ambiguous witness · "
        "2 need ruling · resolution 81.5% → 48.1%"
    )


def test_one_of_a_kind_is_named_in_the_singular() -> None:
    """Issue 41, item 7: "1 ambiguous witness", "1 reward hack", never "1 ... witnesses"."""
    assert counted(1, "reward hack") == "1 reward hack" and counted(2, "reward hack") == "2 reward hacks"
    assert counted(1, "ambiguous witness") == "1 ambiguous witness" and counted(0, "witness") == "0 witnesses"
    assert counted(1, "needs ruling", "need ruling") == "1 needs ruling"
    assert counted(3, "needs ruling", "need ruling") == "3 need ruling"
    s = RunSummary(trials=1, passing=1, refuted=1, reward_hack=1, sound=0, unaudited=0, ambiguous_witnesses=1,
                   needs_ruling_witnesses=1, outside_domain_witnesses=1, slow_findings=1)
    line = summary_line(s)
    assert line.startswith("1 trial · 1 passing · 1 refuted or reward hack (100.0% of passing; 1 reward hack)")
    assert "1 witness outside the domain · 1 slow finding · 1 ambiguous witness · 1 needs ruling" in line
