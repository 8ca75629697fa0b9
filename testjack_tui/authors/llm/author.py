"""The LLM author: the per-trial audit of the paper's section 3.2 and the task analysis of 3.3.

Steps and the engine calls that drive them:
- ``requirements(ctx)``: the checklist (P in atomic clauses; explicit or implicit; covered by T0;
  implemented by the trial), returned as ``Requirement`` rows for the engine to store;
- ``analyse_task(ctx)``: one session per task over P, T0 and G, no trial: the witnesses of T1;
- ``audit_trial(ctx)``: evidence review and witness search on one trial, closed by an audit report;
  every candidate that fails on the trial's world is re-judged against P first, and a rejected
  one is dropped (its reason kept in the report and in the recorded call);
- ``refine(ctx, candidate, output)``: the engine's generate-validate loop (k refinements);
- ``rejudge(ctx, witness, trial_output)`` and ``report(ctx)``: optional hooks for the engine.

Re-judgments are remembered per (trial, code), so the engine calling ``rejudge`` on a witness the
author already judged costs nothing.

A session that breaks is not an audit that found nothing: when the model makes too many
malformed calls in a row (``max_bad_calls``), when a session passes its deadline
(``session_deadline_s``, whatever it found by then), when an audit or analysis session reaches its turn
limit having proposed nothing, or when a re-judgment ends without a judgment, the step raises
``AuthorFailed`` with the reason, and the engine leaves the trial ``unaudited`` (never ``sound``).
A refinement that breaks returns None (the candidate is discarded with its reason), since the
engine calls ``refine`` from validation. A budget stop (``BudgetExhausted``), an endpoint that
keeps failing (``EndpointFailed``) and a cancel are the engine's ``Cancelled``: the audit stops
resumably, as before.
"""

from __future__ import annotations

import hashlib
import threading
import time
from typing import Any

from testjack_tui.authors.base import AuthorContext, AuthorFailed, Candidate
from testjack_tui.authors.llm import prompts
from testjack_tui.authors.llm.agent import (
    ANALYSIS_TOOLS,
    AUDIT_TOOLS,
    CHECKLIST_TOOLS,
    REFINE_TOOLS,
    REJUDGE_TOOLS,
    Session,
    SessionResult,
)
from testjack_tui.authors.llm.client import ChatClient
from testjack_tui.authors.llm.settings import LLMSettings, load_settings
from testjack_tui.model import AuthorKind, Outcome, Requirement, RequirementKind, Witness


def _digest(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()[:16]


class LLMAuthor:
    kind = AuthorKind.LLM

    def __init__(self, settings: LLMSettings | None = None, *, cancel: threading.Event | None = None, **options: Any):
        """``options`` as in ``settings.load_settings`` (base_url, api_key, model, prices, budget,
        max_tokens, timeout_s, max_retries, backoff_s, stream, max_turns, ...). ``cancel`` abandons
        calls in flight when set; the audit's own cancel event is found through the context."""
        self.settings = settings or load_settings(**options)
        self.client = ChatClient(self.settings, cancel=cancel)
        self._checklists: dict[tuple[str, str | None], str] = {}
        self._judgments: dict[tuple[str, str], tuple[bool, str]] = {}
        self._reports: dict[str, str] = {}
        self._trial_ends: dict[tuple[str, str], float] = {}  # (task, trial) -> monotonic deadline
        self.rejections: dict[str, list[tuple[Candidate, str]]] = {}  # trial id -> (candidate, reason)

    # -------------------------------------------------------------- checklist

    def _until(self, ctx: AuthorContext) -> float | None:
        """The deadline of the trial ``ctx`` is about (None for a task's own sessions): every
        session of one trial (checklist, audit, refinements, re-judgments) ends by it together,
        ``trial_deadline_s`` after the first of them started in this process."""
        if ctx.trial is None:
            return None
        # setdefault: one atomic step, so two workers on one trial agree on its deadline
        return self._trial_ends.setdefault((ctx.task.id, ctx.trial.id),
                                           time.monotonic() + self.client.settings.trial_deadline_s)

    def requirements(self, ctx: AuthorContext) -> list[Requirement]:
        trial_id = ctx.trial.id if ctx.trial else None
        result = Session(
            self.client, ctx, "checklist", prompts.checklist_request(ctx.trial), CHECKLIST_TOOLS
        ).run(self._until(ctx))
        _fail_if_broken("checklist", result)
        if result.checklist is None:
            self._checklists[(ctx.task.id, trial_id)] = "(no checklist: the model did not submit one)"
            return []
        prefix = f"{trial_id}:" if trial_id else "task:"
        reqs = [
            Requirement(
                run_id=ctx.task.run_id,
                task_id=ctx.task.id,
                id=f"{prefix}r{n}",
                text=item.text.strip(),
                kind=RequirementKind(item.kind),
                covered_by_t0=item.covered_by_t0,
                trial_id=trial_id,
                implemented=item.implemented if trial_id else None,
            )
            for n, item in enumerate(result.checklist.items, 1)
        ]
        self._checklists[(ctx.task.id, trial_id)] = "\n".join(
            f"- {r.id} [{r.kind}] {r.text} (T0 covers it: {_yn(r.covered_by_t0)}; "
            f"implemented: {_yn(r.implemented)})"
            for r in reqs
        )
        return reqs

    # -------------------------------------------------------------- task analysis

    def analyse_task(self, ctx: AuthorContext) -> list[Candidate]:
        result = Session(
            self.client, ctx, "task-analysis", prompts.analysis_request(ctx.witnesses), ANALYSIS_TOOLS,
            plain_answer_closes=True,
        ).run()
        _fail_if_broken("task analysis", result, need_output=True)
        return result.candidates

    # -------------------------------------------------------------- per-trial audit

    def audit_trial(self, ctx: AuthorContext) -> list[Candidate]:
        trial = ctx.trial
        assert trial is not None, "audit_trial needs a trial"
        key = (ctx.task.id, trial.id)
        if key not in self._checklists:
            self.requirements(ctx)  # a resumed audit may skip the engine's checklist call
        session = Session(
            self.client, ctx, "audit",
            prompts.audit_request(trial, self._checklists[key], session_evidence(ctx), ctx.witnesses),
            AUDIT_TOOLS, plain_answer_closes=True,
        )
        result = session.run(self._until(ctx))
        _fail_if_broken("audit", result, need_output=True)
        kept: list[Candidate] = []
        rejected: list[tuple[Candidate, str]] = []
        for cand in result.candidates:
            output = self._trial_output(ctx, cand, session.workspace)
            if output is None:  # passes on the trial: nothing to re-judge, the engine shares it
                kept.append(cand)
                continue
            upheld, reason = self.rejudge(ctx, cand, output)
            if upheld:
                kept.append(cand)
            else:
                rejected.append((cand, reason))
        self.rejections[trial.id] = rejected
        report = result.report or f"(the audit session ended without a report: {result.stopped})"
        if rejected:
            report += "\n\nRejected on re-judgment against P:\n" + "\n".join(
                f"- {c.requirement}: {why}" for c, why in rejected
            )
        self._reports[trial.id] = report
        return kept

    def _trial_output(self, ctx: AuthorContext, cand: Candidate, ws) -> str | None:
        """The output of ``cand`` on the trial's world when it fails there, else None."""
        path = cand.path or ws.default_test_path(cand.code)
        request = ctx.world_request("model", extra_files=[(path, cand.code)], test_ids=[path],
                                    label="llm re-judgment run")
        result = ctx.execute([request])[0]
        if result.ran and result.outcomes.get(path) == Outcome.PASS:
            return None
        return (result.message + "\n" if result.message else "") + (result.stdout or "") + (result.stderr or "")

    # -------------------------------------------------------------- refinement

    def refine(self, ctx: AuthorContext, candidate: Candidate, output: str) -> Candidate | None:
        result = Session(
            self.client, ctx, "refine", prompts.refine_request(candidate.requirement, candidate.code, output),
            REFINE_TOOLS, stop_after_witness=True,
        ).run(self._until(ctx))
        if not result.candidates:  # a broken refinement too: validation discards the candidate
            return None
        fixed = result.candidates[0]
        fixed.path = fixed.path or candidate.path
        return fixed

    # -------------------------------------------------------------- re-judgment and report

    def rejudge(self, ctx: AuthorContext, witness: Witness | Candidate, trial_output: str) -> tuple[bool, str]:
        """Judge a witness that fails on ``ctx.trial`` against P: (upheld, reason)."""
        trial = ctx.trial
        assert trial is not None, "re-judgment needs a trial"
        key = (trial.id, _digest(witness.code))
        if key in self._judgments:
            return self._judgments[key]
        kind = str(getattr(witness, "requirement_kind", None) or getattr(witness, "kind", "explicit"))
        result = Session(
            self.client, ctx, "rejudge",
            prompts.rejudge_request(trial, witness.requirement, kind, witness.code, trial_output),
            REJUDGE_TOOLS,
        ).run(self._until(ctx))
        if result.judgment is None:
            # Rejecting the witness here could leave the trial "sound" on no judgment at all.
            raise AuthorFailed(_broken("re-judgment", result) or (
                f"the re-judgment session of a witness for {witness.requirement!r} ended without a judgment "
                f"({result.stopped}, {result.turns} turns)"
            ))
        verdict = (result.judgment.decision == "uphold", result.judgment.reason.strip())
        self._judgments[key] = verdict
        return verdict

    def report(self, ctx: AuthorContext) -> str:
        """The audit report of ``ctx.trial`` (empty when this author has not audited it)."""
        return self._reports.get(ctx.trial.id, "") if ctx.trial else ""


def _broken(step: str, result: SessionResult) -> str:
    """Why a session broke, or "" when it did not."""
    if result.stopped == "deadline":
        knob = "trial_deadline_s" if "(trial_deadline_s)" in result.problem else "session_deadline_s"
        return f"the {step} session {result.problem}; raise {knob} in TESTJACK_LLM_OPTIONS to allow more"
    if result.stopped == "bad calls":
        return (
            f"the {step} session failed: the model made {result.bad_in_a_row} malformed tool calls in a row "
            f"({result.bad_calls} in {result.turns} turns; last: {result.problem[:300]})"
        )
    return ""


def _fail_if_broken(step: str, result: SessionResult, need_output: bool = False) -> None:
    """``AuthorFailed`` for a broken session, and (``need_output``) for one that reached its turn
    limit with nothing to show: no candidate and no report."""
    reason = _broken(step, result)
    if not reason and need_output and result.stopped == "turn limit" and not result.candidates and not result.report:
        reason = f"the {step} session reached its turn limit ({result.turns} turns) without a witness or a report"
    if reason:
        raise AuthorFailed(reason)


def session_evidence(ctx: AuthorContext) -> str:
    if not ctx.evidence:
        return "No evidence was gathered on this trial."
    lines = [f"- [{e.kind}{'/' + e.detector if e.detector else ''}] {e.file}:{e.line} {e.detail}" for e in ctx.evidence]
    return "\n".join(lines[:40]) + ("\n(more: read_evidence)" if len(lines) > 40 else "")


def _yn(value: bool | None) -> str:
    return "unknown" if value is None else ("yes" if value else "no")
