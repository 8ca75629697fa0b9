"""What wraps a test process on the local backend: namespaces, privileges, resource limits.

The kernel decides what is possible, so each protection is probed once and the ones that work
are used; ``Sandbox.missing`` says which are not, for ExecResult.message.

As root (this project's machines), the command runs as

    unshare --mount --net --pid --fork --kill-child
                                  own mounts (private), no network (loopback only, brought up), own
                                  pids: when the namespace's first process dies the kernel kills
                                  every process left in it
      sh -c 'join pids cgroup; ip link set lo up; cover hidden paths;
             setpriv --bounding-set=-all ... prlimit --as --fsize --nproc  sh -c "$TJ_COMMAND"'

"Cover hidden paths": the request's ``hidden`` paths (the store under audit: its database and
files) are covered, in the run's own mount namespace only, by an empty read-only file (a file) or
an empty read-only tmpfs (a directory), so the test process can neither read nor write them.

``setpriv --bounding-set=-all`` keeps uid 0 but drops every capability: the process obeys file
modes (it cannot write through a read-only hard link to the pristine snapshot, which belongs to
``PRISTINE_OWNER``), cannot mount, chown or leave the namespaces. We do not switch to ``nobody`` because the
interpreter often lives under /root (pyenv), which another user cannot even traverse. The kernel
never applies RLIMIT_NPROC to uid 0, so the process count is bounded with a ``pids`` cgroup
(pids.max = request.pids) where one can be made; RLIMIT_NPROC is still set and binds when the
backend itself runs as an ordinary user.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

FSIZE_LIMIT = 512 * 1024 * 1024  # largest file a test may write
_PIDS_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))


@dataclass
class Sandbox:
    prefix: list[str]  # argv before ``sh -c INNER``
    drop_caps: bool
    net_isolated: bool
    pids_root: Path | None
    mounts_isolated: bool = False  # a mount namespace of its own: ``hidden`` paths can be covered
    missing: list[str] = field(default_factory=list)


def _works(argv: list[str]) -> bool:
    try:
        return subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _pids_root() -> Path | None:
    """A cgroup directory (v1 ``pids`` hierarchy or v2 with pids enabled) we may make children in."""
    for root in _PIDS_ROOTS:
        probe = root / f"testjack-probe-{uuid.uuid4().hex[:8]}"
        try:
            probe.mkdir()
        except OSError:
            continue
        try:
            if (probe / "pids.max").exists():
                return root
        finally:
            probe.rmdir()
    return None


@functools.lru_cache(maxsize=1)
def probe() -> Sandbox:
    missing: list[str] = []
    prefix: list[str] = []
    net = False
    mounts = False
    if shutil.which("unshare"):
        plain = ["unshare", "--net", "--pid", "--fork", "--kill-child"]
        candidates = [["unshare", "--mount", *plain[1:]], plain]
        if os.geteuid() != 0:  # an ordinary user may still own a user namespace
            candidates += [["unshare", "--user", "--map-root-user", "--mount", *plain[1:]],
                           ["unshare", "--user", "--map-root-user", *plain[1:]]]
        for argv in candidates:
            # a namespace of mounts counts only when a bind mount works in it
            check = ["mount", "--bind", "/dev/null", "/dev/null"] if "--mount" in argv else ["true"]
            if _works([*argv, *check]):
                prefix, net, mounts = argv, True, "--mount" in argv
                break
    if not net:
        missing.append("no network namespace (unshare failed): tests can reach the network")
    if not mounts:
        missing.append("no mount namespace: tests can read and write the store under audit")
    drop_caps = os.geteuid() == 0 and bool(shutil.which("setpriv")) and _works(
        ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "true"])
    pids_root = _pids_root() if os.geteuid() == 0 else None
    if os.geteuid() == 0 and pids_root is None:
        missing.append("no pids cgroup: the number of processes is bounded only by the timeout")
    return Sandbox(prefix, drop_caps, net, pids_root, mounts_isolated=mounts, missing=missing)


def make_cgroup(sandbox: Sandbox, pids: int) -> Path | None:
    if sandbox.pids_root is None:
        return None
    group = sandbox.pids_root / f"testjack-{uuid.uuid4().hex}"
    try:
        group.mkdir()
        (group / "pids.max").write_text(str(max(pids, 8)))
    except OSError:
        return None
    return group


def kill_cgroup(group: Path | None) -> None:
    """Kill whatever is still in ``group`` and remove it (best effort, bounded)."""
    if group is None:
        return
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        try:
            pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
        except OSError:
            return
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        time.sleep(0.01)  # killed processes leave the group asynchronously
    try:
        group.rmdir()
    except OSError:
        pass


def _cover(path: Path, empty_file: Path) -> str:
    """The shell step that covers ``path`` in the run's mount namespace; exits 126 if it cannot."""
    where = shlex.quote(str(path))
    if path.is_dir():
        cover = f"mount -t tmpfs -o ro,size=4k,mode=0555 none {where}"
    else:
        cover = f"mount --bind {shlex.quote(str(empty_file))} {where} && mount -o remount,bind,ro {where}"
    return f"{{ {cover}; }} || {{ echo 'cannot hide {path} from the test' >&2; exit 126; }}"


def wrap(sandbox: Sandbox, *, memory_mb: int, pids: int, cgroup: Path | None,
         hidden: tuple[Path, ...] = (), empty_file: Path | None = None) -> list[str]:
    """argv that runs the shell line in environment variable ``TJ_COMMAND`` inside the sandbox.

    ``hidden``: paths covered in the run's mount namespace (those that exist), when it has one;
    ``empty_file``: an empty read-only file that covers the files among them."""
    steps = []
    if cgroup is not None:
        steps.append(f"echo 0 > {shlex.quote(str(cgroup / 'cgroup.procs'))}")
    if sandbox.net_isolated and shutil.which("ip"):
        steps.append("ip link set lo up 2>/dev/null")
    if sandbox.mounts_isolated and empty_file is not None:
        steps += [_cover(p, empty_file) for p in hidden if p.exists() or p.is_symlink()]
    inner = []
    if sandbox.drop_caps:
        inner += ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--"]
    if shutil.which("prlimit"):
        inner += ["prlimit", f"--as={memory_mb * 1024 * 1024}", f"--fsize={FSIZE_LIMIT}",
                  f"--nproc={pids}", "--"]
    inner += ["/bin/sh", "-c", '"$TJ_COMMAND"']
    # not ``exec``: the first process of the pid namespace stays a shell that only waits, so the
    # test process is not pid 1 (which ignores signals it has no handler for)
    steps.append(" ".join(a if a == '"$TJ_COMMAND"' else shlex.quote(a) for a in inner))
    steps.append("exit $?")
    return [*sandbox.prefix, "/bin/sh", "-c", "; ".join(steps)]
