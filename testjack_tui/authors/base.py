"""The author interface: what an author sees, and what it hands back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from testjack_tui.model import AuthorKind, Evidence, LLMCall, Requirement, RequirementKind, Task, Trial, Witness
from testjack_tui.worlds.request import ExecRequest, ExecResult


@dataclass
class Candidate:
    """A proposed witness: a test file in the repository's own framework and what it checks."""

    requirement: str  # the clause of P it checks, in words
    kind: RequirementKind  # explicit (P states it) or implicit (inferred)
    code: str  # the whole test file
    path: str = ""  # where it goes in the world; the engine picks one when empty
    note: str = ""  # why the author thinks it matters (shown to the analyst)
    doubt: str = ""  # why the author doubts its expectation binds a trial: at most needs_ruling (Witness.doubt)


@dataclass
class AuthorContext:
    """Everything an author may look at. ``trial`` is None during task analysis."""

    task: Task
    trial: Trial | None
    evidence: list[Evidence] = field(default_factory=list)
    witnesses: list[Witness] = field(default_factory=list)  # validated witnesses of the task so far
    # Build a request for a world ("null", "reference", "model") with extra files and test ids;
    # authors that probe behaviour run their probes through ``execute``, never in-process.
    world_request: Callable[..., ExecRequest] | None = None
    execute: Callable[[list[ExecRequest]], list[ExecResult]] | None = None
    # read a file of a world: read_file(world, path) -> str | None
    read_file: Callable[[str, str], str | None] | None = None
    run_id: str = ""
    cancel: Any = None  # the audit's threading.Event: long author calls give up when it is set
    # LLM authors record every call (tokens, cost, latency, outcome, transcript) through this, and
    # ask ``spent()`` -> (tokens, usd) of the run and of the trial before each call.
    record_llm_call: Callable[[LLMCall], None] | None = None
    spent: Callable[[], dict[str, tuple[int, float]]] | None = None
    budget: dict[str, Any] = field(default_factory=dict)
    # findings an author makes that are not witnesses (``slow`` inputs); the engine stores them
    findings: list[Evidence] = field(default_factory=list)


class Author(Protocol):
    kind: AuthorKind

    def requirements(self, ctx: AuthorContext) -> list[Requirement]:
        """The checklist: P decomposed into atomic clauses (may be empty)."""

    def analyse_task(self, ctx: AuthorContext) -> list[Candidate]:
        """Task analysis (no trial): candidates for requirements T0 leaves unchecked."""

    def audit_trial(self, ctx: AuthorContext) -> list[Candidate]:
        """Per-trial audit: candidates aimed at this trial's suspected gaps."""

    def refine(self, ctx: AuthorContext, candidate: Candidate, output: str) -> Candidate | None:
        """The candidate failed on the reference with ``output``; return a fixed one or None."""


class NoneAuthor:
    """Writes nothing: the audit then only runs T0 and gathers evidence."""

    kind = AuthorKind.NONE

    def requirements(self, ctx: AuthorContext) -> list[Requirement]:
        return []

    def analyse_task(self, ctx: AuthorContext) -> list[Candidate]:
        return []

    def audit_trial(self, ctx: AuthorContext) -> list[Candidate]:
        return []

    def refine(self, ctx: AuthorContext, candidate: Candidate, output: str) -> Candidate | None:
        return None


class AuthorUnavailable(Exception):
    """The author cannot work here (no LLM endpoint, say); the message says what to set."""


class AuthorFailed(Exception):
    """The author's work on one task or trial ended without a usable result.

    Raised by an author whose session broke (malformed tool calls, a reply it cannot read); the
    engine records the reason, leaves that trial ``unaudited`` with it, and goes on with the next.
    Any other exception an author raises is treated the same way, with its type and message.
    """
