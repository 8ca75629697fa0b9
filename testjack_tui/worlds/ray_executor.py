"""Run ExecRequests as Ray tasks on a cluster's nodes and hand results back as they finish.

``RayExecutor`` has the thread executor's interface (``run_all``, ``cancel``, ``close``): the
caller (the CLI or the console's worker, through ``ExecutionService``) stays the only writer of
the store; a node only runs requests and returns their results, which are plain data.

- **Each request is one Ray task** (``run_on_node``), asking Ray for ``request.cpus`` CPUs, and
  for the custom resource ``docker`` when it runs on the docker backend, so it lands only on
  nodes started with that resource (nodes with an engine).
- **Snapshots travel content-addressed.** The head packs a task snapshot into a tar archive once
  per digest and puts it into Ray's object store (``ray.put``); the task gets the reference
  wrapped in a list, so Ray does not fetch it eagerly. On a node, the first request for a digest
  fetches it (``ray.get``) and unpacks it under the node's cache directory
  (``<cache>/fetched/<digest>``, with a ``.ready`` marker and a ``.lock`` like the snapshot
  trees); every later request on that node uses the unpacked tree, whatever the head's path was.
- **A node that dies mid-request**: Ray retries the task on another node (``max_retries``; a
  retry runs the request from scratch, in a fresh world, so its result is the one the dead node
  would have given).
- **Cancel** (``cancel()``, or the generator closed early) cancels the Ray tasks
  (``ray.cancel``): a running one gets a ``KeyboardInterrupt``, on which it cancels its
  ``CancelScope``, so the backend kills the test's process group (or container) and removes
  the world, as the thread executor's cancel does.

``connect(address)`` joins a cluster: an address ``host:port``, ``auto`` (the cluster this
machine's ``ray start`` is part of), or None for a private single-machine Ray started for this
process. A ``host:port`` whose port accepts no connection within ``CONNECT_TIMEOUT_S`` is refused
before ``ray.init`` (which would retry it for minutes), so the CLI exits 3 at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import logging
import os
import shutil
import signal
import socket
import tarfile
import threading
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

import ray

from .cache import mark_used
from .cancel import CancelScope, set_current_scope
from .materialise import default_cache_dir
from .request import STATUS_ERROR, ExecRequest, ExecResult

RETRIES = 3  # Ray's retries of a task whose worker or node died
DOCKER_RESOURCE = "docker"  # the custom resource of nodes that have a Docker engine
_WAIT_S = 0.5  # how long one ray.wait blocks before the loop looks at cancel() again
CONNECT_TIMEOUT_S = 5.0  # how long the head's port may take to accept a connection


def _tar_filter(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo:
    data = getattr(tarfile, "data_filter", None)  # Python 3.11.4+: no absolute or escaping links
    return data(member, path) if data else member


def pack_snapshot(path: str | os.PathLike) -> bytes:
    """A task snapshot directory as an uncompressed tar archive (its files, links and modes)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(os.fspath(path), arcname=".", recursive=True)
    return buffer.getvalue()


def snapshot_key(request: ExecRequest, packed: bytes | None = None) -> str:
    """What a snapshot is called on the nodes: its digest, else the hash of its archive."""
    if request.snapshot_digest:
        return request.snapshot_digest
    return "sha256-" + hashlib.sha256(packed or b"").hexdigest()


def fetched_snapshot(key: str, holder: list, cache_dir: Path) -> Path:
    """The snapshot ``key`` unpacked under this node's cache; fetched from the object store the
    first time only (``holder`` is ``[ObjectRef]``), under a lock so concurrent tasks wait."""
    base = cache_dir / "fetched"
    base.mkdir(parents=True, exist_ok=True)
    tree, ready = base / key, base / f"{key}.ready"
    if mark_used(ready):
        return tree
    with open(base / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if ready.exists():
            return tree
        if tree.exists():  # an unpacking that died half-way
            shutil.rmtree(tree)
        data = ray.get(holder[0])
        tmp = base / f"{key}.tmp-{uuid.uuid4().hex[:8]}"
        with tarfile.open(fileobj=io.BytesIO(data), mode="r") as tar:
            tar.extractall(tmp, filter=_tar_filter)
        os.rename(tmp, tree)
        ready.touch()
    return tree


def _run_cancellable(request: ExecRequest) -> ExecResult:
    """``run_request`` in a thread of its own, under a ``CancelScope`` this thread cancels.

    Ray cancels a running task by raising ``KeyboardInterrupt`` in the task's thread, which Python
    delivers only between bytecodes: a thread blocked in a test's output pipe would not see it for
    as long as the test runs. So the request runs in another thread, this one waits in short
    joins, and on the interrupt cancels the scope, which kills the test's process group (or
    container) through the backends' own cancellation, and waits for the backend to clean up.
    """
    from . import run_request

    _interruptible()
    scope = CancelScope()
    box: dict = {}

    def work() -> None:
        set_current_scope(scope)
        try:
            box["result"] = run_request(request)
        except BaseException as exc:  # reported on this request, as the thread executor does
            box["result"] = ExecResult(status=STATUS_ERROR, message=f"{type(exc).__name__}: {exc}")

    runner = threading.Thread(target=work, name="testjack-request", daemon=True)
    runner.start()
    try:
        while runner.is_alive():
            runner.join(_WAIT_S)
    except KeyboardInterrupt:
        scope.cancel()
        runner.join()
        raise
    return box["result"]


def _interruptible() -> None:
    """Let Ray's cancel reach this worker. It interrupts a running task the way SIGINT does, and a
    node started from a background job (``ray start ... &`` in a script, ``nohup``) hands SIGINT
    to its workers ignored: Python then never raises the ``KeyboardInterrupt``, and a cancelled
    test would run to its own timeout."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@ray.remote(max_retries=RETRIES, retry_exceptions=False)
def run_on_node(request: dict, snapshot: list) -> tuple[dict, str]:
    """One request on this node: (the result as a dict, this node's id)."""
    req = ExecRequest.from_dict(request)
    if snapshot:  # [ObjectRef of the archive, the snapshot's key]
        req = replace(req, snapshot=str(fetched_snapshot(snapshot[1], snapshot, default_cache_dir())))
    result = _run_cancellable(req)
    return result.to_dict(), ray.get_runtime_context().get_node_id()


def resources_for(request: ExecRequest) -> dict:
    """Ray scheduling options of one request: its CPUs, and ``docker`` for the docker backend.

    Not its memory: Ray counts a node's memory resource from what is free when the node starts,
    and a request for more than any node has would wait forever; the backends bound memory
    themselves (``memory_mb``)."""
    options: dict = {"num_cpus": request.cpus}
    if request.backend == "docker":
        options["resources"] = {DOCKER_RESOURCE: 0.001}
    return options


_init_lock = threading.Lock()
# The connection this module started, shared by every executor of the process (the console may
# audit several runs at once): how many hold it, and the address it was asked for. The last
# holder to let go ends it; one started by someone else (a test's ray.init) is never ended here.
_holders = 0
_address: str | None = None


def connect(address: str | None, cpus: int | None = None) -> bool:
    """Join the cluster at ``address`` (``auto``: the one this machine belongs to; None: start a
    private Ray here with ``cpus`` CPUs). Returns True when the caller now holds the connection
    this module started (and must ``release()`` it)."""
    global _holders, _address
    with _init_lock:
        if ray.is_initialized():
            if not _holders:
                return False
            if (address or None) != _address:
                raise ValueError(f"this process is already connected to the Ray cluster at {_address or 'a private Ray'}")
            _holders += 1
            return True
        if address:
            probe_head(address)
        private = {} if address else {"num_cpus": cpus, "include_dashboard": False}
        ray.init(address=address or None, namespace="testjack", log_to_driver=False,
                 logging_level=logging.WARNING, ignore_reinit_error=True, **private)
        _holders, _address = 1, address or None
        return True


def head_endpoint(address: str) -> tuple[str, int] | None:
    """(host, port) of a ``host:port`` or ``ray://host:port`` address; None for ``auto`` and any
    other form, which Ray resolves itself."""
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


def probe_head(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """ConnectionError unless the head's port at ``address`` accepts a TCP connection within
    ``timeout_s``. ``ray.init`` itself retries an unreachable address for minutes, printing a
    warning each time, so a mistyped address would hold the audit up instead of ending it."""
    endpoint = head_endpoint(address)
    if endpoint is None:
        return
    try:
        socket.create_connection(endpoint, timeout=timeout_s).close()
    except OSError as exc:
        why = f"no answer within {timeout_s:g} s" if isinstance(exc, TimeoutError) else (
            (exc.strerror or str(exc) or type(exc).__name__).lower())
        raise ConnectionError(
            f"nothing accepts connections at {address} ({why}): start the cluster's "
            f"head there (ray start --head --port={endpoint[1]}) or give the head's address with "
            "--ray-address (or TESTJACK_RAY_ADDRESS)") from exc


def release() -> None:
    """Let go of the connection ``connect`` returned True for; the last holder ends it."""
    global _holders
    with _init_lock:
        if not _holders:
            return
        _holders -= 1
        if not _holders and ray.is_initialized():
            ray.shutdown()


class RayExecutor:
    """Runs requests on a Ray cluster, at most ``2 x`` the cluster's CPUs (or ``workers``) in flight."""

    def __init__(self, address: str | None = None, workers: int = 1) -> None:
        self.workers = max(1, int(workers))
        self.address = address
        self._owns = connect(address, self.workers)
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._running: set = set()
        self._snapshots: dict[str, tuple] = {}  # snapshot path -> (key, ObjectRef)
        self.ran_on: Counter[str] = Counter()  # node id -> requests it returned a result for

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def _snapshot(self, request: ExecRequest) -> list:
        if not request.snapshot or not os.path.isdir(request.snapshot):
            return []  # nothing to ship: the backend reports the missing snapshot as usual
        held = self._snapshots.get(request.snapshot)
        if held is None:
            packed = pack_snapshot(request.snapshot)
            held = (snapshot_key(request, packed), ray.put(packed))
            self._snapshots[request.snapshot] = held
        return [held[1], held[0]]

    def _in_flight(self) -> int:
        try:
            cpus = int(ray.cluster_resources().get("CPU", 0))
        except Exception:  # the cluster went away: keep what the caller asked for
            cpus = 0
        return max(2 * self.workers, 2 * cpus, 1)

    def _refused(self, request: ExecRequest) -> ExecResult | None:
        """An error at once for a request no node of the cluster can take (it would wait forever)."""
        needs = resources_for(request).get("resources", {})
        if not needs:
            return None
        have = ray.cluster_resources()
        lacking = sorted(name for name in needs if have.get(name, 0) <= 0)
        if not lacking:
            return None
        return ExecResult(status=STATUS_ERROR, message=(
            f"no node of the Ray cluster has the resource {', '.join(lacking)}: start the nodes that have "
            f"a Docker engine with ray start ... --resources='{{\"{DOCKER_RESOURCE}\": 1}}'"))

    def _submit(self, request: ExecRequest):
        return run_on_node.options(**resources_for(request)).remote(request.to_dict(), self._snapshot(request))

    def run_all(self, requests: Iterable[ExecRequest]) -> Iterator[tuple[ExecRequest, ExecResult]]:
        pending: dict = {}  # ObjectRef -> request
        source = iter(requests)
        exhausted = False
        limit = self._in_flight()
        try:
            while True:
                while not exhausted and not self.cancelled and len(pending) < limit:
                    try:
                        request = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                    refused = self._refused(request)
                    if refused is not None:
                        yield request, refused
                        continue
                    ref = self._submit(request)
                    pending[ref] = request
                    with self._lock:
                        self._running.add(ref)
                if not pending or self.cancelled:
                    return
                done, _ = ray.wait(list(pending), num_returns=1, timeout=_WAIT_S)
                for ref in done:
                    request = pending.pop(ref)
                    with self._lock:
                        self._running.discard(ref)
                    if self.cancelled:
                        return
                    yield request, self._result(ref)
        finally:
            self._cancel_refs(list(pending))

    def _result(self, ref) -> ExecResult:
        try:
            data, node = ray.get(ref)
        except Exception as exc:  # retries used up, a node lost for good, a bug on the node
            return ExecResult(status=STATUS_ERROR, message=f"ray: {type(exc).__name__}: {exc}"[:2000])
        self.ran_on[node] += 1
        return ExecResult.from_dict(data)

    def _cancel_refs(self, refs: list) -> None:
        with self._lock:
            self._running.difference_update(refs)
        for ref in refs:
            try:
                ray.cancel(ref)
            except Exception:  # finished meanwhile, or the cluster is gone
                pass

    def cancel(self) -> None:
        """Stop yielding and cancel every Ray task this executor has in flight. Safe from any thread."""
        self._cancelled.set()
        with self._lock:
            refs = list(self._running)
        self._cancel_refs(refs)

    def close(self) -> None:
        self._snapshots.clear()
        if self._owns:
            release()
        self._owns = False

    def __enter__(self) -> "RayExecutor":
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is not None:
            self.cancel()
        self.close()
