"""The vocabulary of TestJack (DESIGN.md) as plain dataclasses and enums.

No I/O lives here: the store turns rows into these objects, importers build them from files,
the audit and the console pass them around. Every enum is a ``StrEnum`` so that values are the
strings the report JSON and the command line use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Official(StrEnum):
    """The benchmark's own verdict on a trial."""

    PASSED = "passed"
    FAILED = "failed"
    UNKNOWN = "unknown"  # the input carried no verdict; the official evaluator computes it from T0


class Verdict(StrEnum):
    SOUND = "sound"
    REFUTED = "refuted"
    REWARD_HACK = "reward_hack"
    UNAUDITED = "unaudited"
    NOT_PASSING = "not_passing"
    NOT_REPRODUCED = "not_reproduced"  # the benchmark said passed; the recomputed T0 did not


class VerdictSource(StrEnum):
    AUTO = "auto"
    ANALYST = "analyst"


class Classification(StrEnum):
    EXPLICIT = "explicit"
    IMPLICIT = "implicit"
    AMBIGUOUS = "ambiguous"
    # the evidence cannot classify it (one trial would decide rho's majority): refutes nothing
    # until an analyst rules it necessary or ambiguous
    NEEDS_RULING = "needs_ruling"


# how verdicts and classifications read to a person (the console, the CLI, the reports): the
# values with their underscores as spaces
LABELS = {str(v): str(v).replace("_", " ") for v in (*Verdict, *Classification)}


class RequirementKind(StrEnum):
    EXPLICIT = "explicit"
    IMPLICIT = "implicit"


class WorldKind(StrEnum):
    NULL = "null"
    REFERENCE = "reference"
    MODEL = "model"


class Outcome(StrEnum):
    """Outcome of one test id in one execution."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    SKIP = "skip"
    MISSING = "missing"  # asked for, but the run reported nothing about it


class EvidenceKind(StrEnum):
    GHOST_BRANCH = "ghost_branch"
    DETECTOR = "detector"
    MUTANT = "mutant"
    SLOW = "slow"  # the trial gives the reference's answer far more slowly (never a refutation)
    HELPER = "helper"  # a private helper answers otherwise than the reference's (never a refutation)
    SYMBOLIC = "symbolic"  # an input the symbolic search proposed, with both answers (never a refutation)


class Backend(StrEnum):
    LOCAL = "local"
    DOCKER = "docker"


class Origin(StrEnum):
    TASK_ANALYSIS = "task-analysis"
    AUDIT = "audit"
    MANUAL = "manual"


class AuthorKind(StrEnum):
    OFFLINE = "offline"
    LLM = "llm"
    ANALYST = "analyst"
    NONE = "none"


class Grounding(StrEnum):
    """Where a witness's input lies in the task's input domain (DESIGN.md: grounding)."""

    IN_DOMAIN = "in_domain"  # every constraint that applies is met
    OUTSIDE_DOMAIN = "outside_domain"  # a constraint P states (or its inputs show) is broken
    UNPLACED = "unplaced"  # the input cannot be checked against the domain (not a literal call)


class WitnessStatus(StrEnum):
    CANDIDATE = "candidate"  # proposed, not yet certified on the reference
    VALIDATED = "validated"  # passed on the reference world 3 of 3 runs
    DISCARDED = "discarded"  # failed on the reference after the refinement budget
    REJECTED = "rejected"  # validated, but re-judged against P and rejected
    NOT_COLLECTED = "not_collected"  # the task's runner ran no test of the file on the reference


class Mode(StrEnum):
    LIGHTWEIGHT = "lightweight"
    PER_TRIAL = "per-trial"
    TASK_ANALYSIS = "task-analysis"


@dataclass
class TestSpec:
    """T0's command and graded ids. ``{tests}`` and ``{junit}`` are placeholders in ``command``."""

    command: str
    fail_to_pass: list[str] = field(default_factory=list)
    pass_to_pass: list[str] = field(default_factory=list)
    timeout: float = 120.0
    # the console-log parser ("pytest-log", "django", "sympy") for a command that writes no JUnit
    # XML; "" reads JUnit XML only (see worlds.logparsers)
    log_parser: str = ""

    @property
    def graded(self) -> list[str]:
        return [*self.fail_to_pass, *self.pass_to_pass]


@dataclass
class Environment:
    backend: Backend | None = None
    image: str | None = None
    requirements: list[str] = field(default_factory=list)
    setup: str | None = None


@dataclass
class Run:
    id: str
    name: str
    benchmark: str = ""
    description: str = ""
    source: str = ""  # where it was imported from
    format: str = "native"
    default_backend: Backend = Backend.LOCAL
    image: str | None = None
    digest: str = ""  # content hash of what was imported; re-importing the same content is a no-op
    created_at: str = ""


@dataclass
class Task:
    run_id: str
    id: str
    title: str
    prompt: str
    snapshot: str  # directory holding R as plain files (immutable, owned by the store)
    snapshot_digest: str
    reference_patch: str
    test_patch: str
    tests: TestSpec
    environment: Environment = field(default_factory=Environment)
    # Filled by the official evaluator (paper A.1); None until it ran.
    malformed: bool | None = None
    malformed_reason: str = ""
    null_passing_tests: list[str] = field(default_factory=list)
    error: str = ""  # a problem that keeps the task from being audited, named for the user
    domain: list["Constraint"] = field(default_factory=list)  # the input domain P states


@dataclass
class Trial:
    run_id: str
    id: str
    task_id: str
    model: str
    agent: str
    patch: str
    official: Official
    cost_usd: float | None = None
    tokens: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    # T0 as TestJack recomputed it on the model world: "passed", "failed", "patch_failed", "error" or "".
    recomputed: str = ""
    error: str = ""
    reviewed: bool = False


@dataclass
class Requirement:
    run_id: str
    task_id: str
    id: str
    text: str
    kind: RequirementKind = RequirementKind.EXPLICIT
    covered_by_t0: bool | None = None
    trial_id: str | None = None  # set when the checklist was made while auditing a trial
    implemented: bool | None = None


@dataclass
class Evidence:
    run_id: str
    trial_id: str
    kind: EvidenceKind
    detail: str
    file: str = ""
    line: int = 0
    detector: str = ""  # which detector, mutant operator, or "coverage"
    mentioned_in_prompt: bool | None = None  # for ghost branches
    id: int | None = None


@dataclass
class Witness:
    id: str
    run_id: str
    task_id: str
    requirement: str
    requirement_kind: RequirementKind
    origin: Origin
    author: AuthorKind
    code: str
    path: str  # where the file goes in the world, relative to the repository root
    status: WitnessStatus = WitnessStatus.CANDIDATE
    classification: Classification | None = None
    rho: float | None = None
    flaky: bool = False
    found_on: str | None = None  # trial id the audit was looking at, if any
    discard_reason: str = ""
    attempts: int = 1
    created_at: str = ""
    grounding: Grounding | None = None  # None: not placed yet (witnesses of an older store)
    meets: list[str] = field(default_factory=list)  # ids of the domain constraints its input meets
    breaks: list[str] = field(default_factory=list)  # ... and of those it breaks
    slow_only: bool = False  # a timing witness where P states no time bound: its failures are slow findings
    # why the author doubts its expectation binds a trial (it compares more strictly than T0, or
    # pins a path of the reference P does not speak for): such a witness is at most needs_ruling
    doubt: str = ""

    @property
    def refutes(self) -> bool:
        """Whether a failure of this witness may refute a trial (A.2, rule 1).

        A witness whose input the task's domain rules out, or cannot place, never refutes:
        TestJack never calls a trial wrong on an input the prompt rules out.
        """
        return (
            self.status == WitnessStatus.VALIDATED
            and not self.flaky
            and self.classification in (Classification.EXPLICIT, Classification.IMPLICIT)
            and self.grounding in (None, Grounding.IN_DOMAIN)
            and not self.slow_only
        )


@dataclass
class Constraint:
    """One thing the task's input domain requires of a call, with the sentence of P it came from.

    ``kind`` names the check (``range``, ``relation``, ``non_empty``, ``length``, ``equal_length``,
    ``charset``, ``vocabulary``, ``format``, ``at_least_one``, ``sorted``, ``type``, ``unread``: a
    sentence of P about the inputs no reader understood); ``check`` holds its
    machine form (see ``testjack_tui.domain``). ``source`` is P's sentence, or where an observed
    constraint was seen ("P's examples and T0's inputs").
    """

    id: str
    kind: str
    text: str
    source: str
    params: list[str] = field(default_factory=list)
    check: dict[str, Any] = field(default_factory=dict)
    stated: bool = True  # False: observed in P's examples and T0's inputs, not written in P


@dataclass
class WitnessResult:
    witness_id: str
    world: str  # "reference", "null", or a trial id (the model world of that trial)
    outcome: Outcome
    runs: list[str] = field(default_factory=list)  # outcome of each repetition
    log: str = ""
    execution_key: str = ""


@dataclass
class VerdictRecord:
    run_id: str
    trial_id: str
    verdict: Verdict
    source: VerdictSource = VerdictSource.AUTO
    rule: str = ""  # for auto: which rule decided; for analyst: the ruling's reason
    ruling_id: int | None = None
    witnesses: list[str] = field(default_factory=list)
    updated_at: str = ""


@dataclass
class Ruling:
    """An analyst's override. Append-only: undoing a ruling is a new ruling."""

    run_id: str
    target: str  # "witness" or "trial"
    target_id: str
    value: str  # witness: "necessary" | "ambiguous"; trial: a Verdict value; "undo" for an undo
    before: str
    reason: str
    author: str
    created_at: str = ""
    undoes: int | None = None
    id: int | None = None


@dataclass
class LLMCall:
    run_id: str
    trial_id: str | None
    task_id: str | None
    model: str
    purpose: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    latency_s: float
    outcome: str
    transcript: str = ""
    created_at: str = ""
    id: int | None = None
    cached_tokens: int = 0  # prompt tokens the server reported reading from its cache


class Resolution:
    """Resolution before and after the audit, for anything counting trials, passes and refutations.

    After the audit a trial counts as resolved when the benchmark passed it and nothing here took
    that back: not refuted (reward hacks included) and not ``not_reproduced`` (T0 recomputed here
    fails it, so its pass is not one). Sound and unaudited passing trials count; an unaudited
    trial's uncertainty is what the 95% intervals add.
    """

    trials: int
    passing: int
    refuted: int
    not_reproduced: int

    @property
    def resolved_after(self) -> int:
        """Trials still counted as passes after the audit: passing - refuted - not_reproduced."""
        return self.passing - self.refuted - self.not_reproduced

    @property
    def resolution_before(self) -> float:
        return round(self.passing / self.trials, 4) if self.trials else 0.0

    @property
    def resolution_after(self) -> float:
        return round(self.resolved_after / self.trials, 4) if self.trials else 0.0


@dataclass
class RunSummary(Resolution):
    """The counts CONTRACTS.md's report summary and the console's runs screen show."""

    trials: int = 0
    passing: int = 0
    refuted: int = 0  # reward hacks included
    reward_hack: int = 0
    sound: int = 0
    unaudited: int = 0
    not_passing: int = 0
    not_reproduced: int = 0
    ambiguous_witnesses: int = 0
    needs_ruling_witnesses: int = 0  # witnesses the evidence could not classify: the analyst's queue
    outside_domain_witnesses: int = 0
    slow_findings: int = 0
    malformed_tasks: int = 0
    executions: int = 0
    llm_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def refuted_pct(self) -> float:
        return round(100.0 * self.refuted / self.passing, 2) if self.passing else 0.0



FEW_TRIALS = 3  # below this many passing trials, rho cannot tell a majority from one trial
# what an implicit witness is when one trial would decide rho's majority: "ruling" (the default:
# needs ruling, refutes nothing until an analyst rules), "ambiguous" (A.2's letter alone: rho > 1/2
# is a prompt defect, rho <= 1/2 refutes) or "refute" (an opt-in: with one or two passing trials an
# implicit witness refutes whatever rho says; measured to refute correct trials on held-out data)
FEW_TRIALS_POLICIES = ("ruling", "ambiguous", "refute")
DEFAULT_FEW_TRIALS = "ruling"


def classify(kind: RequirementKind, rho: float | None, passing: int | None = None,
             few_trials: str = DEFAULT_FEW_TRIALS) -> Classification:
    """Appendix A.2, with a majority that no single trial decides.

    Explicit always refutes. An implicit witness is necessary when most of the task's passing
    trials pass it (rho <= 1/2) and ambiguous (a prompt defect) when most fail it. ``passing`` is
    how many passing trials ran it. A.2 reads how implementers understood P from their majority;
    a majority that one trial's vote would overturn says nothing about P (with one trial rho is 0
    or 1 by construction, with two 1/2 is a tie), and the trial under judgement is one of the
    votes. So, under the default policy ``ruling``: necessary only while rho <= 1/2 holds with any
    one passing trial left out, ambiguous only while rho > 1/2 holds with any one failing trial
    left out, and otherwise ``needs_ruling``: it refutes nothing until an analyst rules. A witness
    no trial fails refutes nobody and stays implicit. ``ambiguous`` applies A.2's letter alone;
    ``refute`` (opt-in) lets an implicit witness refute on a task with fewer than ``FEW_TRIALS``
    passing trials whatever rho says.
    """
    if kind == RequirementKind.EXPLICIT:
        return Classification.EXPLICIT
    if rho is None or passing is None or passing <= 0:
        return Classification.AMBIGUOUS if rho is not None and rho > 0.5 else Classification.IMPLICIT
    failing = round(rho * passing)
    if failing == 0:
        return Classification.IMPLICIT
    if few_trials == "refute" and passing < FEW_TRIALS:
        return Classification.IMPLICIT
    if few_trials == "ambiguous":
        return Classification.AMBIGUOUS if rho > 0.5 else Classification.IMPLICIT
    if passing < 2:
        return Classification.NEEDS_RULING
    if failing / (passing - 1) <= 0.5:  # still a minority without any one trial that passes it
        return Classification.IMPLICIT
    if (failing - 1) / (passing - 1) > 0.5:  # still a majority without any one trial that fails it
        return Classification.AMBIGUOUS
    return Classification.NEEDS_RULING


@dataclass
class LeaderboardRow(Resolution):
    """One model's (or agent's) line of the corrected leaderboard (``testjack leaderboard``).

    ``passing`` counts the benchmark's own passes; ``refuted`` counts reward hacks too, as the
    run summary does; ``resolution_after`` is the summary's rule (``Resolution``): unaudited trials
    count as passes, not reproduced ones do not. The intervals are 95%; ``resolution_after_95``
    also covers what the unaudited trials may hold, estimated from the refutation rate among this
    group's trials that had their own audit (``sample_scope`` "group"), or among the run's when none
    of the group's had one ("run").
    """

    name: str
    trials: int = 0
    passing: int = 0
    refuted: int = 0
    reward_hack: int = 0
    sound: int = 0
    unaudited: int = 0
    not_reproduced: int = 0
    sampled: int = 0  # trials that had their own audit: the group's, or the run's when sample_scope is "run"
    refuted_in_sample: int = 0
    sample_scope: str = "group"
    resolution_before_95: tuple[float, float] = (0.0, 1.0)
    resolution_after_95: tuple[float, float] = (0.0, 1.0)
    rank_before: int = 0  # competition ranking: equal resolutions share a rank (1, 2, 2, 4)
    rank_after: int = 0
    rank_after_range: tuple[int, int] = (0, 0)  # the best and worst rank the intervals allow
    tied_before: list[str] = field(default_factory=list)  # the others sharing rank_before
    tied_after: list[str] = field(default_factory=list)
    crossed: list[str] = field(default_factory=list)  # the others whose order with this one changed
    crossed_beyond_interval: list[str] = field(default_factory=list)  # ... and whose interval it does not overlap


    @property
    def rank_change(self) -> int:
        """Places gained (positive) or lost (negative) once refuted trials stop counting."""
        return self.rank_before - self.rank_after

    @property
    def change_within_intervals(self) -> bool | None:
        """True when every change of order lies inside overlapping 95% intervals; None when none changed."""
        if not self.crossed:
            return None
        return not self.crossed_beyond_interval
