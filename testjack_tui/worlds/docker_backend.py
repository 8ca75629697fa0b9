"""The docker backend: run one ExecRequest in a throw-away container, for trial code we do not trust.

The world is materialised on the host (``materialise``, the same code as the local backend, so a
patch applies or fails identically), packed into a tar and copied into a fresh container with
``put_archive`` once it has started. The container has

- no network (``network_mode="none"``: loopback only, its own),
- a read-only root file system; the only writable places are a tmpfs volume at a root drawn per
  run, ``/r<12 hex digits>`` (the world and the output directory; at most ``$TESTJACK_DOCKER_DISK_MB``
  MiB, 4096 by default: ``world_volume``), and a small ``/tmp`` tmpfs,
- every capability dropped and ``no-new-privileges``, the user ``tester`` when the image has one,
- memory (no swap), CPU and process-count limits from the request,
- a small writable ``/logs`` tmpfs, where Harbor's verifier scripts write their reward.

Its image is the request's, the base image, or one built from the task's own Dockerfile (a build
spec, see ``images``: built once per context digest and kept as ``testjack/env:<digest12>``).

A task image (a Harbor task's) gets the layout its scripts are written for instead
(``images.task_layout``): the world at the image's ``WORKDIR`` (``/app`` by default), laid over what
the image put there, its ``tests/`` and ``solution/`` also at ``/tests`` and ``/solution``, the
commands run from ``WORKDIR`` as the image's user (root unless it sets ``USER``). Its root file
system is writable, as Harbor's containers are (its scripts write to ``/tests``, ``/solution``, the
work directory and wherever the image's tools install things); no network, no capabilities and the
limits stay, and the container goes away afterwards like any other. The writable root gets the
same disk bound through ``--storage-opt size`` where the engine can (overlay2 on xfs with
``pquota``); an engine that refuses it is asked once per process, and its roots go unbounded.

Against a trial that dodges its witnesses (issue 36): nothing the command is given names TestJack
(the per-run root; the host's temporary directory has a neutral name too, as its path shows in
the container's mountinfo), and a witness run's JUnit report, or a confirmed T0 run's
(``ExecRequest.confirm``), is checked against the runner's own record (``report_pipe``), which
comes over a FIFO on the host that the container can write to and not read or replace
(``report_fifo``).

Its first process only sleeps (for the request's time limit and a margin, so a container whose
audit was killed stops by itself: ``container_lifetime``); setup and command run in it with
``exec``, so the daemon's exit code is the command's, and a kill of the container at the timeout
ends every process the test started. JUnit XML and coverage data come back with ``get_archive`` and are read by the same
functions as the local backend's, so both give the same outcomes for the same request. The
container and its volume are removed afterwards whatever happened.

Requirements (pip specs) cannot be installed inside (no network): they are installed once on the
host with ``pip install --target`` into a cache directory keyed by the specs and bind-mounted
read-only at ``<root>/deps``. That works when the image's Python has the host's minor version
(the base image's 3.11, as on this project's machines); other images should carry their
dependencies themselves.

The tars, archives and streams that cross the container's wall are ``container_io``'s.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path, PurePosixPath

import docker
import docker.errors
from docker.types import Mount

from . import coverage_run, report_pipe, world_volume
from .cache import mark_used
from .cancel import current_scope
from .command import PYTEST_ENV, render_command
from .container_io import (Bounded, empty_dir_tar, files_tar, read_archive, read_text,
                           tar_of, user_ids)
from .container_lifetime import OWNER_LABEL, lifetime_s, owner, reap_orphans
from .images import EnvironmentImages, ImageProblem, TaskLayout, needs_docker, task_layout
from .logparsers import capture_limit, run_outcomes
from .materialise import PatchFailed, default_cache_dir, materialise_world
from .report_fifo import FifoChannel
from .request import (STATUS_ERROR, STATUS_OK, STATUS_PATCH_FAILED, STATUS_SETUP_FAILED,
                      STATUS_TIMEOUT, ExecRequest, ExecResult)
from .run_status import settle
from .world_volume import DiskSettingInvalid, Places

BASE_IMAGE = "testjack/base:bookworm"
TEST_USER = "tester"
_KILL_GRACE = 10.0  # after a kill, how long we wait for the exec stream to close
LOGS = "/logs"  # Harbor's verifier writes its reward under /logs/verifier: a writable tmpfs
ENGINE_HELP = ("start one with `bash .ci/docker.sh` (as root: installs docker.io, starts dockerd, "
               "builds the base image), or point DOCKER_HOST at a running engine")


class EngineUnreachable(Exception):
    """No Docker engine answered."""


def _standard_layout(places: Places) -> TaskLayout:
    """The world at ``<root>/world``, run by ``tester`` when the image has that user."""
    return TaskLayout(workdir=places.world, copies=(), user=TEST_USER, writable_root=False)


# Whether this engine bounds a container's writable root (``--storage-opt size``: overlay2 on xfs
# with pquota only); learnt from the first refusal, once per process.
_ROOT_SIZE_REFUSED = threading.Event()


def _deps_dir(requirements: tuple[str, ...], cache_dir: Path) -> Path:
    """A directory with ``requirements`` installed by the host's pip, built once per set."""
    key = hashlib.sha256("\n".join(requirements).encode()).hexdigest()[:16]
    base = cache_dir / "docker-deps"
    base.mkdir(parents=True, exist_ok=True)
    target = base / key
    with open(base / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if mark_used(base / f"{key}.ready"):  # also records the use, for `testjack cache prune`
            return target
        shutil.rmtree(target, ignore_errors=True)
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--target", str(target), *requirements],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            shutil.rmtree(target, ignore_errors=True)
            tail = "\n".join(proc.stdout.strip().splitlines()[-5:])
            raise RuntimeError(f"pip install {' '.join(requirements)} failed: {tail}")
        (base / f"{key}.ready").touch()
    return target


# Task images (build specs) are built once per tag by every DockerBackend of this process:
# run_request makes a backend per request, and the lock per tag must span them all.
_IMAGES = EnvironmentImages()


class DockerBackend:
    def __init__(self, client=None, base_image: str = BASE_IMAGE,
                 cache_dir: Path | str | None = None, disk_mb: int | None = None) -> None:
        """``disk_mb``: the world volume's bound; None reads ``$TESTJACK_DOCKER_DISK_MB`` per run."""
        self._client = client
        self.base_image = base_image
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.disk_mb = disk_mb
        self.images = _IMAGES

    # -- the engine ---------------------------------------------------------------------------

    def client(self):
        """The docker SDK client, connected and answering; raises EngineUnreachable."""
        try:
            if self._client is None:
                self._client = docker.from_env(timeout=120)
            self._client.ping()
        except (docker.errors.DockerException, OSError) as exc:
            self._client = None
            raise EngineUnreachable(str(exc)) from exc
        return self._client

    # -- one request ----------------------------------------------------------------------------

    def run(self, request: ExecRequest) -> ExecResult:
        started = time.monotonic()
        scope = current_scope()
        if scope and scope.cancelled:
            return ExecResult(status=STATUS_ERROR, message="cancelled before it started")
        try:
            client = self.client()
        except EngineUnreachable as exc:
            needs = ("this task's environment is a Dockerfile (a Harbor task), which runs on the "
                     "docker backend only; " if needs_docker(request.image) else "")
            return ExecResult(status=STATUS_ERROR, duration=time.monotonic() - started,
                              message=f"{needs}the Docker engine is not reachable ({exc}); "
                                      f"{ENGINE_HELP}")
        try:
            reap_orphans(client)  # containers of audits that were killed: once per process
        except docker.errors.APIError:
            pass  # a clean-up that cannot list containers must not fail the request
        # a neutral name: the report channel's host path shows in the container's mountinfo
        with tempfile.TemporaryDirectory(prefix="r") as tmp:
            try:
                result = self._run_in(client, request, Path(tmp), started)
            except ImageProblem as exc:
                result = ExecResult(status=STATUS_SETUP_FAILED, message=str(exc))
            except DiskSettingInvalid as exc:
                result = ExecResult(status=STATUS_ERROR, message=str(exc))
            except docker.errors.ImageNotFound as exc:
                result = ExecResult(status=STATUS_SETUP_FAILED,
                                    message=f"image not found ({exc.explanation}); the base image "
                                            f"{self.base_image} is built by `bash .ci/docker.sh`")
            except Exception as exc:  # the executor's own failure, reported on this request only
                result = ExecResult(status=STATUS_ERROR, message=f"{type(exc).__name__}: {exc}")
        result.duration = time.monotonic() - started
        return result

    def _run_in(self, client, request: ExecRequest, tmp: Path, started: float) -> ExecResult:
        disk_mb = self.disk_mb or world_volume.disk_mb()
        places = world_volume.places()
        world, out = tmp / "world", tmp / "out"
        out.mkdir()
        try:
            # plain copies: the world is tarred anyway, and links would pin the snapshot cache
            materialise_world(request, world, cache_dir=self.cache_dir, link=False)
        except PatchFailed as exc:
            return ExecResult(status=STATUS_PATCH_FAILED, message=str(exc))
        except ValueError as exc:
            return ExecResult(status=STATUS_ERROR, message=str(exc))
        deps = None
        if request.requirements:
            try:
                deps = _deps_dir(tuple(request.requirements), self.cache_dir)
            except RuntimeError as exc:
                return ExecResult(status=STATUS_SETUP_FAILED, message=str(exc))
        image = self.images.resolve(client, request.snapshot, request.snapshot_digest,
                                    request.image, self.base_image)
        layout = (task_layout(client, image) if needs_docker(request.image)
                  else _standard_layout(places))
        channel = None
        if report_pipe.wanted(request):  # a second report the trial cannot rewrite (report_fifo)
            channel = FifoChannel(tmp / "channel", places.channel,
                                  capture_limit(request.max_output, request.log_parser))
        try:
            container = self._create(client, request, image, layout, places, disk_mb, deps,
                                     channel)
            try:
                return self._run_container(container, request, layout, places, world, out,
                                           started, channel)
            finally:
                try:
                    container.remove(force=True, v=True)
                except docker.errors.NotFound:  # already gone (removed by hand, engine restarted)
                    pass
        finally:
            if channel:
                channel.close()

    def _create(self, client, request: ExecRequest, image: str, layout: TaskLayout, places: Places,
                disk_mb: int, deps: Path | None, channel: FifoChannel | None):
        mounts = [world_volume.volume(places.root, disk_mb)]
        if deps is not None:
            mounts.append(Mount(target=places.deps, source=str(deps), type="bind", read_only=True))
        if channel is not None:  # read-only: the FIFO is still writable, the plugin is not
            mounts.append(Mount(target=places.channel, source=str(channel.directory), type="bind",
                                read_only=True))
        memory = f"{max(request.memory_mb, 16)}m"
        settings = dict(
            command=["sleep", str(lifetime_s(request.timeout, _KILL_GRACE))],
            entrypoint=[],
            network_mode="none",
            mem_limit=memory,
            memswap_limit=memory,  # no swap: the memory limit is the limit
            nano_cpus=max(int(request.cpus * 1e9), 10_000_000),
            pids_limit=max(request.pids, 8),
            read_only=not layout.writable_root,
            tmpfs={"/tmp": f"size={max(request.memory_mb // 4, 16)}m,mode=1777",
                   LOGS: "size=16m,mode=1777"},
            mounts=mounts,
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            working_dir="/",
            labels={"org.testjack.run": request.label or "exec", OWNER_LABEL: owner()},
        )
        if layout.writable_root and not _ROOT_SIZE_REFUSED.is_set():
            try:
                return client.containers.create(image, storage_opt={"size": f"{disk_mb}m"},
                                                **settings)
            except docker.errors.APIError as exc:
                if "storage-opt" not in str(exc):
                    raise
                _ROOT_SIZE_REFUSED.set()  # this engine cannot: the root goes unbounded (docs)
        return client.containers.create(image, **settings)

    def _run_container(self, container, request: ExecRequest, layout: TaskLayout, places: Places,
                       world: Path, out: Path, started: float,
                       channel: FifoChannel | None) -> ExecResult:
        user, uid, gid = self._user_of(container, layout.user)
        container.start()  # before the copies: the tmpfs volume holds files only while mounted
        _copy_world(container, layout, places, world, uid, gid)
        pythonpath = layout.workdir + (f":{places.deps}" if request.requirements else "")
        env = {"PYTHONPATH": pythonpath, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
               "PYTHONDONTWRITEBYTECODE": "1", **PYTEST_ENV}
        capture = capture_limit(request.max_output, request.log_parser)  # returned: max_output
        stdout, stderr = Bounded(capture), Bounded(capture)
        deadline = started + request.timeout
        if request.setup:
            code, how = self._exec(container, request.setup, user, layout.workdir, env, deadline,
                                    stdout, stderr)
            if how != "done" or code != 0:
                return _setup_failed(request, code, how, stdout, stderr)
        command = render_command(request, f"{places.out}/junit.xml")
        if request.coverage:
            command, support = coverage_run.measured(command, places.out)
            if support:
                container.put_archive(places.out, files_tar(support, uid, gid))
        if channel:
            env = {**env, "PYTEST_PLUGINS": channel.plugin,
                   "PYTHONPATH": f"{env['PYTHONPATH']}:{places.channel}"}
        code, how = self._exec(container, command, user, layout.workdir, env, deadline, stdout,
                               stderr)
        record = channel.record() if channel else None
        read_archive(container, places.out, out)
        return _test_result(request, code, how, stdout, stderr, out, layout, record)

    def _user_of(self, container, wanted: str) -> tuple[str, int, int]:
        """``wanted`` and its ids (from the image's /etc/passwd); "" means root.

        ``tester`` is optional (the base image has it, other images need not): without it, root.
        An image's own ``USER`` is kept even when /etc/passwd does not name it (files: uid 0)."""
        if not wanted:
            return "0", 0, 0
        ids = user_ids(read_text(container, "/etc/passwd"), wanted)
        if ids:
            return (wanted, *ids)
        return ("0", 0, 0) if wanted == TEST_USER else (wanted, 0, 0)

    def _exec(self, container, shell_line: str, user: str, workdir: str, env: dict[str, str],
              deadline: float, stdout: Bounded, stderr: Bounded) -> tuple[int | None, str]:
        """Run ``shell_line`` in the world; (exit code, "done" | "timeout" | "cancelled")."""
        api = container.client.api
        exec_id = api.exec_create(container.id, ["/bin/sh", "-c", shell_line], user=user,
                                  workdir=workdir, environment=env)["Id"]
        finished = threading.Event()
        failure: list[BaseException] = []

        def pump() -> None:
            try:
                for out_chunk, err_chunk in api.exec_start(exec_id, stream=True, demux=True):
                    stdout.add(out_chunk)
                    stderr.add(err_chunk)
            except Exception as exc:  # the stream breaks when the container is killed
                failure.append(exc)
            finally:
                finished.set()

        how = "done"
        cancelled = threading.Event()

        def cancel() -> None:
            cancelled.set()
            _kill(container)

        scope = current_scope()
        token = scope.register(cancel) if scope else 0
        try:
            threading.Thread(target=pump, daemon=True, name="testjack-docker-exec").start()
            if not finished.wait(max(0.0, deadline - time.monotonic())):
                how = "timeout"
                _kill(container)
                finished.wait(_KILL_GRACE)
        finally:
            if scope:
                scope.unregister(token)
        if cancelled.is_set():
            how = "cancelled"
        if how == "done" and failure:
            raise failure[0]
        code = api.exec_inspect(exec_id).get("ExitCode")
        return code, how


def _kill(container) -> None:
    try:
        container.kill()
    except Exception:  # already stopped
        pass


def _copy_world(container, layout: TaskLayout, places: Places, world: Path, uid: int, gid: int) -> None:
    """The world, and its copies, as tars laid over what the image has at those paths; an empty
    output directory beside."""
    for source, target in [(world, layout.workdir),
                           *((world / sub, at) for sub, at in layout.copies)]:
        if source.is_dir():
            place = PurePosixPath(target)
            container.put_archive(str(place.parent), tar_of(source, place.name, uid, gid))
    container.put_archive(places.root, empty_dir_tar("out", uid, gid))


def _setup_failed(request: ExecRequest, code: int | None, how: str, stdout: Bounded,
                  stderr: Bounded) -> ExecResult:
    """The result of a setup that timed out, was cancelled or exited non-zero: no test ran."""
    keep = request.max_output
    status = {"timeout": STATUS_TIMEOUT, "cancelled": STATUS_ERROR}.get(how, STATUS_SETUP_FAILED)
    return ExecResult(status=status, exit_code=code, stdout=stdout.text(keep),
                      stderr=stderr.text(keep),
                      truncated=stdout.cut_at(keep) or stderr.cut_at(keep),
                      outcomes={t: "missing" for t in request.test_ids},
                      message=f"setup exited {code}" if status == STATUS_SETUP_FAILED
                      else f"setup {how}")


def _test_result(request: ExecRequest, code: int | None, how: str, stdout: Bounded, stderr: Bounded,
                 out: Path, layout: TaskLayout, record: str | None) -> ExecResult:
    """The command's run as the request's result; ``out`` holds what came back from the container's
    output directory, ``record`` what the report channel said (None: no channel)."""
    outcomes, reported = run_outcomes(out / "junit.xml", request.log_parser, stdout.text(), stderr.text(),
                                      request.test_ids)
    keep = request.max_output
    common = dict(exit_code=code, stdout=stdout.text(keep), stderr=stderr.text(keep),
                  truncated=stdout.cut_at(keep) or stderr.cut_at(keep))
    if how == "cancelled":
        return ExecResult(status=STATUS_ERROR, message="cancelled", outcomes=outcomes, **common)
    killed = f"killed after {request.timeout:g}s (the whole container)" if how == "timeout" else ""
    status, outcomes, notes = settle(request, outcomes, reported, code, stdout.text(), stderr.text(),
                                     killed=killed, record=record)
    coverage = None
    if request.coverage and status == STATUS_OK:
        # the data names files by their path in the container; a host world at that path
        # does not exist, so map through a directory named like it
        coverage = coverage_run.read(out, coverage_run.under(layout.workdir))
    return ExecResult(status=status, outcomes=outcomes, message="; ".join(notes),
                      coverage=coverage, **common)
