"""A witness run's second report, over a pipe the runner holds: the JUnit XML is checked against it.

The JUnit XML is a file the test process can write: a trial's exit hook can rewrite it as all-pass
and end the process with status 0 (issue 36), and the exit-code cross-check (``junit.cross_check``)
then sees nothing wrong. So a witness run also loads a small pytest plugin (a module with a random
name, outside the world) that writes to a pipe inherited from the runner: a line when it is loaded
(before any conftest.py or test module of the world is imported), one per test phase as its report
comes in, the number of tests collected, and pytest's own exit status. The runner reads the pipe
while the run goes; a line written to a pipe cannot be taken back, so a hook that runs after the
tests cannot unsay a failure. A requested file counts as passed only when the XML says so, the pipe
saw its tests run and pass (as many as the XML reports), nothing of it failed, and pytest's own
exit status agrees with the process's. Otherwise its outcome is an error: no result, never a pass
(``audit.verdicts.gives_no_result``). A trial may close or flood the pipe: it then gives no result.

What this does not stop: code in the same process that finds the plugin and patches its hooks in
memory before the tests run. A ``sitecustomize.py`` that keeps the plugin from loading leaves the
record empty, which on a witness run is no result (``confirm``'s ``must_start``). Witness runs
with a JUnit report load the plugin, and so do requests that ask for it (``ExecRequest.confirm``: the T0 rerun of a trial a detector flagged);
other T0 runs are left as the benchmark runs them (``wanted``).

The channel is the runner's to choose: on the local backend an inherited pipe's write end (an fd
number), on the docker backend a FIFO on the host that the plugin opens by its path in the
container (``report_fifo``). A channel the plugin cannot open fails the plugin's import, so pytest
stops and the run gives no result.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from .materialise import PRISTINE_OWNER
from .placement import test_ids
from .request import ExecRequest
from .witness_runs import is_witness_run

PLUGIN = '''\
import os

_FD = {channel}


def _say(line):
    try:
        os.write(_FD, (line.replace("\\n", " ") + "\\n").encode("utf-8", "replace"))
    except OSError:
        pass


_say("start")


def pytest_collectreport(report):
    if report.outcome != "passed":
        _say("collect " + report.outcome + " " + report.nodeid)


def pytest_collection_finish(session):
    _say("collected " + str(len(session.items)))


def pytest_runtest_logreport(report):
    _say(report.when + " " + report.outcome + " " + report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    _say("exit " + str(int(exitstatus)))
'''

UNCONFIRMED = "its JUnit report is not confirmed by the run's own record"  # in a result's message


def wanted(request: ExecRequest) -> bool:
    """Whether ``request`` loads the plugin: a witness run or a confirmed T0 run, writing JUnit XML."""
    return (request.confirm or is_witness_run(request)) and "{junit}" in request.command


def defined(request: ExecRequest) -> dict[str, int]:
    """How many tests each witness file of ``request`` defines, for ``confirm``."""
    return {path: len(ids) for path, code in request.extra_files
            if (ids := test_ids(path, code)) != [path]}


def install(out_dir: Path, channel: int | str) -> str:
    """Write the plugin into ``out_dir`` (outside the world); its module name, for ``PYTEST_PLUGINS``
    (``out_dir`` goes on ``PYTHONPATH``). ``channel``: an inherited fd to write to, or the path of
    a FIFO to open for writing."""
    name = "p" + secrets.token_hex(6)  # announces nothing, and no trial can know it in advance
    opened = str(channel) if isinstance(channel, int) else f"os.open({channel!r}, os.O_WRONLY)"
    (out_dir / f"{name}.py").write_text(PLUGIN.format(channel=opened))
    return name


def seal(folder: Path) -> None:
    """As root: hand the plugin's folder and file to an unused uid, read-only, so the test process
    (root without capabilities) can neither rewrite the plugin nor replace it in the folder before
    pytest imports it (a ``sitecustomize.py`` runs first)."""
    if os.geteuid() != 0:
        return
    for path in (*folder.iterdir(), folder):
        os.chown(path, *PRISTINE_OWNER)
        os.chmod(path, 0o555 if path.is_dir() else 0o444)


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _same_file(requested: str, seen: str) -> bool:
    """pytest names files from its rootdir, which may be below the world's root."""
    return requested == seen or requested.endswith("/" + seen) or seen.endswith("/" + requested)


def _same_node(requested: str, seen: str) -> bool:
    file, _, rest = requested.partition("::")
    seen_file, _, seen_rest = seen.partition("::")
    return _same_file(file, seen_file) and (not rest or rest == seen_rest)


def confirm(outcomes: dict[str, str], record: str, exit_code: int | None,
            defined: dict[str, int], *, must_start: bool = False) -> tuple[dict[str, str], str]:
    """``outcomes`` (per requested file or node id, from the XML) with every pass the pipe's
    ``record`` does not bear out turned into an error; and a note ("" when all agree).
    ``defined``: how many tests each witness file defines (``placement.test_ids``); a file passes
    only when at least that many of its tests were seen to pass or skip.

    A record that never started means the plugin did not load. With ``must_start`` (witness runs)
    that confirms nothing: the same witness passed on the reference only with its record, so on a
    trial something kept the plugin out (a ``sitecustomize.py`` that drops ``PYTEST_PLUGINS``) and
    every pass is an error. Without it (a confirmed T0 rerun, whose command may not load plugins
    at all) the record changes nothing. A record with more than one end (pytest's, and one the
    trial's code wrote) confirms nothing either."""
    lines = record.splitlines()
    started = "start" in lines
    if not started and not must_start:
        return outcomes, ""
    passed: set[str] = set()  # node ids whose call phase passed
    done: set[str] = set()  # node ids that passed or skipped
    failed: set[str] = set()  # node ids with a failed phase; files whose collection failed or skipped
    statuses: list[int] = []
    for line in lines:
        parts = line.split(" ", 2)
        if parts[0] == "exit" and len(parts) == 2 and parts[1].lstrip("-").isdigit():
            statuses.append(int(parts[1]))
        elif parts[0] == "collect" and len(parts) == 3:
            failed.add(parts[2])
        elif parts[0] in ("setup", "call", "teardown") and len(parts) == 3:
            phase, outcome, node = parts
            if outcome == "failed":
                failed.add(node)
            elif outcome == "skipped" or (phase == "call" and outcome == "passed"):
                done.add(node)
                if outcome == "passed":
                    passed.add(node)
    # pytest said the session failed, the process says it did not: something ended it on its behalf
    overruled = bool(statuses) and exit_code == 0 and statuses[-1] != 0
    twice = len(statuses) > 1  # pytest ends a session once: another end was written by the trial
    checked, doubted = dict(outcomes), []
    for test_id, outcome in outcomes.items():
        if outcome != "pass":
            continue
        mine = lambda nodes: {n for n in nodes if _same_node(test_id, n)}  # noqa: E731
        short = len(mine(done)) < defined.get(test_id, 0)
        if not started or overruled or twice or not statuses or mine(failed) or not mine(passed) or short:
            checked[test_id] = "error"
            doubted.append(test_id)
    if not doubted:
        return outcomes, ""
    why = ("the run's record is empty: the plugin that keeps it did not load" if not started
           else "the run's record ends before pytest finished" if not statuses
           else "the run's record ends more than once" if twice
           else f"pytest's own exit status was {statuses[-1]}, the process exited 0" if overruled
           else "the run's record shows fewer passing tests than the file defines, or a failure")
    return checked, f"{', '.join(doubted)}: {UNCONFIRMED} ({why}); not counted as a pass"


def confirm_run(request: ExecRequest, outcomes: dict[str, str], record: str,
                exit_code: int | None) -> tuple[dict[str, str], str]:
    """``confirm`` as both backends apply it to a run that loaded the plugin (``wanted``)."""
    return confirm(outcomes, record, exit_code, defined(request), must_start=is_witness_run(request))


def pipe() -> tuple[int, int]:
    """A pipe whose write end the test process inherits (the read end stays with the runner).

    As root, the pipe is handed to an unused uid and made write-only (``0222``): the test process,
    root without capabilities, can write its end but cannot reopen it for reading through
    ``/proc/self/fd`` and swallow lines, nor change the mode back."""
    read, write = os.pipe()
    os.set_inheritable(write, True)
    if os.geteuid() == 0:
        os.fchmod(write, 0o222)
        os.fchown(write, *PRISTINE_OWNER)
    return read, write
