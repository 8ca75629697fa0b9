"""Certifying candidate witnesses on the reference, and sharing them with every trial of a task.

Rule 1 of DESIGN.md: a candidate becomes a witness only if it passes on the reference world in
3 of 3 runs. A candidate that fails goes back to its author with the output, up to ``k``
refinements (the paper's budget is 3), and is then discarded with its reason. A witness is run
on the null world once (recorded) and on each passing trial twice; two runs that disagree mark
it flaky, and a flaky witness refutes nothing.

Witnesses that run on the same world run in one execution: one world, one test process, every
witness file in it, and each file's outcome read from the JUnit XML (or the runner's log) as for a
file of its own. The flake guard counts executions, not files: the 2 runs on a trial and the 3 on
the reference are separate executions of the whole batch. A batch that cannot speak for a file (it
timed out, crashed, its report was overruled by the exit code, or the file came back missing, as
when another file breaks the collection) is rerun file by file, so a witness that kills or hangs its batch takes no other
witness's outcome with it. On the reference, a candidate that does not pass in its batch is also
rerun on its own: its author refines it from that output, which must be its own.

All the batches of one step (a trial's replays on every passing trial, say) go to the executor at
once, so a pool or a cluster runs them side by side.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Callable

from testjack_tui.store import NotFound, Store
from testjack_tui.audit.collection import not_collected, not_collected_reason
from testjack_tui.audit.execution import ExecutionService
from testjack_tui.authors.base import Author, AuthorContext, Candidate
from testjack_tui.pysource.calls import aliases_in_tests
from testjack_tui.authors.offline.comparison import stricter_than_t0
from testjack_tui.pysource.signatures import changed_functions, test_files
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
from testjack_tui.worlds.junit import FORGED_PASSES
from testjack_tui.worlds.placement import witness_file
from testjack_tui.worlds.report_pipe import UNCONFIRMED
from testjack_tui.worlds.request import STATUS_OK, ExecRequest, ExecResult

REFERENCE_RUNS = 3
TRIAL_RUNS = 2
LOG_LIMIT = 8000
REFINED = "refined into a new candidate"  # the discard reason of a candidate its author refined


def witness_id(run_id: str, task_id: str, code: str) -> str:
    digest = hashlib.sha256(f"{run_id}\0{task_id}\0{code}".encode()).hexdigest()
    return f"w-{digest[:10]}"


def witness_name(run_id: str, wid: str) -> str:
    """A witness file's name: a module name that does not announce TestJack (a trial that looks for
    "testjack" in ``sys.argv`` or in its caller's file names finds nothing). It is a digest of the
    run and the witness, neither known to a trial when it was written, so no trial can expect it;
    and the same run names a witness the same way every time (a resumed or repeated audit gives the
    same report, and hits the result cache)."""
    digest = hashlib.sha256(f"witness-file\0{run_id}\0{wid}".encode()).hexdigest()
    return f"test_{digest[:12]}.py"


def witness_path(task: Task, wid: str, wanted: str = "") -> str:
    if wanted:
        return wanted
    name = witness_name(task.run_id, wid)
    # where the task's runner collects tests: beside T0's own test files (worlds.placement)
    return witness_file(task.snapshot, task.test_patch, task.reference_patch, task.tests.graded, name)


def outcome_of(result: ExecResult, test_id: str) -> str:
    """One witness file's outcome in one run. A run that could not start is an error."""
    if result.status != STATUS_OK:
        return Outcome.ERROR
    return result.outcomes.get(test_id, Outcome.MISSING)


def log_of(result: ExecResult, path: str = "") -> str:
    """What a run printed, for one witness: with ``path`` (a batch), the parts of pytest's report
    about that file (its failure and error sections, its summary lines) when they can be told apart."""
    stdout = result.stdout or ""
    if path:
        stdout = _sections_about(stdout, path)
    text = stdout + (("\n" + result.stderr) if result.stderr else "")
    if result.message:
        text = result.message + "\n" + text
    return text[-LOG_LIMIT:]


_SECTION = re.compile(r"^(?:_{3,} .+ _{3,}|={3,} .+ ={3,})$", re.M)


def _sections_about(stdout: str, path: str) -> str:
    """pytest's console report cut to what concerns ``path``; the whole report if nothing does.

    pytest heads each failure with ``____ name ____`` and each part with ``==== NAME ====``;
    a failure's traceback names the file (``tests/test_w.py:12: AssertionError``).
    """
    cuts = [m.start() for m in _SECTION.finditer(stdout)]
    if not cuts:
        return stdout
    pieces = [stdout[a:b] for a, b in zip(cuts, cuts[1:] + [len(stdout)])]
    head = stdout[:cuts[0]]
    mine = [p for p in pieces if path in p and not p.startswith("=")]
    if not mine:
        return stdout
    tail = [line for line in stdout.splitlines() if path in line and line not in "".join(mine)]
    last = stdout.rstrip().splitlines()[-1] if stdout.strip() else ""
    return "".join([head, *mine, *(line + "\n" for line in tail), last, "\n"])


def _batch_spoke(result: ExecResult, path: str) -> bool:
    """The batch's execution tells this file's outcome: it ran to its end, its report was not
    overruled by the exit code or the run's own record (a crash at exit, a rewritten report: every pass
    becomes an error), and the file came
    back passed, failed, skipped or in error (its own module failing to import is an error of its
    own). Missing may be another file's doing: a file that breaks collection interrupts the session
    before the others run, and a process that dies writes no report at all."""
    return (result.status == STATUS_OK and FORGED_PASSES not in (result.message or "")
            and UNCONFIRMED not in (result.message or "")
            and result.outcomes.get(path) in (Outcome.PASS, Outcome.FAIL, Outcome.SKIP, Outcome.ERROR))


def _batches(witnesses: list[Witness]) -> list[list[Witness]]:
    """Witnesses in groups that can share one world: no two files of a group with the same name
    (the same path would overwrite, the same basename clash as pytest modules)."""
    groups: list[list[Witness]] = []
    names: list[set[str]] = []
    for w in witnesses:
        base = w.path.rsplit("/", 1)[-1]
        for group, taken in zip(groups, names):
            if base not in taken:
                group.append(w)
                taken.add(base)
                break
        else:
            groups.append([w])
            names.append({base})
    return groups


@dataclass
class Validator:
    store: Store
    service: ExecutionService
    author: Author
    refinements: int = 3
    on_event: Callable[[str], None] | None = None
    batch: bool = True  # False: every witness file in an execution of its own (to measure batching)

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
        self._record_null(task, validated)
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
        # a harness witness (no path: T0 with one trial's harness changes dropped) is that trial's
        # alone; shared, it would run as a file at "" on every other trial and fail there
        return [
            w for w in self.store.list_witnesses(task.run_id, task.id, status=str(WitnessStatus.VALIDATED))
            if w.origin == origin and w.found_on == found_on and w.id not in have and w.path
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
            doubt=cand.doubt or _stricter_than_t0(task, cand, ctx),
        )
        self.store.put_witness(w)
        return w

    def _run_reference(self, task: Task, witnesses: list[Witness]) -> tuple[set[str], dict[str, str]]:
        """Which witnesses pass 3 of 3 on the reference, and the failure output of the others."""
        passed: set[str] = set()
        failed: dict[str, str] = {}
        runs = self._run_sets(task, [(WorldKind.REFERENCE, None, witnesses)], REFERENCE_RUNS,
                              alone_unless_pass=True)[0]
        for w in witnesses:
            outcomes, shown = runs[w.id]
            self._put(w, "reference", outcomes, shown[0], shown[1])
            if all(o == Outcome.PASS for o in outcomes):
                passed.add(w.id)
            else:
                failed[w.id] = log_of(shown[0], shown[1])
        return passed, failed

    def _record_null(self, task: Task, witnesses: list[Witness]) -> None:
        """One run on the null world (recorded, never judged) for each witness that has none."""
        todo = [w for w in witnesses if "null" not in self.store.witness_results(w.id)]
        if not todo:
            return
        runs = self._run_sets(task, [(WorldKind.NULL, None, todo)], 1)[0]
        for w in todo:
            outcomes, shown = runs[w.id]
            self._put(w, "null", outcomes, shown[0], shown[1])

    # ------------------------------------------------------------------ sharing

    def share(self, task: Task, witnesses: list[Witness], trials: list[Trial]) -> None:
        """Run each witness on every given trial (twice) unless already done; mark flaky ones.

        One batch per trial (all its missing witnesses in one execution, twice), and every
        trial's batches handed to the executor together.
        """
        self._share(task, [(trial, list(witnesses)) for trial in trials])

    def _share(self, task: Task, gaps: list[tuple[Trial, list[Witness]]]) -> None:
        jobs: list[tuple[WorldKind, Trial | None, list[Witness]]] = []
        for trial, witnesses in gaps:
            todo = []
            for w in witnesses:
                done = self.store.witness_results(w.id).get(trial.id)
                if done is None:
                    todo.append(w)
                else:  # a kill may have come between a result and its flaky mark
                    self._mark_if_flaky(w, trial.id, done.runs)
            if todo:
                jobs.append((WorldKind.MODEL, trial, todo))
        if not jobs:
            return
        for (_, trial, todo), runs in zip(jobs, self._run_sets(task, jobs, TRIAL_RUNS)):
            for w in todo:
                outcomes, shown = runs[w.id]
                self._put(w, trial.id, outcomes, shown[0], shown[1])
                self._mark_if_flaky(w, trial.id, outcomes)

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
        with_gaps: list[Witness] = []
        no_null: list[Witness] = []
        missing: dict[str, list[Witness]] = {}  # trial id -> the witnesses it lacks
        for w in self.store.list_witnesses(task.run_id, task.id, status=str(WitnessStatus.VALIDATED)):
            if not w.path:  # a harness witness: T0 with one trial's harness changes dropped, no file to share
                continue
            have = self.store.witness_results(w.id)
            for t in trials:
                if t.id in have:
                    self._mark_if_flaky(w, t.id, have[t.id].runs)
            if w.flaky:
                continue
            lacking = [t for t in trials if t.id not in have]
            if "null" not in have or lacking:
                with_gaps.append(w)
                if "null" not in have:
                    no_null.append(w)
                for t in lacking:
                    missing.setdefault(t.id, []).append(w)
        self._record_null(task, no_null)
        self._share(task, [(t, missing[t.id]) for t in trials if t.id in missing])
        return len(with_gaps)

    # ------------------------------------------------------------------ helpers

    def _requests(
        self, task: Task, world: WorldKind, trial: Trial | None, witnesses: list[Witness], runs: int
    ) -> list[ExecRequest]:
        """``runs`` independent executions of one world with every witness file of ``witnesses`` in it."""
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
        return requests

    def _run_sets(
        self, task: Task, jobs: list[tuple[WorldKind, Trial | None, list[Witness]]], runs: int,
        alone_unless_pass: bool = False,
    ) -> list[dict[str, tuple[list[str], tuple[ExecResult, str]]]]:
        """Per job (a world and its witnesses): witness id -> (its outcome in each of ``runs``
        executions, (the result to show, the file it is shown for, "" when it ran alone)).

        Each job's witnesses run as batches (one execution per run for all files whose names do not
        clash); every job's batches go to the executor at once. A witness its batch cannot speak
        for (see ``_batch_spoke``; with ``alone_unless_pass`` any outcome but a pass) is rerun on
        its own, ``runs`` times, and those runs are its outcomes.
        """
        planned: list[tuple[int, list[Witness], int]] = []  # (job, batch, first request's index)
        requests: list[ExecRequest] = []
        for j, (world, trial, witnesses) in enumerate(jobs):
            for group in (_batches(witnesses) if self.batch else [[w] for w in witnesses]):
                planned.append((j, group, len(requests)))
                requests += self._requests(task, world, trial, group, runs)
        results = self.service.run(requests)
        out: list[dict[str, tuple[list[str], tuple[ExecResult, str]]]] = [{} for _ in jobs]
        alone: list[tuple[int, Witness, int]] = []
        singles: list[ExecRequest] = []
        for j, group, at in planned:
            batch = results[at:at + runs]
            for w in group:
                outcomes = [outcome_of(r, w.path) for r in batch]
                spoke = len(group) == 1 or all(_batch_spoke(r, w.path) for r in batch)
                if spoke and alone_unless_pass and len(group) > 1:
                    spoke = all(o == Outcome.PASS for o in outcomes)
                if spoke:
                    shown = next((r for r in batch if outcome_of(r, w.path) != Outcome.PASS), batch[0])
                    out[j][w.id] = (outcomes, (shown, w.path if len(group) > 1 else ""))
                else:
                    world, trial, _ = jobs[j]
                    alone.append((j, w, len(singles)))
                    singles += self._requests(task, world, trial, [w], runs)
        if singles:
            single_results = self.service.run(singles)
            for j, w, at in alone:
                own = single_results[at:at + runs]
                outcomes = [outcome_of(r, w.path) for r in own]
                shown = next((r for r in own if outcome_of(r, w.path) != Outcome.PASS), own[0])
                out[j][w.id] = (outcomes, (shown, ""))
        return out

    def _put(self, w: Witness, world: str, runs: list[str], shown: ExecResult, path: str = "") -> None:
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
                log=log_of(shown, path), execution_key="",
            )
        )


def _last_line(output: str) -> str:
    lines = [l.strip() for l in output.strip().splitlines() if l.strip()]
    for l in reversed(lines):
        if "Error" in l or "assert" in l or "FAILED" in l:
            return l[:300]
    return (lines[-1] if lines else "no output")[:300]


def _stricter_than_t0(task: Task, cand: Candidate, ctx: AuthorContext) -> str:
    """Why a new witness compares the task's functions' answers more strictly than T0 ("" if it
    does not): such a witness is in doubt (at most needs ruling). Read for every author's witness;
    the offline author renders T0's comparison itself, so this speaks mostly of the LLM author's
    and scripts' witnesses. Read once per new witness (an existing one is returned before it)."""
    read = ctx.read_file
    if read is None:
        return ""
    sources = [text for path in test_files(task.test_patch) if (text := read("null", path))]
    if not sources:
        return ""
    names = {name.rsplit(".", 1)[-1] for name in changed_functions(task.reference_patch, read, "reference")}
    if not names:
        return ""
    aliases = {a for source in sources for n in names for a in aliases_in_tests(source, n)}
    return stricter_than_t0(cand.code, sources, names | aliases)
