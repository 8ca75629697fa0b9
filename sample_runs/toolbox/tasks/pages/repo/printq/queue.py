"""Jobs wait in priority order; equal priorities keep their arrival order."""

import heapq
import itertools

from printq.jobs import PrintJob


class JobQueue:
    def __init__(self) -> None:
        self._heap: list[tuple[int, int, PrintJob]] = []
        self._arrival = itertools.count()

    def add(self, job: PrintJob, priority: int = 0) -> None:
        # heapq pops the smallest tuple, so higher priorities are stored negated.
        heapq.heappush(self._heap, (-priority, next(self._arrival), job))

    def next(self) -> PrintJob:
        if not self._heap:
            raise LookupError("the queue is empty")
        return heapq.heappop(self._heap)[2]

    def __len__(self) -> int:
        return len(self._heap)
