"""What a log gets from `testjack audit` (stderr not a terminal): a line per finished step, and inside
one long step (the official tests of every task run as one stream) a line at most every 30 s."""

from __future__ import annotations

import io

from testjack_tui.audit.engine import Progress
from testjack_tui.cli.progress import ProgressLines


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_long_step_says_what_it_does_every_half_minute_and_no_more_often() -> None:
    log, clock = io.StringIO(), _Clock()
    lines = ProgressLines(audit=None, stream=log, every_s=30.0, clock=clock)
    lines.show(Progress("official tests", 0, 10, "T0: 1 runs of 4 tasks done"))
    for second, runs in ((10, 40), (29, 90)):  # the same step, messages inside it
        clock.now = 1000.0 + second
        lines.show(Progress("official tests", 0, 10, f"T0: {runs} runs of 4 tasks done"))
    clock.now = 1031.0
    lines.show(Progress("official tests", 0, 10, "T0: 120 runs of 4 tasks done"))
    clock.now = 1032.0
    lines.show(Progress("official tests", 1, 10, "T0 done for chunk"))  # a finished step: at once
    assert log.getvalue().splitlines() == [
        "[0/10 0:00] official tests: T0: 1 runs of 4 tasks done",
        "[0/10 0:31] official tests: T0: 120 runs of 4 tasks done",
        "[1/10 0:32] official tests: T0 done for chunk",
    ]
