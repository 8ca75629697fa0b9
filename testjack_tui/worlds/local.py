"""The local backend: run one ExecRequest in a fresh world directory on this machine.

For runs you trust (the samples, your own benchmark). It isolates each run's *files* (a fresh
world, the snapshot protected, see ``materialise``), its *network* (a network namespace with
loopback only), its *processes* (a pid namespace and process group killed at the timeout, a pids
cgroup) and bounds its memory, file sizes and output. It does not hide the rest of the machine:
the test process is root without capabilities and can read (and, where modes allow, write) files
outside its world. The one exception is the store under audit (``ExecRequest.hidden``): covered
in the run's own mount namespace, so a trial can neither read its witnesses nor write its
verdicts. Hostile trials belong on the docker backend.

Against a trial that dodges its witnesses: the command and its environment see the run through a
neutral alias (no path names TestJack), and a witness run's JUnit report is confirmed by a pipe
the runner holds (``report_pipe``).
"""

from __future__ import annotations

import ctypes
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from . import coverage_run, limits, report_pipe
from .cancel import current_scope
from .command import PYTEST_ENV, render_command
from .junit import cross_check
from .harness_parsers import failures_in_log
from .logparsers import capture_limit, clip, run_outcomes
from .materialise import PatchFailed, default_cache_dir, materialise_world
from .request import (STATUS_ERROR, STATUS_OK, STATUS_PATCH_FAILED, STATUS_SETUP_FAILED,
                      STATUS_TIMEOUT, ExecRequest, ExecResult)
from .venvs import EnvironmentFailed, environment_for

_CHUNK = 65536
_DRAIN_GRACE = 5.0  # after a kill, how long pipes held open by escaped processes are drained


@dataclass
class _Run:
    exit_code: int | None
    stdout: bytes
    stderr: bytes
    truncated: bool
    timed_out: bool
    cancelled: bool
    record: str = ""  # what the report pipe's plugin said (witness runs, ``ExecRequest.confirm``)


_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the thread that started it ends.

    A killed audit (SIGKILL, an OOM, a SIGTERM with no handler) runs no ``finally``; without this
    its test processes, in sessions of their own, would run on past every timeout (an endless
    loop forever). ``unshare --kill-child`` then takes the whole pid namespace with it. Only a
    libc call here: the child of a threaded parent must not take locks before exec.
    """
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _run_sandboxed(request: ExecRequest, shell_line: str, cwd: Path, env: dict[str, str],
                   deadline: float, record: tuple[int, int] | None = None,
                   empty_file: Path | None = None) -> _Run:
    """``record``: a ``report_pipe.pipe()``; the test process gets its write end, and what it
    says comes back in ``_Run.record``. ``empty_file``: covers ``request.hidden``'s files."""
    sandbox = limits.probe()
    group = limits.make_cgroup(sandbox, request.pids)
    argv = limits.wrap(sandbox, memory_mb=request.memory_mb, pids=request.pids, cgroup=group,
                       hidden=tuple(Path(p) for p in request.hidden), empty_file=empty_file)
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env={**env, "TJ_COMMAND": shell_line},
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True, preexec_fn=_die_with_parent,
                                pass_fds=(record[1],) if record else ())
    except BaseException:
        if record:
            os.close(record[0])
        raise
    finally:
        if record:
            os.close(record[1])  # only the test process writes; the runner sees EOF when it is gone
    scope = current_scope()
    cancelled = False

    def kill() -> None:
        nonlocal cancelled
        cancelled = True
        _kill_group(proc.pid)

    token = scope.register(kill) if scope else 0
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    kept = {out_fd: bytearray(), err_fd: bytearray()}
    if record:
        kept[record[0]] = bytearray()
    truncated = timed_out = False
    sel = selectors.DefaultSelector()
    for fd in kept:
        sel.register(fd, selectors.EVENT_READ)
    limit = capture_limit(request.max_output, request.log_parser)  # clipped to max_output later
    try:
        while sel.get_map():
            now = time.monotonic()
            if not timed_out and now >= deadline:
                timed_out = True
                _kill_group(proc.pid)
                limits.kill_cgroup(group)
                deadline = now + _DRAIN_GRACE
            elif timed_out and now >= deadline:
                break  # something escaped and holds the pipe: stop listening
            for key, _ in sel.select(timeout=max(0.0, deadline - now)):
                data = os.read(key.fd, _CHUNK)
                if not data:
                    sel.unregister(key.fd)
                    continue
                buf = kept[key.fd]
                room = limit - len(buf)
                if room > 0:
                    buf += data[:room]
                if len(data) > room:  # keep draining so the writer never blocks; drop the rest
                    truncated = True
        try:
            code = proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid)
            code = proc.wait()
    finally:
        sel.close()
        if record:
            os.close(record[0])
        if scope:
            scope.unregister(token)
        _kill_group(proc.pid)  # anything of the group still alive (no pid namespace)
        limits.kill_cgroup(group)
        proc.stdout.close()
        proc.stderr.close()
    said = _text(bytes(kept[record[0]])) if record else ""
    return _Run(code, bytes(kept[out_fd]), bytes(kept[err_fd]), truncated, timed_out, cancelled, said)


def _host_path() -> list[str]:
    """This machine's PATH, without entries that name TestJack (a checkout's virtualenv): the
    command finds its interpreter through the environment's own entry first."""
    return [p for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
            if p and "testjack" not in p.lower()]


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


class LocalBackend:
    def __init__(self, cache_dir: Path | str | None = None) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()

    def run(self, request: ExecRequest) -> ExecResult:
        started = time.monotonic()
        scope = current_scope()
        if scope and scope.cancelled:
            return ExecResult(status=STATUS_ERROR, message="cancelled before it started")
        worlds = self.cache_dir / "worlds"  # same file system as the pristine trees (hard links)
        worlds.mkdir(parents=True, exist_ok=True)
        run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=worlds))
        # the paths the command and its environment see: a neutral alias of run_dir, so no path in
        # argv or the environment names TestJack (the cache is ``~/.cache/testjack``)
        alias = Path(tempfile.gettempdir()) / f"r{secrets.token_hex(6)}"
        try:
            os.symlink(run_dir, alias)
            result = self._run_in(request, run_dir, started, alias)
        except Exception as exc:  # the executor's own failure, reported on this request only
            result = ExecResult(status=STATUS_ERROR, message=f"{type(exc).__name__}: {exc}")
        finally:
            if alias.is_symlink():
                alias.unlink()
            shutil.rmtree(run_dir, ignore_errors=True)
        result.duration = time.monotonic() - started
        return result

    def _run_in(self, request: ExecRequest, run_dir: Path, started: float, seen: Path) -> ExecResult:
        """``seen``: the alias of ``run_dir`` used in every path the command is given."""
        world, out, home = run_dir / "world", run_dir / "out", run_dir / "home"
        out.mkdir()
        home.mkdir()
        empty = run_dir / "empty"  # what the test process finds at a hidden file's path
        empty.touch(mode=0o444)
        try:
            materialise_world(request, world, cache_dir=self.cache_dir)
        except PatchFailed as exc:
            return ExecResult(status=STATUS_PATCH_FAILED, message=str(exc))
        except ValueError as exc:
            return ExecResult(status=STATUS_ERROR, message=str(exc))
        try:
            environment = environment_for(tuple(request.requirements), self.cache_dir)
        except EnvironmentFailed as exc:
            return ExecResult(status=STATUS_SETUP_FAILED, message=str(exc))
        notes = list(limits.probe().missing)
        (run_dir / "env").symlink_to(environment.bin_dir.parent)  # the environment, under the alias
        env = {
            "PATH": os.pathsep.join([str(seen / "env" / environment.bin_dir.name), *_host_path()]),
            "PYTHONPATH": str(seen / "world"),
            "HOME": str(seen / "home"),
            "TMPDIR": str(seen / "home"),
            "PWD": str(seen / "world"),
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",  # a world is used once: .pyc files are wasted writes
            **PYTEST_ENV,
        }
        if not request.requirements:
            # The base environment is TestJack's own interpreter: its pytest plugins (snapshot
            # testing, asyncio, ...) belong to TestJack, not to the task, and loading them costs
            # seconds per run. A task that needs a plugin names it in its requirements.
            env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        deadline = started + request.timeout
        if request.setup:
            run = _run_sandboxed(request, request.setup, seen / "world", env, deadline,
                                 empty_file=empty)
            if run.timed_out or run.cancelled or run.exit_code != 0:
                status = STATUS_TIMEOUT if run.timed_out else (
                    STATUS_ERROR if run.cancelled else STATUS_SETUP_FAILED)
                stdout, cut_out = clip(run.stdout, request.max_output)
                stderr, cut_err = clip(run.stderr, request.max_output)
                return ExecResult(status=status, exit_code=run.exit_code, stdout=_text(stdout),
                                  stderr=_text(stderr), truncated=run.truncated or cut_out or cut_err,
                                  outcomes={t: "missing" for t in request.test_ids},
                                  message=f"setup exited {run.exit_code}" if status ==
                                  STATUS_SETUP_FAILED else f"setup {status}")
        junit = out / "junit.xml"
        command = render_command(request, str(seen / "out" / "junit.xml"))
        if request.coverage:
            command, support = coverage_run.measured(command, str(seen / "out"))
            for rel, text in support.items():
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                (out / rel).write_text(text)
        record = None
        if report_pipe.wanted(request):
            # a second report the trial cannot rewrite once written (report_pipe)
            record = report_pipe.pipe()
            held = run_dir / "plugin"  # not the out directory: the test process writes there
            held.mkdir()
            plugin = report_pipe.install(held, record[1])
            report_pipe.seal(held)
            env = {**env, "PYTEST_PLUGINS": plugin, "PYTHONPATH": env["PYTHONPATH"] + os.pathsep + str(seen / "plugin")}
        run = _run_sandboxed(request, command, seen / "world", env, deadline, record, empty)
        outcomes, reported = run_outcomes(junit, request.log_parser, _text(run.stdout),
                                          _text(run.stderr), request.test_ids)
        stdout, cut_out = clip(run.stdout, request.max_output)
        stderr, cut_err = clip(run.stderr, request.max_output)
        truncated = run.truncated or cut_out or cut_err
        if run.cancelled:
            return ExecResult(status=STATUS_ERROR, message="cancelled", exit_code=run.exit_code,
                              outcomes=outcomes)
        if run.timed_out:
            status = STATUS_TIMEOUT
            notes.insert(0, f"killed after {request.timeout:g}s (whole process group)")
        else:
            status = STATUS_OK
            outcomes, note = cross_check(outcomes, reported, run.exit_code, failures_in_log(
                request.log_parser, _text(run.stdout), _text(run.stderr)))
            if note:
                notes.insert(0, note)
            if record:
                outcomes, note = report_pipe.confirm_run(request, outcomes, run.record, run.exit_code)
                if note:
                    notes.insert(0, note)
        coverage = None
        if request.coverage and status == STATUS_OK:
            coverage = coverage_run.read(out, coverage_run.under(str(world), resolve=True))
        return ExecResult(status=status, outcomes=outcomes, exit_code=run.exit_code,
                          stdout=_text(stdout), stderr=_text(stderr),
                          truncated=truncated, message="; ".join(notes), coverage=coverage)
