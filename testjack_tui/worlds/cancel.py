"""Cancellation that reaches running processes.

An executor opens a ``CancelScope`` and makes it current in each of its worker threads; a backend
registers a kill function for every process it starts (``register``). ``cancel()`` kills all of
them, and any registered later is killed at once, so a run that was starting when the user
pressed cancel does not slip through.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

_current = threading.local()


class Cancelled(Exception):
    """The audit was cancelled; everything finished so far is in the store.

    Here, at the ground, because everything that can stop an audit raises it: the executors, the
    engine, an LLM endpoint that keeps failing, a spent budget."""


class CancelScope:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kills: dict[int, Callable[[], None]] = {}
        self._next = 0
        self.cancelled = False

    def register(self, kill: Callable[[], None]) -> int:
        with self._lock:
            if not self.cancelled:
                self._next += 1
                self._kills[self._next] = kill
                return self._next
        kill()
        return 0

    def unregister(self, token: int) -> None:
        with self._lock:
            self._kills.pop(token, None)

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            kills = list(self._kills.values())
            self._kills.clear()
        for kill in kills:
            try:
                kill()
            except Exception:  # a process that already ended
                pass


def current_scope() -> CancelScope | None:
    return getattr(_current, "scope", None)


def set_current_scope(scope: CancelScope | None) -> None:
    _current.scope = scope
