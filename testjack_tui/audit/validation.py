"""Certifying candidate witnesses on the reference, and sharing them with every trial of a task.

Rule 1 of DESIGN.md: a candidate becomes a witness only if it passes on the reference world in
3 of 3 runs. A candidate that fails goes back to its author with the output, up to ``k``
refinements (the paper's budget is 3), and is then discarded with its reason. A witness is run
on the null world once (recorded) and on each passing trial twice; two runs that disagree mark
it flaky, and a flaky witness refutes nothing.

Candidates are first run together (one test run per world for many files, which is what makes
sharing cheap); anything that does not pass in a batch is run on its own, so that one broken
file cannot spoil the others' outcomes and each failure has its own log for the author.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

from store import NotFound, Store
from testjack_tui.audit.collection import not_collected, not_collected_reason
from testjack_tui.audit.execution import ExecutionService
from testjack_tui.authors.base import Author, AuthorContext, Candidate
from testjack_tui.model import (
    Origin,
    Outcome,
    Task,
    Trial,
    Witness,
    WitnessResult,
    WitnessStatus,
    WorldKind,
)
from testjack_tui.evidence import restored_harness_request
from testjack_tui.worlds.placement import witness_file
from testjack_tui.worlds.request import STATUS_OK, ExecResult

REFERENCE_RUNS = 3
TRIAL_RUNS = 2
LOG_LIMIT = 8000
REFINED = "refined into a new candidate"  # the discard reason of a candidate its author refined


def witness_id(run_id: str, task_id: str, code: str) -> str:
    digest = hashlib.sha256(f"{run_id}\0{task_id}\0{code}".encode()).hexdigest()
    return f"w-{digest[:10]}"


def witness_path(task: Task, wid: str, wanted: str = "") -> str:
    if wanted:
        return wanted
    name = f"test_testjack_{wid.replace('-', '_')}.py"
    # where the task's runner collects tests: beside T0's own test files (worlds.placement)
    return witness_file(task.snapshot, task.test_patch, task.reference_patch, task.tests.graded, name)


def outcome_of(result: ExecResult, test_id: str) -> str:
    """One witness file's outcome in one run. A run that could not start is an error."""
    if result.status != STATUS_OK:
        return Outcome.ERROR
    return result.outcomes.get(test_id, Outcome.MISSING)


def _log(result: ExecResult) -> str:
    text = (result.stdout or "") + (("\n" + result.stderr) if result.stderr else "")
    if result.message:
        text = result.message + "\n" + text
    return text[-LOG_LIMIT:]


@dataclass
class Validator:
    store: Store
    service: ExecutionService
    author: Author
    refinements: int = 3
    on_event: Callable[[str], None] | None = None

    def _say(self, text: str) -> None:
        if self.on_event:
            self.on_event(text)

    # ------------------------------------------------------------------ reference

    def validate(
        self, ctx: AuthorContext, candidates: list[Candidate], origin: Origin, found_on: str | None
    ) -> list[Witness]:
        """Certify candidates on the reference; returns the validated witnesses (new or known)."""
        task = ctx.task
        validated: list[Witness] = []
        pending: list[tuple[Candidate, Witness]] = []
        for cand in candidates:
            w = self._witness_for(task, cand, origin, found_on, ctx)
            if w.status == WitnessStatus.VALIDATED:
                validated.append(w)
            elif self._open(w, origin, found_on):
                pending.append((cand, w))
        for attempt in range(self.refinements + 1):
            if not pending:
                break
            passed, failed = self._run_reference(task, [w for _, w in pending])
            next_round: list[tuple[Candidate, Witness]] = []
            for cand, w in pending:
                if w.id in passed:
                    w.status = WitnessStatus.VALIDATED
                    self.store.put_witness(w)
                    validated.append(w)
                    continue
                output = failed[w.id]
                refined = None
                if attempt < self.refinements:
                    refined = self.author.refine(ctx, cand, output)
                if refined is None or refined.code == cand.code:
                    w.status = WitnessStatus.DISCARDED
                    w.discard_reason = (
                        f"fails on the reference world after {w.attempts} attempt(s): " + _last_line(output)
                    )
                    if not_collected(self.store, w):  # nothing ran: the runner never collected it
                        w.status, w.discard_reason = WitnessStatus.NOT_COLLECTED, not_collected_reason(w)
                    self.store.put_witness(w)
                    self._say(f"discarded a candidate for: {w.requirement}")
                    continue
                w.status = WitnessStatus.DISCARDED
                w.discard_reason = REFINED
                self.store.put_witness(w)
                nw = self._witness_for(task, refined, origin, found_on, ctx, attempts=w.attempts + 1)
                if nw.status == WitnessStatus.VALIDATED:
                    validated.append(nw)
                elif self._open(nw, origin, found_on):
                    next_round.append((refined, nw))
            pending = next_round
        validated += self._left_by_a_kill(task, origin, found_on, validated)
        for w in validated:
            self._record_null(task, w)
        return validated

    @staticmethod
    def _open(w: Witness, origin: Origin, found_on: str | None) -> bool:
        """Still to be certified: a candidate, or one this same step refined before it was killed.

        A kill between discarding a refined candidate and writing its successor would lose the
        successor: such a candidate, proposed again by the step that refined it, is refined again
        (its reference runs are cached), which finds or writes the successor.
        """
        if w.status == WitnessStatus.CANDIDATE:
            return True
        return (
            w.status == WitnessStatus.DISCARDED and w.discard_reason == REFINED and origin != Origin.MANUAL
            and w.origin == origin and w.found_on == found_on
        )

    def _left_by_a_kill(
        self, task: Task, origin: Origin, found_on: str | None, validated: list[Witness]
    ) -> list[Witness]:
        """Witnesses an interrupted run of this same step validated and may not have shared.

        An author that sees them in its context (they are validated) does not propose them again;
        they are this step's witnesses all the same, so they are returned with its own and shared
        (and re-judged) before the next trial's audit reads them, half-shared, as refuting.
        Only the audit's steps (task analysis, a trial's audit) run once; manual ones do not.
        """
        if origin == Origin.MANUAL:
            return []
        have = {w.id for w in validated}
        return [
            w for w in self.store.list_witnesses(task.run_id, task.id, status=str(WitnessStatus.VALIDATED))
            if w.origin == origin and w.found_on == found_on and w.id not in have
        ]

    def _witness_for(
        self, task: Task, cand: Candidate, origin: Origin, found_on: str | None, ctx: AuthorContext, attempts: int = 1
    ) -> Witness:
        wid = witness_id(task.run_id, task.id, cand.code)
        try:
            return self.store.get_witness(wid)
        except NotFound:
            pass
        w = Witness(
            id=wid,
            run_id=task.run_id,
            task_id=task.id,
            requirement=cand.requirement,
            requirement_kind=cand.kind,
            origin=origin,
            author=self.author.kind,
            code=cand.code,
            path=witness_path(task, wid, cand.path),
            found_on=found_on,
            attempts=attempts,
        )
        self.store.put_witness(w)
        return w

    def _run_reference(self, task: Task, witnesses: list[Witness]) -> tuple[set[str], dict[str, str]]:
        """Which witnesses pass 3 of 3 on the reference, and the failure output of the others."""
        passed: set[str] = set()
        failed: dict[str, str] = {}
        batch = self._batch(task, WorldKind.REFERENCE, None, witnesses, REFERENCE_RUNS)
        alone: list[Witness] = []
        for w in witnesses:
            runs = [outcome_of(r, w.path) for r in batch]
            if all(o == Outcome.PASS for o in runs):
                passed.add(w.id)
                self._put(w, "reference", runs, batch[0])
            elif len(witnesses) == 1:
                failed[w.id] = _log(next(r for r in batch if outcome_of(r, w.path) != Outcome.PASS))
                self._put(w, "reference", runs, batch[0])
            else:
                alone.append(w)
        for w in alone:
            single = self._batch(task, WorldKind.REFERENCE, None, [w], REFERENCE_RUNS)
            runs = [outcome_of(r, w.path) for r in single]
            self._put(w, "reference", runs, single[0])
            if all(o == Outcome.PASS for o in runs):
                passed.add(w.id)
            else:
                failed[w.id] = _log(next(r for r in single if outcome_of(r, w.path) != Outcome.PASS))
        return passed, failed

    def _record_null(self, task: Task, w: Witness) -> None:
        if "null" in self.store.witness_results(w.id):
            return
        res = self._batch(task, WorldKind.NULL, None, [w], 1)[0]
        self._put(w, "null", [outcome_of(res, w.path)], res)

    # ------------------------------------------------------------------ sharing

    def share(self, task: Task, witnesses: list[Witness], trials: list[Trial]) -> None:
        """Run each witness on every given trial (twice) unless already done; mark flaky ones."""
        for trial in trials:
            todo = []
            for w in witnesses:
                done = self.store.witness_results(w.id).get(trial.id)
                if done is None:
                    todo.append(w)
                else:  # a kill may have come between a result and its flaky mark
                    self._mark_if_flaky(w, trial.id, done.runs)
            if not todo:
                continue
            batch = self._batch(task, WorldKind.MODEL, trial, todo, TRIAL_RUNS)
            for w in todo:
                runs = [outcome_of(r, w.path) for r in batch]
                source = batch
                if len(todo) > 1 and any(o != Outcome.PASS for o in runs):
                    source = self._batch(task, WorldKind.MODEL, trial, [w], TRIAL_RUNS)
                    runs = [outcome_of(r, w.path) for r in source]
                shown = next((r for r in source if outcome_of(r, w.path) != Outcome.PASS), source[0])
                self._put(w, trial.id, runs, shown)
                self._mark_if_flaky(w, trial.id, runs)

    def _mark_if_flaky(self, w: Witness, trial_id: str, runs: list[str]) -> None:
        passes = [o == Outcome.PASS for o in runs]
        if any(passes) and not all(passes) and not w.flaky:
            w.flaky = True
            self.store.put_witness(w)
            self._say(f"witness {w.id} is flaky on {trial_id}: it refutes nothing")

    def complete(self, task: Task, trials: list[Trial]) -> int:
        """Fill every gap in the task's witness runs; returns how many witnesses had one.

        The invariant a verdict rests on: every validated, non-flaky witness has a result on the
        reference, the null world and every passing trial. An audit killed between validating a
        witness and sharing it leaves gaps; this runs what is missing (and nothing else).
        """
        gaps = 0
        for w in self.store.list_witnesses(task.run_id, task.id, status=str(WitnessStatus.VALIDATED)):
            if not w.path:  # a harness witness: T0 with one trial's harness changes dropped, no file to share
                continue
            have = self.store.witness_results(w.id)
            for t in trials:
                if t.id in have:
                    self._mark_if_flaky(w, t.id, have[t.id].runs)
            if w.flaky:
                continue
            missing = [t for t in trials if t.id not in have]
            if "null" not in have or missing:
                gaps += 1
                self._record_null(task, w)
                self.share(task, [w], missing)
        return gaps

    # ------------------------------------------------------------------ helpers

    def _batch(
        self, task: Task, world: WorldKind, trial: Trial | None, witnesses: list[Witness], runs: int
    ) -> list[ExecResult]:
        files = tuple((w.path, w.code) for w in witnesses)
        ids = tuple(w.path for w in witnesses)
        label = f"witness {'+'.join(w.id for w in witnesses)[:60]} on {trial.id if trial else world}"
        requests = [
            self.service.world_request(
                task, world, trial, extra_files=files, test_ids=ids, attempt=i, label=f"{label} #{i + 1}"
            )
            for i in range(runs)
        ]
        if trial is not None:
            # Witnesses run under the official harness: a trial's conftest.py that forces every
            # report to "passed" must not make its witnesses pass too.
            requests = [restored_harness_request(r, trial.patch, task.test_patch) or r for r in requests]
        return self.service.run(requests)

    def _put(self, w: Witness, world: str, runs: list[str], shown: ExecResult) -> None:
        passes = [o == Outcome.PASS for o in runs]
        if all(passes):
            outcome = Outcome.PASS
        elif not any(passes):
            bad = [o for o in runs if o != Outcome.PASS]
            outcome = Outcome.FAIL if Outcome.FAIL in bad else Outcome(bad[0])
        else:
            outcome = Outcome.ERROR  # disagreeing runs: shown as error, the witness is flaky
        self.store.put_witness_result(
            WitnessResult(
                witness_id=w.id, world=world, outcome=outcome, runs=[str(o) for o in runs],
                log=_log(shown), execution_key="",
            )
        )


def _last_line(output: str) -> str:
    lines = [l.strip() for l in output.strip().splitlines() if l.strip()]
    for l in reversed(lines):
        if "Error" in l or "assert" in l or "FAILED" in l:
            return l[:300]
    return (lines[-1] if lines else "no output")[:300]
