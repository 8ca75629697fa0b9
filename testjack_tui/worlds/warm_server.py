"""The warm process of the local backend: pytest and coverage imported once, one fork per execution.

A cold run starts an interpreter and imports pytest (and coverage) for every execution: about
three quarters of its CPU time on a HumanEval-sized test (docs/worlds.md, "Warm test processes").
This process does that once, then forks a child per execution, and the child enters the sandbox
itself, by the same system calls ``limits.wrap``'s programs make (``unshare``, ``mount``,
``setpriv``, ``prlimit``, ``ip link set lo up``):

    child       setsid, joins the pids cgroup, unshare(mount, net, pid), mounts made private
    └─ pid 1    loopback up, hidden paths covered (exit 126 if it cannot), forks and waits
       └─ sh    (where ``sh -c`` would be, with the pid it would have) forks and waits
          └─ test every capability dropped (bounding, permitted, effective, inheritable, ambient),
                no_new_privs, rlimits (address space, file size, processes); the command's cwd,
                environment, ``sys.path``, ``sys.argv`` and ``sys.orig_argv``; the world's
                ``sitecustomize``/``usercustomize``; then ``python -m <module>`` as the
                interpreter would run it, and the interpreter's own exit

The runner (``warm``) starts it as ``python -c 'import sys; exec(sys.stdin.read())'`` with this
file's text on stdin: it imports nothing of TestJack, so no module, path or name of TestJack is
in the test process. Only the standard library (and ctypes on libc) here.

Protocol over fd 3, a ``SOCK_SEQPACKET`` Unix socket: the first message is the names of the
modules imported here (the runner sends a world that would shadow one to a cold run). Then per
execution: the runner sends one JSON job with the run's stdout, stderr and (witness runs) record
pipe's write ends attached (SCM_RIGHTS); the reply is ``pid N`` once the child has its own
session, and ``exit C`` when it ends (C as ``Popen.returncode``). A child never returns here.
"""

import runpy  # noqa: I001  (the order is the point: see _PYTEST, _COVERAGE)
import sys

import _pytest.config
import pytest  # noqa: F401

for _plugin in _pytest.config.default_plugins:
    try:
        __import__("_pytest." + _plugin)
    except ImportError:
        pass
_PYTEST = frozenset(sys.modules)  # what ``python -m pytest`` has imported before the tests
import coverage  # noqa: E402, F401

_COVERAGE = frozenset(sys.modules)  # and ``python -m coverage run -m pytest``

import ctypes  # noqa: E402  (this process's own tools, taken out of a child's sys.modules)
import fcntl  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import signal  # noqa: E402
import site  # noqa: E402
import socket  # noqa: E402
import struct  # noqa: E402
import tempfile  # noqa: E402
import types  # noqa: E402

_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.sbrk.restype = ctypes.c_void_p
_CLONE_NEWNS, _CLONE_NEWNET, _CLONE_NEWPID = 0x00020000, 0x40000000, 0x20000000
_MS_RDONLY, _MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
_PR_SET_PDEATHSIG, _PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS = 1, 24, 38
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_CAP_V3 = 0x20080522
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_BASE_PATH = sys.path[1:]  # the interpreter's own entries (``-c`` put "" first)


def _check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source, target, fstype, flags, data):
    enc = lambda s: s.encode() if s is not None else None  # noqa: E731
    _check(_LIBC.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"mount {target}")


def _place_fds(fds, record_fd):
    """stdin from /dev/null, stdout and stderr from the runner, the record at the fd number its
    plugin writes to; every other descriptor (the runner's socket) closed."""
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 1000 + i) for i, fd in enumerate(fds)]
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(high[0], 1)
    os.dup2(high[1], 2)
    keep = {0, 1, 2}
    if record_fd is not None:
        os.dup2(high[2], record_fd)
        keep.add(record_fd)
    for fd in sorted(int(n) for n in os.listdir("/proc/self/fd")):
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _loopback_up():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s.fileno(), _SIOCGIFFLAGS, req))[1]
        fcntl.ioctl(s.fileno(), _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))


def _cover(hidden, empty_file):
    """Each hidden path covered in this mount namespace: a directory by an empty read-only tmpfs,
    a file by the empty read-only file."""
    for path, is_dir in hidden:
        try:
            if is_dir:
                _mount("none", path, "tmpfs", _MS_RDONLY, "size=4k,mode=0555")
            else:
                _mount(empty_file, path, None, _MS_BIND, None)
                _mount(None, path, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY, None)
        except OSError:
            os.write(2, f"cannot hide {path} from the test\n".encode())
            os._exit(126)


_KEPT = []  # the buffers /proc/self/cmdline and /proc/self/environ now read
_PR_SET_MM, _PR_SET_MM_MAP = 35, 14


class _MMMap(ctypes.Structure):  # the kernel's ``struct prctl_mm_map``
    _fields_ = [(name, ctypes.c_uint64) for name in (
        "start_code", "end_code", "start_data", "end_data", "start_brk", "brk", "start_stack",
        "arg_start", "arg_end", "env_start", "env_end", "auxv")] + [
        ("auxv_size", ctypes.c_uint32), ("exe_fd", ctypes.c_uint32)]


def _retitle(argv, env):
    """/proc/self/cmdline and /proc/self/environ as a cold run's exec would leave them: the
    process's memory map, unchanged but for where its arguments and environment are (needs
    CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN, so before the capabilities go)."""
    with open("/proc/self/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()  # field 3 onwards
    at = lambda n: int(fields[n - 3])  # noqa: E731  (man 5 proc's 1-based numbers)
    mm = _MMMap(start_code=at(26), end_code=at(27), start_data=at(45), end_data=at(46),
                start_brk=at(47), brk=_LIBC.sbrk(0), start_stack=at(28), exe_fd=0xFFFFFFFF)
    for first, words in (("arg", argv), ("env", [f"{k}={v}" for k, v in env.items()])):
        data = b"".join(w.encode() + b"\0" for w in words)
        buf = ctypes.create_string_buffer(data)
        _KEPT.append(buf)
        setattr(mm, first + "_start", ctypes.addressof(buf))
        setattr(mm, first + "_end", ctypes.addressof(buf) + len(data))
    _check(_LIBC.prctl(_PR_SET_MM, _PR_SET_MM_MAP, ctypes.byref(mm), ctypes.sizeof(mm), 0), "PR_SET_MM_MAP")


def _drop_capabilities():
    """What ``setpriv --bounding-set=-all --inh-caps=-all --no-new-privs`` leaves after its exec:
    uid 0 with no capability at all, and none to be gained by an exec."""
    with open("/proc/sys/kernel/cap_last_cap") as f:
        last = int(f.read())
    for cap in range(last + 1):
        _check(_LIBC.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0), "drop a capability")
    _LIBC.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAP_V3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: twice (64 bits), all 0
    _check(_LIBC.capset(header, data), "capset")
    _check(_LIBC.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def _limit(job):
    for which, value in ((resource.RLIMIT_AS, job["memory"]), (resource.RLIMIT_FSIZE, job["fsize"]),
                         (resource.RLIMIT_NPROC, job["nproc"])):
        resource.setrlimit(which, (value, value))


def _skip_pids(count):
    """The pids a cold run's ``ip`` and ``mount`` take, taken here too: the namespace's last pid
    set to where they leave it, or (no ``ns_last_pid``) a process forked and ended per pid. A fork
    of this process costs milliseconds (docs/worlds.md), and a witness run's cover takes up to 7."""
    try:
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(1 + count))  # this process is pid 1; the next fork gets 2 + count
        return
    except OSError:
        pass
    for _ in range(count):
        burnt = os.fork()
        if not burnt:
            os._exit(0)
        os.waitpid(burnt, 0)


def _become(job):
    """This process as ``python -m <module> <args>`` started in the job's cwd and environment."""
    os.chdir(job["cwd"])
    os.environ.clear()
    os.environ.update(job["env"])
    extra = [p for p in job["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = [*extra, *_BASE_PATH]  # at start-up; ``-m`` puts the cwd first after ``site``
    sys.orig_argv[:] = [sys.executable, *job["argv"][1:]]
    sys.argv[:] = ["-m", *job["argv"][3:]]
    tempfile.tempdir = None  # TMPDIR is the run's
    site.USER_BASE = site.USER_SITE = None  # HOME is the run's
    kept = _COVERAGE if job["argv"][2] == "coverage" else _PYTEST
    for name in [m for m in sys.modules if m not in kept or m in ("sitecustomize", "usercustomize")]:
        del sys.modules[name]  # as a cold run's: this process's own tools are not there
    site.execsitecustomize()
    if site.ENABLE_USER_SITE:
        site.execusercustomize()
    sys.path.insert(0, os.getcwd())
    sys.modules["__main__"] = types.ModuleType("__main__")
    runpy._run_module_as_main(job["argv"][2])  # as ``-m`` does it; its SystemExit ends the process


def _reap(pid, offset):
    """Wait for ``pid``; its exit status, a signal as ``offset`` + its number (sh's 128 + n)."""
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return offset + os.WTERMSIG(status) if offset else -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _pass_on(code):
    """End as ``unshare --fork`` does: with its child's exit status, or killed by its signal."""
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)


def _child(job, fds, ready):
    """The forked child: into its session, cgroup and namespaces; pid 1 of them forks the test."""
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    os.setsid()
    if job["cgroup"]:
        with open(os.path.join(job["cgroup"], "cgroup.procs"), "w") as f:
            f.write("0")
    os.close(ready)  # the runner may now kill this session and its cgroup
    _place_fds(fds, job["record_fd"])
    try:
        _check(_LIBC.unshare(_CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWPID), "unshare")
        _mount(None, "/", None, _MS_REC | _MS_PRIVATE, None)
    except OSError as exc:
        os.write(2, f"{exc}\n".encode())
        os._exit(125)
    first = os.fork()
    if first:
        _pass_on(_reap(first, 0))
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # ``--kill-child``
    try:
        _loopback_up()
    except OSError:
        pass  # as ``ip link set lo up 2>/dev/null``: no loopback, still no network
    _cover(job["hidden"], job["empty_file"])
    _skip_pids(job["spent_pids"])
    for _ in range(2):  # pid 1 and then the shell only wait: the test is neither pid 1 nor its child
        test = os.fork()
        if test:
            os._exit(_reap(test, 128))
    _retitle([sys.executable, *job["argv"][1:]], job["env"])
    _drop_capabilities()
    _limit(job)
    _become(job)


def serve(channel):
    """Answer jobs until the runner closes ``channel``; never returns in a child."""
    # Out of the collector's sight: every run's pytest collects garbage at its end (several full
    # passes), which would walk, and so copy into each child, every page of this heap.
    gc.collect()
    gc.freeze()
    channel.send(json.dumps(sorted({m.split(".")[0] for m in sys.modules})).encode())
    while True:
        message, fds, _, _ = socket.recv_fds(channel, 1 << 20, 3)
        if not message:
            os._exit(0)
        job = json.loads(message)
        wait_ready, ready = os.pipe()
        pid = os.fork()
        if pid == 0:
            channel.close()
            os.close(wait_ready)
            _child(job, fds, ready)
        os.close(ready)
        os.read(wait_ready, 1)  # EOF once the child is in its own session and cgroup
        os.close(wait_ready)
        for fd in fds:
            os.close(fd)
        channel.send(f"pid {pid}".encode())
        channel.send(f"exit {_reap(pid, 0)}".encode())


if __name__ == "__main__":
    serve(socket.socket(fileno=globals()["CHANNEL"]))  # the runner's first line names its fd
