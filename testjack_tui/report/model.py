"""The report of a run as typed records: ``testjack.report/1`` (CONTRACTS.md).

Pydantic gives the JSON form and its JSON Schema from one declaration. The field order of each
class is the key order of the JSON users read, so a field is only ever added (at the end of its
record, or where CONTRACTS.md places it), never renamed or moved.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from testjack_tui.model import (
    AuthorKind,
    Classification,
    EvidenceKind,
    Grounding,
    Official,
    Origin,
    RequirementKind,
    Verdict,
    VerdictSource,
)

SCHEMA = "testjack.report/1"


class Record(BaseModel):
    # serialize_by_alias: the report's "schema" key is a field named schema_id (BaseModel has a
    # schema attribute of its own); every key is always written, so the JSON Schema requires each
    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True, validate_by_alias=True,
                              json_schema_serialization_defaults_required=True)


class RunRef(Record):
    id: str
    name: str
    benchmark: str


class SampledInterval(Record):
    """The 95% interval on resolution_after when some passing trials are unaudited."""

    sampled: int = Field(description="trials that had their own audit")
    refuted_in_sample: int
    unaudited: int
    low: float
    high: float


class Summary(Record):
    trials: int
    passing: int = Field(description="the benchmark's own passes")
    refuted: int = Field(description="every refuted trial, reward hacks included")
    reward_hack: int
    sound: int
    unaudited: int
    not_reproduced: int
    refuted_pct: float = Field(description="refuted, in percent of passing")
    resolution_before: float = Field(description="passing / trials")
    resolution_after: float = Field(
        description="(passing - refuted - not_reproduced) / trials: sound and unaudited passing trials count as "
                    "resolved, a trial whose T0 fails when recomputed here does not")
    ambiguous_witnesses: int
    needs_ruling: int = Field(description="witnesses the evidence could not classify")
    needs_ruling_trials: int = Field(description="passing trials a ruling would decide")
    outside_domain_witnesses: int
    slow_findings: int
    malformed_tasks: int
    executions: int
    llm_tokens: int
    cost_usd: float
    resolution_after_95: SampledInterval | None = Field(
        description="null when every passing trial has a verdict")


class RateSource(Record):
    scope: Literal["group", "run"] = Field(
        description="where the unaudited trials' refutation rate was measured")
    sampled: int
    refuted_in_sample: int


class LeaderboardEntry(Record):
    """One row per model; ``testjack leaderboard --by agent --json`` keys it by ``agent`` instead."""

    model: str
    trials: int
    passing: int
    resolution_before: float
    resolution_before_95: tuple[float, float]
    refuted: int
    reward_hack: int
    sound: int
    unaudited: int
    not_reproduced: int
    resolution_after: float = Field(description="(passing - refuted - not_reproduced) / trials, as the summary's")
    resolution_after_95: tuple[float, float]
    unaudited_rate_from: RateSource
    rank_before: int = Field(description="competition rank (1, 2, 2, 4)")
    rank_after: int
    rank_change: int = Field(description="places gained (negative: lost)")
    rank_after_range: tuple[int, int] = Field(description="the best and worst rank the intervals allow")
    tied_before: list[str]
    tied_after: list[str]
    crossed: list[str] = Field(description="the rows whose order with this one changed")
    crossed_beyond_interval: list[str]
    change_within_intervals: bool | None = Field(description="null when no order changed")
    change: str


class Constraint(Record):
    id: str
    kind: str
    text: str
    source: str = Field(description="the sentence of P it came from")
    params: list[str]
    stated: bool = Field(description="false: observed in P's examples and T0's inputs")
    ruled_wrong: bool


class TaskEntry(Record):
    id: str
    title: str
    malformed: bool
    malformed_reason: str
    null_passing_tests: list[str]
    prompt_defects: list[str] = Field(description="ids of its ambiguous witnesses")
    needs_ruling: list[str] = Field(description="ids of its witnesses awaiting a ruling")
    error: str
    analysis_error: str | None
    domain: list[Constraint]


class EvidenceEntry(Record):
    kind: EvidenceKind
    detail: str
    file: str
    line: int
    detector: str


class TrialEntry(Record):
    id: str
    task: str
    model: str
    agent: str
    official: Official
    recomputed: str = Field(description="T0 recomputed here: passed, failed, patch_failed, error or empty")
    verdict: Verdict
    verdict_source: VerdictSource
    verdict_rule: str
    witnesses: list[str]
    evidence: list[EvidenceEntry]
    audit_report: str
    error: str


class WitnessEntry(Record):
    id: str
    task: str
    requirement: str
    requirement_kind: RequirementKind
    origin: Origin
    author: AuthorKind
    classification: Classification | None
    rho: float | None
    flaky: bool
    doubt: str = Field(description="why its author doubts it binds: at most needs_ruling")
    grounding: Grounding = Field(description="outside_domain and unplaced witnesses never refute")
    meets: list[str] = Field(description="ids of the domain constraints its input meets")
    breaks: list[str] = Field(description="ids of the domain constraints its input breaks")
    path: str
    code: str
    found_on: str | None
    results: dict[str, str] = Field(description="world (reference, null or a trial id) -> outcome")
    replay: str


class Undecided(Record):
    witness: str
    task: str
    requirement: str
    because: str
    would_refute: list[str] = Field(description="passing trials refuted if it is ruled necessary")
    newly_refuted: list[str] = Field(description="those of them nothing else refutes")
    passing_seen: int
    rule: str


class RulingEntry(Record):
    id: int | None
    target: str
    target_id: str
    value: str
    before: str
    reason: str
    author: str
    at: str
    undoes: int | None


class Report(Record):
    """What an audit of one run found, as ``testjack report RUN --format json`` writes it."""

    schema_id: Literal["testjack.report/1"] = Field(SCHEMA, alias="schema")
    run: RunRef
    summary: Summary
    leaderboard: list[LeaderboardEntry]
    tasks: list[TaskEntry]
    trials: list[TrialEntry]
    witnesses: list[WitnessEntry]
    needs_ruling: list[Undecided] = Field(
        description="the analyst's queue, most trials at stake first")
    rulings: list[RulingEntry]


def as_report(report: Report | dict[str, Any]) -> Report:
    """The typed report, from itself or from its JSON form."""
    return report if isinstance(report, Report) else Report.model_validate(report)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of ``testjack.report/1``, for users validating the JSON they read."""
    schema = Report.model_json_schema(mode="serialization")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema, "title": SCHEMA}
