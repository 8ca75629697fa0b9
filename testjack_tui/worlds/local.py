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

A plain ``python -m pytest`` command runs in a child of a warm process that has pytest imported
and enters the same sandbox itself (``warm``, ``warm_server``); ``TESTJACK_WARM=0`` runs every
command the cold way, through ``limits.wrap``'s programs.
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

from . import coverage_run, limits, report_pipe, warm
from .cancel import current_scope
from .command import PYTEST_ENV, render_command
from .logparsers import capture_limit, clip, run_outcomes
from .materialise import PatchFailed, default_cache_dir, materialise_world
from .request import (STATUS_ERROR, STATUS_OK, STATUS_PATCH_FAILED, STATUS_SETUP_FAILED,
                      STATUS_TIMEOUT, ExecRequest, ExecResult)
from .run_status import settle
from .venvs import Environment, EnvironmentFailed, environment_for

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


class _Pipes:
    """The run's pipes, read as they fill: each kept up to ``limit`` bytes, the rest read and
    dropped, so the writer never blocks on a full pipe."""

    def __init__(self, fds: list[int], limit: int) -> None:
        self.kept = {fd: bytearray() for fd in fds}
        self.limit = limit
        self.truncated = False
        self._sel = selectors.DefaultSelector()
        for fd in fds:
            self._sel.register(fd, selectors.EVENT_READ)

    def open(self) -> bool:
        return bool(self._sel.get_map())

    def read(self, timeout: float) -> None:
        """What is ready within ``timeout`` seconds; a pipe at its end is read no more."""
        for key, _ in self._sel.select(timeout=timeout):
            data = os.read(key.fd, _CHUNK)
            if not data:
                self._sel.unregister(key.fd)
                continue
            buf = self.kept[key.fd]
            room = self.limit - len(buf)
            if room > 0:
                buf += data[:room]
            if len(data) > room:
                self.truncated = True

    def close(self) -> None:
        self._sel.close()


class _KillOnCancel:
    """Kills the run's process group when the audit is cancelled, and remembers that it did."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.fired = False
        self.scope = current_scope()
        self.token = self.scope.register(self.kill) if self.scope else 0

    def kill(self) -> None:
        self.fired = True
        _kill_group(self.pid)

    def release(self) -> None:
        if self.scope:
            self.scope.unregister(self.token)


def _spawn(argv: list[str], cwd: Path, env: dict[str, str], record: tuple[int, int] | None) -> subprocess.Popen:
    """The sandboxed process in a session of its own; it alone keeps ``record``'s write end."""
    try:
        return subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True, preexec_fn=_die_with_parent,
                                pass_fds=(record[1],) if record else ())
    except BaseException:
        if record:
            os.close(record[0])
        raise
    finally:
        if record:
            os.close(record[1])  # only the test process writes; the runner sees EOF when it is gone


def _drain_until_exit(proc: subprocess.Popen, pipes: _Pipes, group: Path | None,
                      deadline: float) -> tuple[int | None, bool]:
    """Read the pipes until they close and the process ends, killing it at ``deadline``;
    (exit code, timed out)."""
    timed_out = False
    while pipes.open():
        now = time.monotonic()
        if not timed_out and now >= deadline:
            timed_out = True
            _kill_group(proc.pid)
            limits.kill_cgroup(group)
            deadline = now + _DRAIN_GRACE
        elif timed_out and now >= deadline:
            break  # something escaped and holds the pipe: stop listening
        pipes.read(timeout=max(0.0, deadline - now))
    try:
        return proc.wait(timeout=max(0.1, deadline - time.monotonic())), timed_out
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        return proc.wait(), True


def _start(request: ExecRequest, shell_line: str, cwd: Path, env: dict[str, str],
           record: tuple[int, int] | None, empty_file: Path | None, group: Path | None,
           warm_argv: list[str] | None):
    """The sandboxed process: a warm process's child when ``warm_argv`` is given, else ``limits.wrap``'s argv."""
    hidden = tuple(Path(p) for p in request.hidden)
    env = {**env, "TJ_COMMAND": shell_line}
    if warm_argv is None:
        argv = limits.wrap(limits.probe(), memory_mb=request.memory_mb, pids=request.pids, cgroup=group,
                           hidden=hidden, empty_file=empty_file)
        return _spawn(argv, cwd, env, record)
    job = warm.job(warm_argv, cwd, env, memory_mb=request.memory_mb, pids=request.pids, cgroup=group,
                   hidden=hidden, empty_file=empty_file)
    try:
        return warm.WarmProcess(warm.server(request.attempt, _die_with_parent), job,
                                record[1] if record else None)
    except BaseException:
        if record:
            os.close(record[0])
        raise


def _run_sandboxed(request: ExecRequest, shell_line: str, cwd: Path, env: dict[str, str],
                   deadline: float, record: tuple[int, int] | None = None,
                   empty_file: Path | None = None, warm_argv: list[str] | None = None) -> _Run:
    """``record``: a ``report_pipe.pipe()``; the test process gets its write end, and what it
    says comes back in ``_Run.record``. ``empty_file``: covers ``request.hidden``'s files.
    ``warm_argv``: run in a warm process (``warm.warm_argv``)."""
    group = limits.make_cgroup(limits.probe(), request.pids)
    try:
        proc = _start(request, shell_line, cwd, env, record, empty_file, group, warm_argv)
    except BaseException:
        limits.kill_cgroup(group)
        raise
    cancel = _KillOnCancel(proc.pid)
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    fds = [out_fd, err_fd, record[0]] if record else [out_fd, err_fd]
    pipes = _Pipes(fds, capture_limit(request.max_output, request.log_parser))  # clipped to max_output later
    try:
        code, timed_out = _drain_until_exit(proc, pipes, group, deadline)
    finally:
        pipes.close()
        if record:
            os.close(record[0])
        cancel.release()
        _kill_group(proc.pid)  # anything of the group still alive (no pid namespace)
        limits.kill_cgroup(group)
        proc.stdout.close()
        proc.stderr.close()
    said = _text(bytes(pipes.kept[record[0]])) if record else ""
    return _Run(code, bytes(pipes.kept[out_fd]), bytes(pipes.kept[err_fd]), pipes.truncated, timed_out,
                cancel.fired, said)


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
        """Run ``request`` in a fresh world; once more in another if its warm process was lost."""
        try:
            return self._run_once(request)
        except warm.ServerLost:
            warm.forget(request.attempt)
        try:
            return self._run_once(request)
        except warm.ServerLost as exc:
            warm.forget(request.attempt)
            return ExecResult(status=STATUS_ERROR, message=f"the warm test process was lost twice: {exc}")

    def _run_once(self, request: ExecRequest) -> ExecResult:
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
        except warm.ServerLost:
            raise
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
        ready = self._prepare(request, run_dir)
        if isinstance(ready, ExecResult):
            return ready
        env = _command_env(request, ready, seen)
        deadline = started + request.timeout
        empty = run_dir / "empty"  # what the test process finds at a hidden file's path
        if request.setup:
            run = _run_sandboxed(request, request.setup, seen / "world", env, deadline,
                                 empty_file=empty)
            if run.timed_out or run.cancelled or run.exit_code != 0:
                return _setup_failed(request, run)
        command = _test_command(request, run_dir / "out", seen)
        record = None
        if report_pipe.wanted(request):
            # a second report the trial cannot rewrite once written (report_pipe)
            record = report_pipe.pipe()
            env = _with_report_plugin(env, record, run_dir, seen)
        run = _run_sandboxed(request, command, seen / "world", env, deadline, record, empty,
                             _warm_argv(request, command, run_dir / "world"))
        return _test_result(request, run, run_dir, confirmed=record is not None)

    def _prepare(self, request: ExecRequest, run_dir: Path) -> Environment | ExecResult:
        """The run's directories, its world and its environment (linked as ``env``); or why not."""
        (run_dir / "out").mkdir()
        (run_dir / "home").mkdir()
        (run_dir / "empty").touch(mode=0o444)
        try:
            materialise_world(request, run_dir / "world", cache_dir=self.cache_dir)
        except PatchFailed as exc:
            return ExecResult(status=STATUS_PATCH_FAILED, message=str(exc))
        except ValueError as exc:
            return ExecResult(status=STATUS_ERROR, message=str(exc))
        try:
            environment = environment_for(tuple(request.requirements), self.cache_dir)
        except EnvironmentFailed as exc:
            return ExecResult(status=STATUS_SETUP_FAILED, message=str(exc))
        (run_dir / "env").symlink_to(environment.bin_dir.parent)  # the environment, under the alias
        return environment


def _warm_argv(request: ExecRequest, command: str, world: Path) -> list[str] | None:
    """The command's words when it runs in a warm process (``warm.warm_argv``), else None: cold."""
    argv = warm.warm_argv(request, command)
    if argv is None:
        return None
    try:
        modules = warm.server(request.attempt, _die_with_parent).modules
    except warm.ServerLost:
        return None  # no warm process to be had: as before, a new interpreter
    # a world with a module of a name the warm process has imported: a cold run imports the world's
    return None if warm.shadows(world, modules) else argv


def _command_env(request: ExecRequest, environment: Environment, seen: Path) -> dict[str, str]:
    """The environment variables of setup and command: every path under the alias ``seen``."""
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
    return env


def _setup_failed(request: ExecRequest, run: _Run) -> ExecResult:
    """The result of a setup that timed out, was cancelled or exited non-zero: no test ran."""
    status = STATUS_TIMEOUT if run.timed_out else (STATUS_ERROR if run.cancelled else STATUS_SETUP_FAILED)
    stdout, cut_out = clip(run.stdout, request.max_output)
    stderr, cut_err = clip(run.stderr, request.max_output)
    return ExecResult(status=status, exit_code=run.exit_code, stdout=_text(stdout),
                      stderr=_text(stderr), truncated=run.truncated or cut_out or cut_err,
                      outcomes={t: "missing" for t in request.test_ids},
                      message=f"setup exited {run.exit_code}" if status ==
                      STATUS_SETUP_FAILED else f"setup {status}")


def _test_command(request: ExecRequest, out: Path, seen: Path) -> str:
    """The command's shell line, its JUnit report in ``out``; measured, its support files
    written, when the request asks for coverage."""
    command = render_command(request, str(seen / "out" / "junit.xml"))
    if request.coverage:
        command, support = coverage_run.measured(command, str(seen / "out"))
        for rel, text in support.items():
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            (out / rel).write_text(text)
    return command


def _with_report_plugin(env: dict[str, str], record: tuple[int, int], run_dir: Path,
                        seen: Path) -> dict[str, str]:
    """``env`` loading the report pipe's plugin, sealed where the test process cannot rewrite it."""
    held = run_dir / "plugin"  # not the out directory: the test process writes there
    held.mkdir()
    plugin = report_pipe.install(held, record[1])
    report_pipe.seal(held)
    return {**env, "PYTEST_PLUGINS": plugin, "PYTHONPATH": env["PYTHONPATH"] + os.pathsep + str(seen / "plugin")}


def _test_result(request: ExecRequest, run: _Run, run_dir: Path, confirmed: bool) -> ExecResult:
    """The command's run as the request's result: outcomes, status, notes, clipped output, coverage."""
    out = run_dir / "out"
    outcomes, reported = run_outcomes(out / "junit.xml", request.log_parser, _text(run.stdout),
                                      _text(run.stderr), request.test_ids)
    stdout, cut_out = clip(run.stdout, request.max_output)
    stderr, cut_err = clip(run.stderr, request.max_output)
    if run.cancelled:
        return ExecResult(status=STATUS_ERROR, message="cancelled", exit_code=run.exit_code,
                          outcomes=outcomes)
    killed = f"killed after {request.timeout:g}s (whole process group)" if run.timed_out else ""
    status, outcomes, notes = settle(request, outcomes, reported, run.exit_code, _text(run.stdout),
                                     _text(run.stderr), killed=killed,
                                     record=run.record if confirmed else None)
    coverage = None
    if request.coverage and status == STATUS_OK:
        coverage = coverage_run.read(out, coverage_run.under(str(run_dir / "world"), resolve=True))
    return ExecResult(status=status, outcomes=outcomes, exit_code=run.exit_code,
                      stdout=_text(stdout), stderr=_text(stderr), truncated=run.truncated or cut_out or cut_err,
                      message="; ".join([*notes, *limits.probe().missing]), coverage=coverage)
