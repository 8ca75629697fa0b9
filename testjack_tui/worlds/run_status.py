"""A finished test run's status and outcomes, decided alike by both backends.

A run cut off at its time limit is ``timeout``, its kill named. Any other is ``ok``, its outcomes
cross-checked against its exit code and log (``junit.cross_check``) and, when it loaded the report
pipe's plugin, against the runner's own record (``report_pipe.confirm_run``). A cancelled run is
the backend's to report: it has no status of its own here.
"""

from __future__ import annotations

from . import report_pipe
from .harness_parsers import failures_in_log
from .junit import cross_check
from .request import STATUS_OK, STATUS_TIMEOUT, ExecRequest


def settle(request: ExecRequest, outcomes: dict[str, str], reported: bool, exit_code: int | None,
           stdout: str, stderr: str, *, killed: str, record: str | None) -> tuple[str, dict[str, str], list[str]]:
    """(status, outcomes, notes), the notes latest finding first as the result's message lists them.

    ``killed``: the note of a run killed at its time limit, "" when it ended by itself; ``record``:
    what the report pipe's plugin said, None when the run did not load it."""
    if killed:
        return STATUS_TIMEOUT, outcomes, [killed]
    notes: list[str] = []
    outcomes, note = cross_check(outcomes, reported, exit_code,
                                 failures_in_log(request.log_parser, stdout, stderr))
    notes.insert(0, note)
    if record is not None:
        outcomes, note = report_pipe.confirm_run(request, outcomes, record, exit_code)
        notes.insert(0, note)
    return STATUS_OK, outcomes, [n for n in notes if n]
