"""Running requests for the audit: world requests, the store's cache, and the executor.

The executor runs requests in parallel and streams results back; this service is the one caller
that writes them into the store, so the cache and the audit's bookkeeping stay single-threaded.
A request whose key is already in the store costs nothing.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable

from testjack_tui.store import Store
from testjack_tui.worlds.patchtext import apply_to_text
from testjack_tui.model import Backend, Run, Task, Trial, WorldKind
from testjack_tui.paths import path_inside
from testjack_tui.worlds.cancel import Cancelled
from testjack_tui.worlds.request import STATUS_ERROR, STATUS_SETUP_FAILED, ExecRequest, ExecResult, Patch
from testjack_tui.worlds.witness_runs import for_witnesses

# request -> result; the default runs through testjack_tui.worlds.executor.Executor
RunMany = Callable[[list[ExecRequest]], Iterable[tuple[ExecRequest, ExecResult]]]


class ExecutionService:
    def __init__(
        self,
        store: Store,
        run: Run,
        *,
        workers: int = 1,
        backend: str | None = None,
        run_many: RunMany | None = None,
        cancel: threading.Event | None = None,
        executor: str = "local",
        ray_address: str | None = None,
    ):
        self.store = store
        self.run_record = run
        self.workers = max(1, workers)
        self.backend_override = backend
        self.cancel = cancel or threading.Event()
        self.executed = 0  # executions this service actually ran (cache misses)
        self.cache_hits = 0
        self._run_many = run_many
        self._executor = None
        self.executor_kind = executor  # "local" (threads here) or "ray" (tasks on a Ray cluster)
        self.ray_address = ray_address
        self._held: dict[str, ExecResult] = {}  # key -> an uncached result of ``prefetch``
        self._prefetched: set[str] = set()  # keys ``prefetch`` ran and cached, not yet asked for

    # -------------------------------------------------------------- requests for worlds

    def backend_for(self, task: Task) -> str:
        if self.backend_override:
            return self.backend_override
        if task.environment.backend:
            return str(task.environment.backend)
        return str(self.run_record.default_backend or Backend.LOCAL)

    def world_request(
        self,
        task: Task,
        world: str | WorldKind,
        trial: Trial | None = None,
        *,
        extra_files: Iterable[tuple[str, str]] = (),
        remove_files: Iterable[str] = (),
        test_ids: Iterable[str] | None = None,
        coverage: bool = False,
        attempt: int = 0,
        extra_patches: Iterable[Patch] = (),
        label: str = "",
    ) -> ExecRequest:
        """R with the world's patches and T0's test patch, running T0's command on ``test_ids``."""
        world = WorldKind(world)
        patches: list[Patch] = []
        if world == WorldKind.REFERENCE:
            patches.append(Patch("reference", task.reference_patch))
        elif world == WorldKind.MODEL:
            if trial is None:
                raise ValueError("the model world needs a trial")
            if trial.patch.strip():
                patches.append(Patch(f"trial:{trial.id}", trial.patch))
        patches.extend(extra_patches)
        if task.test_patch.strip():
            patches.append(Patch("tests", task.test_patch))
        backend = self.backend_for(task)
        # witness files on a task whose command names its own tests: run the witnesses instead
        return for_witnesses(ExecRequest(
            snapshot=task.snapshot,
            snapshot_digest=task.snapshot_digest,
            patches=tuple(patches),
            extra_files=tuple(extra_files),
            remove_files=tuple(remove_files),
            command=task.tests.command,
            test_ids=tuple(task.tests.graded if test_ids is None else test_ids),
            timeout=task.tests.timeout,
            log_parser=task.tests.log_parser,
            backend=backend,
            image=task.environment.image or self.run_record.image,
            requirements=tuple(task.environment.requirements),
            setup=task.environment.setup,
            coverage=coverage,
            attempt=attempt,
            label=label or f"{task.id}:{world}" + (f":{trial.id}" if trial else ""),
        ))

    # -------------------------------------------------------------- running

    def run(self, requests: list[ExecRequest], fresh: bool = False) -> list[ExecResult]:
        """Results in the order of ``requests``; cached ones are not run again.

        ``fresh`` (replays) runs everything anew and leaves the cache as it was.
        """
        if self.cancel.is_set():
            raise Cancelled()
        results: list[ExecResult | None] = [None] * len(requests)
        pending: dict[str, list[int]] = {}
        todo: list[ExecRequest] = []
        used: set[str] = set()
        for i, req in enumerate(requests):
            key = req.key()
            cached = None if fresh else self.store.get_execution(key)
            if cached is not None:
                res = ExecResult.from_dict(cached)
                # a result ``prefetch`` ran for this audit is its own run, not an earlier audit's
                res.cached = key not in self._prefetched
                self._prefetched.discard(key)
                results[i] = res
                self.cache_hits += res.cached
                continue
            if not fresh and key in self._held:  # run by ``prefetch`` and not cached: used once
                results[i] = self._held[key]
                used.add(key)
                continue
            if key not in pending:
                todo.append(req)
            pending.setdefault(key, []).append(i)
        for key in used:
            del self._held[key]
        if todo:
            for req, res in self._stream(todo):
                self._keep(req, res, fresh)
                for i in pending.get(req.key(), []):
                    results[i] = res
                if self.cancel.is_set():
                    break
        if self.cancel.is_set() and any(r is None for r in results):
            raise Cancelled()
        return [r for r in results if r is not None]

    def prefetch(self, requests: Iterable[ExecRequest],
                 on_result: Callable[[ExecRequest, ExecResult], None] | None = None) -> None:
        """Run the requests not yet cached as one stream and keep their results, for ``run`` to find.

        Requests are drawn lazily, so a generator over many tasks is never materialised, and a
        slow run overlaps the others instead of leaving the other workers idle until it ends. A
        result the cache does not keep (a world that could not be set up, an executor failure) is
        held in memory for the first ``run`` that asks for it, so nothing runs twice.
        """
        if self.cancel.is_set():
            raise Cancelled()
        seen: set[str] = set()

        def uncached() -> Iterable[ExecRequest]:
            for req in requests:
                key = req.key()
                if key not in seen and key not in self._held and not self.store.has_execution(key):
                    seen.add(key)
                    yield req

        for req, res in self._stream(uncached()):
            if self._keep(req, res, fresh=False):
                self._prefetched.add(req.key())
            else:
                self._held[req.key()] = res
            if on_result is not None:
                on_result(req, res)
            if self.cancel.is_set():
                raise Cancelled()

    def _keep(self, req: ExecRequest, res: ExecResult, fresh: bool) -> bool:
        """Count a run and cache its result; False when it is not cached: a world that could not be
        set up (no engine, a missing image) or an executor failure says nothing about the world,
        so the next audit runs it again (a replay, ``fresh``, leaves the cache as it was)."""
        self.executed += 1
        if fresh or res.status in (STATUS_SETUP_FAILED, STATUS_ERROR):
            return False
        self.store.put_execution(req.key(), self.run_record.id, req.label, req.to_dict(), res.to_dict())
        return True

    def open(self) -> None:
        """Start the executor now (joins the Ray cluster), so a missing one fails before any work."""
        if self._run_many is None and self._executor is None:
            self._executor = make_executor(self.executor_kind, self.workers, self.ray_address)

    def _stream(self, todo: Iterable[ExecRequest]) -> Iterable[tuple[ExecRequest, ExecResult]]:
        # a trial's code must not read the store's witnesses nor write its verdicts
        hidden = tuple(str(p) for p in self.store.own_paths())
        todo = (replace(r, hidden=hidden) for r in todo)  # the executors draw lazily
        if self._run_many is not None:
            return self._run_many(list(todo))
        if self._executor is None:
            self._executor = make_executor(self.executor_kind, self.workers, self.ray_address)
        return self._executor.run_all(todo)

    def stop(self) -> None:
        self.cancel.set()
        if self._executor is not None and hasattr(self._executor, "cancel"):
            self._executor.cancel()

    def close(self) -> None:
        if self._executor is not None and hasattr(self._executor, "close"):
            self._executor.close()
        self._executor = None


class ExecutorUnavailable(Exception):
    """The executor asked for cannot run here (Ray not installed, no cluster at the address)."""


def make_executor(kind: str, workers: int, ray_address: str | None = None):
    """The executor ``kind`` names: ``local`` (a thread pool on this machine) or ``ray``."""
    if kind == "local":
        from testjack_tui.worlds.executor import Executor

        return Executor(workers=workers)
    if kind == "ray":
        try:
            from testjack_tui.worlds.ray_executor import RayExecutor
        except ImportError as exc:
            raise ExecutorUnavailable(
                f"--executor ray needs Ray ({exc}); install it with: pip install 'testjack[ray]'") from exc
        try:
            return RayExecutor(address=ray_address, workers=workers)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = ray_address or "a private local Ray"
            raise ExecutorUnavailable(f"cannot join the Ray cluster at {where}: {exc}") from exc
    raise ExecutorUnavailable(f"unknown executor {kind!r} (local or ray)")


def read_world_file(task: Task, world: str, trial: Trial | None, path: str) -> str | None:
    """A file of a world without running anything: R, then the world's patch, then T0's tests.

    Used by authors and evidence to look at code. Patches are applied in memory with unidiff.
    A path that leaves the snapshot (absolute, ``..``, a link out) is None, unread: a trial's
    patch may name any path (the LLM author's tools say why they refuse one, see Workspace.read).
    """
    try:
        base = path_inside(Path(task.snapshot), path)
    except ValueError:
        return None
    try:
        text: str | None = base.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = None
    patches: list[str] = []
    if world == WorldKind.REFERENCE:
        patches.append(task.reference_patch)
    elif world == WorldKind.MODEL and trial is not None:
        patches.append(trial.patch)
    patches.append(task.test_patch)
    for patch in patches:
        text = apply_to_text(patch, path, text)
    return text
