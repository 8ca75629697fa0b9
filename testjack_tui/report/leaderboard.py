"""The corrected leaderboard: one row per model (or agent), ranked before and after the audit.

Counts follow the run summary: ``passing`` is the benchmark's own passes, ``refuted`` includes
reward hacks, and in the corrected resolution unaudited trials count as passes while not
reproduced ones do not (``model.Resolution``). Each row carries two 95% intervals, both Wilson
intervals over the group's trials:

- ``resolution_before_95``: on the official passes;
- ``resolution_after_95``: on the corrected count, widened by what the unaudited trials may hold.
  Their refutation rate is estimated as the summary's ``resolution_after_95`` does (a Wilson
  interval on the rate among trials that had their own audit), here among the group's own audited
  trials, or the run's when the group has none; the lowest corrected count takes the rate's upper
  bound, the highest its lower bound, and the Wilson interval is taken around each.

Ranks are competition ranks (1, 2, 2, 4) on the exact fractions, so a tie is a tie. A change of
order between two rows whose corrected intervals overlap is not evidence that one is better:
``crossed`` names every row whose order with this one changed, ``crossed_beyond_interval`` those of
them whose interval does not overlap this one's, and ``rank_after_range`` the best and worst rank
the intervals allow.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from testjack_tui.store import Store
from testjack_tui.audit.metrics import REFUTING, wilson
from testjack_tui.audit.verdicts import AUDITED_STEP
from testjack_tui.model import LeaderboardRow, Official, Verdict
from testjack_tui.report.model import LeaderboardEntry, RateSource

GROUPINGS = ("model", "agent")
UNNAMED = "(unnamed)"


def leaderboard(store: Store, run_ref: str, by: str = "model") -> list[LeaderboardRow]:
    """The rows of the run's corrected leaderboard, best corrected resolution first."""
    if by not in GROUPINGS:
        raise ValueError(f"a leaderboard groups by {' or '.join(GROUPINGS)}, not {by!r}")
    run = store.get_run(run_ref)
    verdicts = store.list_verdicts(run.id)
    audited = store.steps_with_prefix(run.id, AUDITED_STEP)
    rows: dict[str, LeaderboardRow] = {}
    for trial in store.list_trial_objects(run.id):
        name = getattr(trial, by) or UNNAMED
        row = rows.setdefault(name, LeaderboardRow(name=name))
        row.trials += 1
        if trial.official == Official.PASSED:
            row.passing += 1
        record = verdicts.get(trial.id)
        verdict = record.verdict if record else Verdict.UNAUDITED
        if verdict in REFUTING:
            row.refuted += 1
        if verdict == Verdict.REWARD_HACK:
            row.reward_hack += 1
        elif verdict == Verdict.SOUND:
            row.sound += 1
        elif verdict == Verdict.UNAUDITED and trial.official == Official.PASSED:
            row.unaudited += 1
        elif verdict == Verdict.NOT_REPRODUCED:
            row.not_reproduced += 1
        if trial.id in audited and record is not None:
            row.sampled += 1
            row.refuted_in_sample += verdict in REFUTING
    run_sampled = sum(r.sampled for r in rows.values())
    run_refuted = sum(r.refuted_in_sample for r in rows.values())
    for row in rows.values():
        _intervals(row, run_sampled, run_refuted)
    ordered = sorted(rows.values(), key=lambda r: (-_after(r), -_before(r), r.name))
    _rank(ordered)
    return ordered


def _before(row: LeaderboardRow) -> Fraction:
    return Fraction(row.passing, row.trials) if row.trials else Fraction(0)


def _after(row: LeaderboardRow) -> Fraction:
    return Fraction(row.resolved_after, row.trials) if row.trials else Fraction(0)


def _intervals(row: LeaderboardRow, run_sampled: int, run_refuted: int) -> None:
    n = row.trials
    row.resolution_before_95 = _rounded(wilson(row.passing, n))
    known = row.resolved_after
    if not row.unaudited:
        row.resolution_after_95 = _rounded(wilson(known, n))
        return
    if not row.sampled:
        row.sample_scope = "run"
        row.sampled, row.refuted_in_sample = run_sampled, run_refuted
    rate_low, rate_high = wilson(row.refuted_in_sample, row.sampled)  # (0, 1) when nothing had its own audit
    low = wilson(known - rate_high * row.unaudited, n)[0]
    high = wilson(known - rate_low * row.unaudited, n)[1]
    row.resolution_after_95 = _rounded((low, high))


def _rounded(pair: tuple[float, float]) -> tuple[float, float]:
    return round(pair[0], 4), round(pair[1], 4)


def _competition_ranks(values: list[Fraction]) -> list[int]:
    return [1 + sum(1 for other in values if other > v) for v in values]


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _sign(x: Fraction) -> int:
    return (x > 0) - (x < 0)


def _rank(rows: list[LeaderboardRow]) -> None:
    before = [_before(r) for r in rows]
    after = [_after(r) for r in rows]
    for row, rank_b, rank_a in zip(rows, _competition_ranks(before), _competition_ranks(after)):
        row.rank_before, row.rank_after = rank_b, rank_a
    count = len(rows)
    for i, row in enumerate(rows):
        others = [j for j in range(count) if j != i]
        row.tied_before = [rows[j].name for j in others if before[j] == before[i]]
        row.tied_after = [rows[j].name for j in others if after[j] == after[i]]
        row.crossed = [rows[j].name for j in others if _sign(before[i] - before[j]) != _sign(after[i] - after[j])]
        row.crossed_beyond_interval = [
            rows[j].name for j in others
            if rows[j].name in row.crossed and not _overlap(row.resolution_after_95, rows[j].resolution_after_95)
        ]
        low, high = row.resolution_after_95
        better = sum(1 for j in others if rows[j].resolution_after_95[0] > high)
        worse = sum(1 for j in others if rows[j].resolution_after_95[1] < low)
        row.rank_after_range = (1 + better, count - worse)


def rank_text(rank: int, tied: list[str]) -> str:
    """``2`` or ``2=`` (shared with another row)."""
    return f"{rank}=" if tied else str(rank)


def change_text(row: LeaderboardRow) -> str:
    """What a reader needs about the change of rank, in words: honest about overlapping intervals."""
    change = row.rank_change
    move = "same rank" if change == 0 else f"up {change}" if change > 0 else f"down {-change}"
    within = row.change_within_intervals
    if within is None:
        return move
    crossed = ", ".join(row.crossed)
    if within:
        return f"{move}; order with {crossed} changed within the 95% intervals"
    return f"{move}; order with {crossed} changed, beyond the 95% interval of {', '.join(row.crossed_beyond_interval)}"


def change_short(row: LeaderboardRow) -> str:
    """The change of rank in a table cell: ``up 1``, ``down 2 (within CI)``, ``same``."""
    change = row.rank_change
    move = "same" if change == 0 else f"up {change}" if change > 0 else f"down {-change}"
    return f"{move} (within CI)" if change and row.change_within_intervals else move


def entries(rows: list[LeaderboardRow]) -> list[LeaderboardEntry]:
    """The rows as the report's ``leaderboard[]`` (CONTRACTS.md), with what ranks honestly."""
    return [
        LeaderboardEntry(
            model=r.name, trials=r.trials, passing=r.passing, resolution_before=r.resolution_before,
            resolution_before_95=r.resolution_before_95, refuted=r.refuted, reward_hack=r.reward_hack,
            sound=r.sound, unaudited=r.unaudited, not_reproduced=r.not_reproduced,
            resolution_after=r.resolution_after, resolution_after_95=r.resolution_after_95,
            unaudited_rate_from=RateSource(scope=r.sample_scope, sampled=r.sampled,
                                           refuted_in_sample=r.refuted_in_sample),
            rank_before=r.rank_before, rank_after=r.rank_after, rank_change=r.rank_change,
            rank_after_range=r.rank_after_range, tied_before=r.tied_before, tied_after=r.tied_after,
            crossed=r.crossed, crossed_beyond_interval=r.crossed_beyond_interval,
            change_within_intervals=r.change_within_intervals, change=change_text(r),
        )
        for r in rows
    ]


def rows_json(rows: list[LeaderboardRow], by: str = "model") -> list[dict[str, Any]]:
    """The rows' JSON form, keyed by ``by`` (``testjack leaderboard --json``)."""
    return [{by if key == "model" else key: value for key, value in entry.model_dump(mode="json").items()}
            for entry in entries(rows)]
