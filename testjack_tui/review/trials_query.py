"""What the trials list reads under its filters: the filters, a page of trials, the verdict counts,
and the header line that describes the filtered selection (the run's own is ``figures.summary_line``).
No widgets here.

The verdict filter offers "refuted or reward hack" (every refutation, as the run's summary counts
them): the store selects, counts and pages a set of verdicts in SQL like a single one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from testjack_tui.store import TrialRow
from testjack_tui.model import LABELS
from testjack_tui.model import RunSummary, Verdict

REFUTING = (Verdict.REFUTED.value, Verdict.REWARD_HACK.value)
REFUTING_CHOICE = "refuting"  # the verdict filter's "refuted or reward hack"


@dataclass
class Filters:
    verdict: str | None = None
    task: str | None = None
    model: str | None = None
    evidence_kind: str | None = None
    search: str | None = None
    sort: str = "seq"

    def query(self) -> dict[str, Any]:
        """The store's filters (``list_trials``): "refuted or reward hack" is a set of verdicts."""
        verdict = dict(verdicts=REFUTING) if self.verdict == REFUTING_CHOICE else dict(verdict=self.verdict)
        return dict(**verdict, task=self.task, model=self.model,
                    evidence_kind=self.evidence_kind, search=self.search or None, sort=self.sort)

    def active(self) -> bool:
        return any((self.verdict, self.task, self.model, self.evidence_kind, self.search))

    def describe(self) -> str:
        parts = []
        if self.verdict:
            parts.append("refuted or reward hack" if self.verdict == REFUTING_CHOICE
                         else LABELS.get(self.verdict, self.verdict))
        parts += [f"task {self.task}" if self.task else "", f"model {self.model}" if self.model else "",
                  f"evidence {self.evidence_kind.replace('_', ' ')}" if self.evidence_kind else "",
                  f"“{self.search}”" if self.search else ""]
        return ", ".join(p for p in parts if p)


def read_page(store, run_id: str, filters: dict[str, Any], offset: int, limit: int) -> tuple[list[TrialRow], int]:
    """One page of trials and how many the filters select in all (-1 past the first page)."""
    return (store.list_trials(run_id, offset=offset, limit=limit, **filters),
            store.count_trials(run_id, **filters) if offset == 0 else -1)


def verdict_counts(store, run_id: str, filters: dict[str, Any]) -> dict[str, int]:
    """How many of the trials the filters select have each verdict (for the header)."""
    wanted = filters.get("verdicts") or ((filters["verdict"],) if filters.get("verdict") else [v.value for v in Verdict])
    rest = {k: v for k, v in filters.items() if k not in ("verdict", "verdicts")}
    return {v: store.count_trials(run_id, verdict=v, **rest) for v in wanted}


@dataclass
class Page:
    rows: list[TrialRow]
    offset: int
    total: int | None = None
    summary: RunSummary | None = None
    facets: dict[str, list[str]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)  # verdict -> trials, under the filters
    malformed: dict[str, str] = field(default_factory=dict)  # task id -> why it is malformed


def filtered_line(filters: Filters, total: int, trials: int, counts: dict[str, int]) -> str:
    """The second header line while filters are on: what they select, by verdict."""
    by = " · ".join(f"{n} {LABELS.get(v, v)}" for v, n in counts.items() if n)
    return f"shown: {total} of {trials} trials ({filters.describe()})" + (f" · {by}" if by else "")
