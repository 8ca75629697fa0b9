"""The audit: T0 on every world, evidence, then witnesses by mode (paper 3.2, 3.3, Algorithm 1).

Modes:
- ``per-trial``: every passing trial gets its own audit; its witnesses are shared with the task.
- ``task-analysis``: one author pass per task over P, T0 and the reference (no trial): T1.
- ``lightweight``: task analysis, then rounds that sample one active trial uniformly (a generator
  seeded by the seed, the task and the round), audit it, share its witnesses, and drop refuted and
  audited-clean trials; a task stops when its active set is empty or after ``rounds`` rounds.

Every step is committed to the store when it ends (a ``steps`` row), and every execution is cached
by its content hash, so a killed audit started again redoes no finished step, and the same run,
seed and offline author give the same verdicts.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from testjack_tui.store import Store
from testjack_tui.audit.evaluator import evaluate_task, t0_requests
from testjack_tui.audit.execution import ExecutionService, RunMany, read_world_file
from testjack_tui.audit.fewest import set_aside_twins
from testjack_tui.audit.slowness import record_slow_findings
from testjack_tui.audit.validation import Validator
from testjack_tui.audit.verdicts import AUDITED_STEP, AUTHOR_FAILED_STEP, FEW_TRIALS_STEP, passing_trials, recompute_task
from testjack_tui.domain import build_domain
from testjack_tui.authors.base import Author, AuthorContext, AuthorFailed
from testjack_tui.authors.endpoint import endpoint_options
from testjack_tui.authors.factory import make_author
from testjack_tui.model import AuthorKind, Evidence, EvidenceKind, Mode, Origin, Task, Trial, Verdict, Witness, WitnessStatus
from testjack_tui.worlds.cancel import Cancelled
from testjack_tui.worlds.request import ExecRequest

DEFAULT_ROUNDS = 3  # the paper's budget of audit rounds per task


@dataclass
class AuditOptions:
    mode: str = Mode.LIGHTWEIGHT
    author: str = "offline"
    rounds: int = DEFAULT_ROUNDS
    seed: int = 0
    workers: int = 1
    backend: str | None = None
    refinements: int = 3
    evidence: bool = True
    mutation_budget_s: float = 20.0
    few_trials: str | None = None  # model.FEW_TRIALS_POLICIES; None keeps the run's (default "ruling")
    batch: bool = True  # witnesses on one world share an execution; False runs each alone (benchmarks)
    executor: str = "local"  # "local": threads on this machine; "ray": tasks on a Ray cluster
    ray_address: str | None = None  # with executor "ray": host:port, "auto", or None for a private Ray
    author_options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Progress:
    """What a progress bar or the console shows; ``done`` of ``total`` steps."""

    phase: str
    done: int
    total: int
    message: str = ""


class Audit:
    def __init__(
        self,
        store: Store,
        run_ref: str,
        options: AuditOptions | None = None,
        *,
        author: Author | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        run_many: RunMany | None = None,
        cancel: threading.Event | None = None,
    ):
        self.store = store
        self.run = store.get_run(run_ref)
        self.options = options or AuditOptions()
        self.author = author or make_author(
            self.options.author, seed=self.options.seed, **self.options.author_options
        )
        self.on_progress = on_progress
        self.cancel = cancel or threading.Event()
        self.service = ExecutionService(
            store, self.run, workers=self.options.workers, backend=self.options.backend,
            run_many=run_many, cancel=self.cancel, executor=self.options.executor,
            ray_address=self.options.ray_address,
        )
        self.validator = Validator(store, self.service, self.author, self.options.refinements, self._message,
                                   batch=self.options.batch)
        self._done = 0
        self._total = 0
        self._phase = ""
        self._audit_id: int | None = None
        self.stop_reason = ""

    # ------------------------------------------------------------------ progress

    def _message(self, text: str) -> None:
        self._emit(text)

    def _emit(self, message: str = "") -> None:
        if self.on_progress:
            self.on_progress(Progress(self._phase, self._done, max(self._total, self._done), message))

    def _step(self, message: str = "") -> None:
        self._done += 1
        if self._audit_id is not None:  # kept in the audit's row: a console opened elsewhere shows it
            self.store.audit_progress(self._audit_id, self._done, max(self._total, self._done), self._phase)
        self._emit(message)

    # ------------------------------------------------------------------ the whole audit

    def execute(self) -> str:
        """Run the audit to the end (or until cancelled). Returns "done" or "cancelled"."""
        opts = self.options
        audit_id = self._audit_id = self.store.start_audit(
            self.run.id, str(opts.mode), opts.author, opts.seed, opts.rounds, opts.backend or "",
            endpoint=endpoint_options(opts.author_options.get("model"), opts.author_options.get("base_url")),
        )
        status = "done"
        if opts.few_trials is not None:
            self.store.mark_step(self.run.id, FEW_TRIALS_STEP, opts.few_trials)
        try:
            tasks = self.store.list_tasks(self.run.id)
            self._total = len(tasks) * 2 + sum(
                len(self.store.list_trial_objects(self.run.id, t.id)) for t in tasks
            )
            self._phase = "official tests"
            self._run_t0_of(tasks)
            for task in tasks:
                self._evaluate(task)
            self._phase = "evidence"
            for task in tasks:
                self._gather_evidence(task)
            self._phase = "witnesses"
            for task in tasks:
                self._audit_task(task)
                recompute_task(self.store, task)
        except Cancelled as exc:
            # A cancel, an exhausted LLM budget or a failing endpoint: the step in progress is not
            # marked done, so running the same audit again continues from here.
            status = "cancelled"
            self.stop_reason = str(exc) or "cancelled"
        finally:
            self.service.close()
            verdicts = {k: str(v.verdict) for k, v in self.store.list_verdicts(self.run.id).items()}
            tokens, cost = self.store.llm_totals(self.run.id)
            self.store.finish_audit(audit_id, status, self.service.executed, tokens, cost, verdicts)
        self._phase = status
        self._emit(status)
        return status

    def stop(self) -> None:
        self.service.stop()

    # ------------------------------------------------------------------ T0

    def _run_t0_of(self, tasks: list[Task]) -> None:
        """T0 of every task not evaluated yet, as one stream of runs into the cache, where
        ``_evaluate`` finds them: a slow trial's run then overlaps the other tasks' runs instead of
        leaving the other workers idle until it ends."""
        waiting = [t for t in tasks if not self.store.step_done(self.run.id, f"t0:{t.id}")]
        if len(waiting) < 2:
            return
        ran = 0

        def requests() -> Iterator[ExecRequest]:
            for task in waiting:
                yield from t0_requests(self.service, task, self.store.list_trial_objects(self.run.id, task.id))

        def done(request: ExecRequest, _result: object) -> None:
            nonlocal ran
            ran += 1
            self._emit(f"T0: {ran} runs of {len(waiting)} tasks done ({request.label})")

        self.service.prefetch(requests(), done)

    def _evaluate(self, task: Task) -> None:
        key = f"t0:{task.id}"
        trials = self.store.list_trial_objects(self.run.id, task.id)
        if not self.store.step_done(self.run.id, key):
            self._emit(f"T0 on the worlds of {task.id}")
            ev = evaluate_task(self.store, self.service, task, trials)
            if not ev.environment_failed:  # else: evaluated again by the next audit
                self.store.mark_step(self.run.id, key, {"malformed": ev.malformed})
            recompute_task(self.store, task)
        self._step(f"T0 done for {task.id}")

    # ------------------------------------------------------------------ evidence

    def _gather_evidence(self, task: Task) -> None:
        task = self.store.get_task(self.run.id, task.id)
        trials = passing_trials(self.store.list_trial_objects(self.run.id, task.id))
        for trial in trials:
            key = f"evidence:{trial.id}"
            if self.options.evidence and not self.store.step_done(self.run.id, key):
                items = self._evidence_for(task, trial)
                self.store.replace_evidence(self.run.id, trial.id, items)
                self.store.mark_step(self.run.id, key, len(items))
        recompute_task(self.store, task)
        self._step(f"evidence gathered for {task.id}")

    def _evidence_for(self, task: Task, trial: Trial) -> list[Evidence]:
        try:
            from testjack_tui.audit.gather import gather_evidence
        except ImportError:
            return []
        return gather_evidence(self.service, self.store, task, trial)

    # ------------------------------------------------------------------ witnesses by mode

    def _context(self, task: Task, trial: Trial | None) -> AuthorContext:
        return AuthorContext(
            task=task,
            trial=trial,
            evidence=self.store.list_evidence(self.run.id, trial.id) if trial else [],
            witnesses=self._known_witnesses(task, trial),
            world_request=lambda world, trial=trial, **kw: self.service.world_request(task, world, trial, **kw),
            execute=self.service.run,
            read_file=lambda world, path, trial=trial: read_world_file(task, world, trial, path),
            run_id=self.run.id,
            cancel=self.cancel,
            record_llm_call=self.store.add_llm_call,
            spent=lambda trial=trial: {
                "run": self.store.llm_totals(self.run.id),
                "trial": self.store.llm_totals(self.run.id, trial.id) if trial else (0, 0.0),
            },
        )

    def _known_witnesses(self, task: Task, trial: Trial | None) -> list[Witness]:
        """The validated witnesses an author may build on: the task's, less this step's own.

        A step runs once; only a killed step runs again, and what it validated before the kill
        must not change what its author proposes now (the validator still shares it).
        """
        own = (Origin.AUDIT, trial.id) if trial is not None else (Origin.TASK_ANALYSIS, None)
        return [w for w in self.store.list_witnesses(self.run.id, task.id, status=str(WitnessStatus.VALIDATED))
                if (w.origin, w.found_on) != own]

    def _audit_task(self, task: Task) -> None:
        task = self.store.get_task(self.run.id, task.id)
        mode = Mode(self.options.mode)
        if task.malformed or task.error:
            why = (task.malformed_reason or task.error).split("\n", 1)[0]  # the full list is in the report
            self._step(f"{task.id} skipped: {why}")
            return
        trials = passing_trials(self.store.list_trial_objects(self.run.id, task.id))
        if not trials:
            self._step(f"{task.id}: no passing trial")
            return
        if self.author.kind == AuthorKind.NONE:
            # Nobody writes witnesses: no trial can be called audited, let alone sound.
            self._step(f"{task.id}: no author, T0 and evidence only")
            return
        task = self._domain(task)
        if mode in (Mode.TASK_ANALYSIS, Mode.LIGHTWEIGHT):
            self._task_analysis(task, trials)
        if mode == Mode.PER_TRIAL:
            for trial in trials:
                self._audit_trial(task, trial, trials)
        elif mode == Mode.LIGHTWEIGHT:
            self._lightweight_rounds(task, trials)
        # completeness: every validated witness has its runs on every passing trial (a kill
        # between a witness's validation and its sharing leaves gaps that resume must fill)
        self.validator.complete(task, trials)
        recompute_task(self.store, task)  # places witnesses (grounding, timing) before findings are read
        record_slow_findings(self.store, self.run.id, task, trials)
        if set_aside_twins(self.store, task):  # every witness has now run on every passing trial
            recompute_task(self.store, task)
        self._step(f"witnesses done for {task.id}")

    def _domain(self, task: Task) -> Task:
        """The task's input domain, built once from P, its examples and T0's inputs, and stored."""
        key = f"domain:{task.id}"
        if self.store.step_done(self.run.id, key):
            return task
        read = lambda world, path: read_world_file(task, world, None, path)  # noqa: E731
        try:
            domain = build_domain(task, read)
        except Exception as exc:  # a prompt the reader cannot parse: no constraints, said so
            self._emit(f"{task.id}: input domain not built ({type(exc).__name__}: {exc})")
            domain = []
        self.store.set_task_domain(self.run.id, task.id, domain)
        self.store.mark_step(self.run.id, key, len(domain))
        return self.store.get_task(self.run.id, task.id)

    def _task_analysis(self, task: Task, trials: list[Trial]) -> None:
        key = f"analysis:{task.id}"
        if self.store.step_done(self.run.id, key):
            return
        self._emit(f"task analysis of {task.id}")
        ctx = self._context(task, None)
        try:
            candidates = self.author.analyse_task(ctx)
        except Cancelled:
            raise
        except Exception as exc:  # one task's failure is recorded and skipped, never the audit's end
            # not marked done: the next audit of the run tries the analysis again
            self.store.mark_step(self.run.id, f"{AUTHOR_FAILED_STEP}task:{task.id}", _failure(exc))
            self._emit(f"task analysis of {task.id} failed: {_failure(exc)}")
            return
        witnesses = self.validator.validate(ctx, candidates, Origin.TASK_ANALYSIS, None)
        self.validator.share(task, witnesses, trials)
        recompute_task(self.store, task)
        self.store.mark_step(self.run.id, key, [w.id for w in witnesses])
        self.store.clear_steps(self.run.id, f"{AUTHOR_FAILED_STEP}task:{task.id}")

    def _audit_trial(self, task: Task, trial: Trial, trials: list[Trial]) -> list[str]:
        """The per-trial audit of one trial; returns the ids of witnesses that refute it."""
        key = AUDITED_STEP + trial.id
        if self.store.step_done(self.run.id, key):
            return self.store.get_verdict(self.run.id, trial.id).witnesses
        self._emit(f"auditing {trial.id}")
        self._mutation(task, trial)
        ctx = self._context(task, trial)
        try:
            reqs = self.author.requirements(ctx)
            if reqs:
                self.store.put_requirements(reqs)
            candidates = self.author.audit_trial(ctx)
            have = self.store.list_evidence(self.run.id, trial.id)
            kept = [e for e in have if e.kind not in (EvidenceKind.SLOW, EvidenceKind.HELPER)]  # the author's own, made anew
            if ctx.findings or len(kept) != len(have):
                self.store.replace_evidence(self.run.id, trial.id, kept + ctx.findings)
            witnesses = self.validator.validate(ctx, candidates, Origin.AUDIT, trial.id)
            self.validator.share(task, witnesses, trials)
            self._rejudge(ctx, trial, witnesses)
            if hasattr(self.author, "report"):
                self.store.mark_step(self.run.id, f"report:{trial.id}", self.author.report(ctx))
        except Cancelled:
            raise
        except Exception as exc:
            # the trial stays unaudited with the reason; the next trial is audited as usual
            self.store.mark_step(self.run.id, AUTHOR_FAILED_STEP + trial.id, _failure(exc))
            self._emit(f"the author's audit of {trial.id} failed: {_failure(exc)}")
            recompute_task(self.store, task)
            self._step(f"{trial.id} left unaudited")
            return []
        # The step is marked before the verdicts are derived: "audited" is what makes a trial
        # with no refuting witness sound.
        self.store.mark_step(self.run.id, key)
        self.store.clear_steps(self.run.id, AUTHOR_FAILED_STEP + trial.id)
        refuting = recompute_task(self.store, task)[trial.id].witnesses
        self._step(f"audited {trial.id}")
        return refuting

    def _rejudge(self, ctx: AuthorContext, trial: Trial, witnesses: list) -> None:
        """Paper 3.2: every new witness that fails on the audited trial is judged again against P.

        Only authors that can judge (the LLM author) do this; a rejected witness refutes nothing
        and keeps its reason. Shared witnesses are not re-judged per trial, as in the paper.
        """
        if not hasattr(self.author, "rejudge"):
            return
        for w in witnesses:
            if w.origin != Origin.AUDIT or w.found_on != trial.id or w.status != WitnessStatus.VALIDATED:
                continue
            result = self.store.witness_results(w.id).get(trial.id)
            if result is None or str(result.outcome) == "pass":
                continue
            ok, why = self.author.rejudge(ctx, w, result.log)
            if not ok:
                w.status = WitnessStatus.REJECTED
                w.discard_reason = f"rejected on re-judgment against the prompt: {why}"
                self.store.put_witness(w)

    def _mutation(self, task: Task, trial: Trial) -> None:
        key = f"mutation:{trial.id}"
        if not self.options.evidence or self.options.mutation_budget_s <= 0 or self.store.step_done(self.run.id, key):
            return
        from testjack_tui.audit.gather import mutation_evidence

        self._emit(f"mutation testing of {trial.id}")
        found = mutation_evidence(self.service, task, trial, self.options.mutation_budget_s)
        kept = [e for e in self.store.list_evidence(self.run.id, trial.id) if e.kind != EvidenceKind.MUTANT]
        self.store.replace_evidence(self.run.id, trial.id, kept + found)
        self.store.mark_step(self.run.id, key, len(found))

    def _lightweight_rounds(self, task: Task, trials: list[Trial]) -> None:
        for number in range(self.options.rounds):
            key = f"round:{task.id}:{number}"
            if self.store.step_done(self.run.id, key):
                continue
            verdicts = self.store.list_verdicts(self.run.id)
            active = sorted(
                t.id for t in trials
                if verdicts[t.id].verdict not in (Verdict.REFUTED, Verdict.REWARD_HACK)
                and not self.store.step_done(self.run.id, AUDITED_STEP + t.id)
                and not self.store.step_done(self.run.id, AUTHOR_FAILED_STEP + t.id)
            )
            if not active:
                self.store.mark_step(self.run.id, key, {"trial": None, "active": 0})
                break
            rng = random.Random(f"{self.options.seed}:{task.id}:{number}")
            chosen = rng.choice(active)
            trial = next(t for t in trials if t.id == chosen)
            refuting = self._audit_trial(task, trial, trials)
            self.store.mark_step(self.run.id, key, {"trial": chosen, "active": len(active), "refuting": refuting})


def _failure(exc: Exception) -> str:
    text = str(exc).strip()
    if isinstance(exc, AuthorFailed):
        return text or "the author's session failed"
    return f"{type(exc).__name__}: {text}"[:500]


def run_audit(store: Store, run_ref: str, options: AuditOptions | None = None, **kwargs: Any) -> str:
    return Audit(store, run_ref, options, **kwargs).execute()
