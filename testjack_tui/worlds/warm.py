"""Warm test processes on the local backend: the runner's side of ``warm_server``.

A run goes warm (``warm_argv`` gives its argv) when all of these hold, and cold otherwise:

- ``TESTJACK_WARM`` is not ``0``;
- the request needs no environment of its own (the warm process is TestJack's interpreter, which
  is also what a cold run of such a request executes) and has no ``setup``;
- the whole sandbox is available (root; mount, network and pid namespaces; capabilities
  dropped), so the child can build what ``limits.wrap`` builds;
- the command is one ``python -m pytest ...`` or ``python -m coverage ...`` and nothing else (no
  shell syntax: it splits into words and joins back into the same line);
- the world's top level shadows no module the warm process has already imported (a cold run
  would import the world's own; ``shadows``).

The warm processes belong to the worker thread that uses them and die with it (``PDEATHSIG``).
A thread keeps one per *attempt number* (``ExecRequest.attempt``): a forked child inherits its
parent's string-hash seed, so the repetitions of one request (a witness run on the reference three
times, T0's reference runs) must come from different processes, each seeded at random as a cold
interpreter is, or a set-order flake would pass every repetition alike.

A warm process that cannot be started leaves the run cold. One that dies or stops answering during
a run (``ServerLost``) is killed and replaced; the backend then runs the request again once, in a
fresh world (``LocalBackend.run``).
"""

from __future__ import annotations

import json
import os
import select
import shlex
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

from ..environment import LocalWorlds, read
from . import limits
from .request import ExecRequest

_BOOT = "import sys; exec(sys.stdin.read())"
_START_TIMEOUT = 60.0  # importing pytest and coverage on a loaded machine
_REPLY_TIMEOUT = 30.0  # from a job sent to its child's pid
_SLOTS = 3  # attempt numbers with a process of their own (the engine repeats a request at most 3
# times); higher ones share the last. About 36 MB each: 3 per worker thread
_MODULES = ("pytest", "coverage")  # what ``python -m`` may run warm


class ServerLost(Exception):
    """The warm process died or stopped answering; the run is repeated once with a new one."""


def enabled() -> bool:
    return read(LocalWorlds).warm


def warm_argv(request: ExecRequest, shell_line: str) -> list[str] | None:
    """The command's words when ``request`` may run warm, else None (see the module's list)."""
    if not enabled() or request.requirements or request.setup:
        return None  # a setup may leave things the interpreter reads at start-up (a user site)
    sandbox = limits.probe()
    if not (os.geteuid() == 0 and sandbox.net_isolated and sandbox.mounts_isolated
            and sandbox.drop_caps and "--pid" in sandbox.prefix):
        return None
    try:
        words = shlex.split(shell_line)
    except ValueError:
        return None
    if shlex.join(words) != shell_line.strip() or len(words) < 3:
        return None
    if words[0] not in ("python", "python3") or words[1] != "-m" or words[2] not in _MODULES:
        return None
    return words


def shadows(world: Path, modules: frozenset[str]) -> bool:
    """Whether a top-level entry of ``world`` has the name of a module already imported."""
    try:
        names = os.listdir(world)
    except OSError:
        return True
    return any(name.split(".")[0] in modules for name in names
               if name.endswith((".py", ".so", ".pyc")) or "." not in name)


class _Server:
    """One warm process and the socket to it."""

    def __init__(self, die_with_parent) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        source = Path(__file__).with_name("warm_server.py").read_text()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
               "PYTHONDONTWRITEBYTECODE": "1", "HOME": "/nonexistent"}
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", _BOOT], stdin=subprocess.PIPE,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         env=env, cwd="/", pass_fds=(theirs.fileno(),),
                                         start_new_session=True, preexec_fn=die_with_parent)
        finally:
            theirs_fd = theirs.fileno()
            theirs.close()
        self.channel = ours
        self.busy = False
        try:
            self.proc.stdin.write(f"CHANNEL = {theirs_fd}\n{source}".encode())
            self.proc.stdin.close()
            self.modules = frozenset(json.loads(self.receive(_START_TIMEOUT)))
        except BaseException:
            self.stop()  # it did not start: nothing of it stays behind
            raise

    def receive(self, timeout: float | None) -> str:
        ready, _, _ = select.select([self.channel], [], [], timeout)
        if not ready:
            raise TimeoutError
        try:
            data = self.channel.recv(1 << 20)
        except OSError as exc:
            raise ServerLost(str(exc)) from exc
        if not data:
            raise ServerLost("the warm process ended")
        return data.decode()

    def start(self, job: dict, fds: list[int]) -> int:
        """Send ``job`` with ``fds``; the child's pid."""
        self.busy = True
        try:
            socket.send_fds(self.channel, [json.dumps(job).encode()], fds)
            reply = self.receive(_REPLY_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise ServerLost(f"the warm process did not start the run ({exc})") from exc
        return int(reply.split()[1])

    def stop(self) -> None:
        self.channel.close()
        try:
            self.proc.kill()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass


_local = threading.local()


def server(attempt: int, die_with_parent) -> _Server:
    """This thread's warm process for ``attempt``, started (or replaced) if need be."""
    servers = _local.__dict__.setdefault("servers", {})
    slot = min(attempt, _SLOTS - 1)
    current = servers.get(slot)
    if current is not None and (current.busy or current.proc.poll() is not None):
        current.stop()  # a run it never finished, or it died: a new one
        current = None
    if current is None:
        try:
            current = servers[slot] = _Server(die_with_parent)
        except (OSError, TimeoutError, ValueError, ServerLost) as exc:
            raise ServerLost(f"the warm process did not start ({exc})") from exc
    return current


def forget(attempt: int) -> None:
    """Kill this thread's warm process for ``attempt`` (it was lost); the next run starts another."""
    current = _local.__dict__.get("servers", {}).pop(min(attempt, _SLOTS - 1), None)
    if current is not None:
        current.stop()


class WarmProcess:
    """A run in a warm process's child, as much of ``subprocess.Popen`` as the backend uses."""

    def __init__(self, owner: _Server, job: dict, record_fd: int | None) -> None:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        self.stdout = os.fdopen(out_r, "rb", buffering=0)
        self.stderr = os.fdopen(err_r, "rb", buffering=0)
        self.returncode: int | None = None
        self._owner = owner
        fds = [out_w, err_w] + ([record_fd] if record_fd is not None else [])
        try:
            self.pid = owner.start({**job, "record_fd": record_fd}, fds)
        except BaseException:
            self.stdout.close()
            self.stderr.close()
            raise
        finally:
            for fd in fds:
                os.close(fd)  # the child holds them now; EOF when it and its children are gone

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            try:
                reply = self._owner.receive(timeout)
            except TimeoutError:
                raise subprocess.TimeoutExpired("warm run", timeout) from None
            self.returncode = int(reply.split()[1])
            self._owner.busy = False
        return self.returncode


def job(argv: list[str], cwd: Path, env: dict[str, str], *, memory_mb: int, pids: int,
        cgroup: Path | None, hidden: tuple[Path, ...], empty_file: Path | None) -> dict:
    """What the warm process's child needs to enter the same sandbox as ``limits.wrap``'s argv."""
    covered = [(str(p.absolute()), p.is_dir()) for p in hidden if p.exists() or p.is_symlink()] if empty_file else []
    # the processes ``limits.wrap``'s shell starts before the command: the test's pid is the same
    spent = (1 if shutil.which("ip") else 0) + sum(1 if is_dir else 2 for _, is_dir in covered)
    return {"argv": argv, "spent_pids": spent, "cwd": str(cwd), "env": env, "cgroup": str(cgroup) if cgroup else "",
            "hidden": covered, "empty_file": str(empty_file) if empty_file else "",
            "memory": memory_mb * 1024 * 1024, "fsize": limits.FSIZE_LIMIT, "nproc": pids}

