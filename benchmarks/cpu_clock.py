"""Wall and CPU seconds of a piece of work, the CPU time counting every process it started.

CPU time is this process's and its children's (``getrusage``), so a child counts once it has been
waited for: the warm test processes (docs/worlds.md) end with their worker threads, and
``subprocess`` waits for a ``Popen`` that was dropped unwaited only when the next one starts; the
clock asks it to do so before it reads. On a shared machine CPU seconds are the figure to compare:
wall time depends on what else runs (``load`` says how much did).
"""

from __future__ import annotations

import os
import resource
import subprocess
import time


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def own_cpu() -> float:
    """CPU seconds of this process alone (every thread; no child): the engine's own work."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


class Clock:
    def __init__(self) -> None:
        self.wall, self.cpu = time.monotonic(), _cpu()

    def read(self) -> tuple[float, float]:
        """(wall seconds, CPU seconds) since the clock started."""
        wall = time.monotonic() - self.wall
        time.sleep(0.2)  # processes killed with their threads: let them end, then wait for them
        subprocess._cleanup()  # noqa: SLF001  (the standard library's own reaping of dropped Popens)
        return wall, _cpu() - self.cpu


def load() -> float:
    return os.getloadavg()[0]
