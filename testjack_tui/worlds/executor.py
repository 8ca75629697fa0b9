"""Run many ExecRequests at once and hand results back as they finish.

A pool of ``workers`` threads, each calling ``run`` (by default ``run_request``) on one request;
the processes do the work, the threads only wait on them. Requests are pulled from the iterable
lazily, at most ``2 * workers`` in flight, so a long generator is never materialised. The executor
knows nothing of caching or the store: the caller looks results up and writes them.

``cancel()`` stops yielding, drops queued requests and kills running processes through the
``CancelScope`` each worker thread carries (backends register their processes with it).
"""

from __future__ import annotations

import concurrent.futures as cf
import threading
from collections.abc import Callable, Iterable, Iterator

from .backends import run_request
from .cancel import CancelScope, set_current_scope
from .request import ExecRequest, ExecResult


class Executor:
    def __init__(self, workers: int = 1,
                 run: Callable[[ExecRequest], ExecResult] = run_request) -> None:
        self.workers = max(1, int(workers))
        self._run = run
        self._scope = CancelScope()
        self._pool = cf.ThreadPoolExecutor(max_workers=self.workers,
                                           thread_name_prefix="testjack-world",
                                           initializer=set_current_scope,
                                           initargs=(self._scope,))
        self._lock = threading.Lock()

    @property
    def cancelled(self) -> bool:
        return self._scope.cancelled

    def run_all(self, requests: Iterable[ExecRequest]) -> Iterator[tuple[ExecRequest, ExecResult]]:
        pending: dict[cf.Future, ExecRequest] = {}
        source = iter(requests)
        exhausted = False
        try:
            while True:
                while not exhausted and not self.cancelled and len(pending) < 2 * self.workers:
                    try:
                        request = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                    pending[self._pool.submit(self._run, request)] = request
                if not pending or self.cancelled:
                    return
                done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                for future in done:
                    request = pending.pop(future)
                    if self.cancelled:
                        return
                    try:
                        result = future.result()
                    except Exception as exc:  # a backend bug: report it on that request
                        result = ExecResult(status="error", message=f"{type(exc).__name__}: {exc}")
                    yield request, result
        finally:
            for future in pending:
                future.cancel()

    def cancel(self) -> None:
        """Stop yielding, drop what has not started, kill what runs. Safe from any thread."""
        self._scope.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is not None:
            self.cancel()
        self.close()
