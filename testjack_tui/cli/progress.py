"""What ``testjack audit`` shows while it runs when it is not on a terminal, and how it stops.

- ``ProgressLines``: stderr redirected to a file or a pipe (a CI log, ``nohup``) gets no progress
  bar; it gets one line per finished step instead, with the step count, the executions run so far
  and the elapsed time: ``[12/40 3:05] official tests: T0 done for x (executions 31, cached 4)``;
  and, inside a step that runs long (the official tests of every task, run as one stream before
  the first task's step ends), a line with what it is doing at most every ``EVERY_S`` seconds.
- ``StopOnSignals``: SIGINT and SIGTERM both stop the audit the same way: the running test
  processes are killed (every process group the backends started), the steps finished so far are
  already in the store, and the same command continues where it stopped. A second signal stops
  at once (KeyboardInterrupt).
"""

from __future__ import annotations

import signal
import threading
import time
from typing import IO, Any, Callable


EVERY_S = 30.0  # inside one step, a log gets a line at most this often


class ProgressLines:
    def __init__(self, audit: Any, stream: IO[str], every_s: float = EVERY_S,
                 clock: Callable[[], float] = time.monotonic):
        self.audit, self.stream = audit, stream
        self.every_s, self.clock = every_s, clock
        self.started = self.last = clock()
        self.done = -1
        self.phase = ""

    def show(self, p: Any) -> None:
        now = self.clock()
        if p.done == self.done and p.phase == self.phase and now - self.last < self.every_s:
            return  # a message inside a step: the bar shows those, a log gets one line a step
        self.done, self.phase, self.last = p.done, p.phase, now
        elapsed = int(now - self.started)
        service = getattr(self.audit, "service", None)
        counts = ""
        if service is not None:
            counts = f" (executions {service.executed}, cached {service.cache_hits})"
        message = (p.message or "").split("\n", 1)[0]
        if len(message) > 160:
            message = message[:157] + "..."
        total = f"/{p.total}" if p.total else ""
        self.stream.write(f"[{p.done}{total} {elapsed // 60}:{elapsed % 60:02d}] {p.phase}: {message}{counts}\n")
        self.stream.flush()


class StopOnSignals:
    """Within the block, SIGINT and SIGTERM call ``audit.stop()`` (in a thread: it kills processes)."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, audit: Any):
        self.audit = audit
        self.received = ""
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: Any) -> None:
        if self.received:  # the second one: stop now
            raise KeyboardInterrupt
        self.received = signal.Signals(signum).name
        threading.Thread(target=self.audit.stop, name="testjack-stop", daemon=True).start()

    def __enter__(self) -> "StopOnSignals":
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: Any) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
