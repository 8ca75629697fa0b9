"""A real Ray cluster on this machine: a head and more nodes, each a ``ray start --block``.

Used by the cluster tests and by ``benchmarks/bench_scale.py``. Each node is started the way
docs/scale.md tells a user to (``ray start --head`` / ``ray start --address``), in its own
session, with its own TestJack cache directory (``TESTJACK_CACHE``) and CPU count, and a token of
its own for the cluster (``RAY_AUTH_MODE=token``, ``RAY_AUTH_TOKEN``). A node is up when its
``ray start`` prints that the runtime started (read from its output as it comes, never waited
for by the clock). ``stop`` asks each node to stop (SIGTERM: ``ray start --block`` drains and
stops its processes); ``kill`` is a crash: SIGKILL to the node's every process, found by walking
the process tree down from its ``ray start`` (Ray's workers leave its process group), so only
processes this cluster started are touched.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))
STARTED = "Ray runtime started"
START_TIMEOUT_S = 180


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def descendants(pid: int) -> list[int]:
    tree, out, todo = _children(), [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(tree.get(p, []))
    return out


def _as_a_background_job() -> None:
    """A node as a script's ``ray start ... &`` starts one: SIGINT ignored, and inherited so by
    its workers (the executor must still reach them with a cancel)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass
class Node:
    name: str
    cache: Path
    proc: subprocess.Popen
    log: Path
    started: threading.Event = field(default_factory=threading.Event)
    lines: list[str] = field(default_factory=list)

    def alive(self) -> bool:
        return self.proc.poll() is None


class LocalCluster:
    def __init__(self, root: Path | None = None, cpus_per_node: int = 1, object_store_mb: int = 128,
                 pythonpath: str | None = None) -> None:
        # Ray's unix sockets live under the temp dir: keep its path short
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="tjray-", dir="/tmp"))
        self.cpus = cpus_per_node
        self.object_store = object_store_mb * 1024 * 1024
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.nodes: list[Node] = []
        self.env = {
            **os.environ,
            "RAY_AUTH_MODE": "token",
            "RAY_AUTH_TOKEN": secrets.token_hex(32),
            "RAY_USAGE_STATS_ENABLED": "0",
            # Ray starts its workers at nice 15; on a machine shared with other work that slows the
            # tests down against the thread executor's (nice 0), which the benchmark compares with
            "RAY_worker_niceness": "0",
        }
        if pythonpath:
            self.env["PYTHONPATH"] = pythonpath

    def client_env(self) -> dict[str, str]:
        """The environment of a process that joins this cluster (``--ray-address`` it)."""
        return dict(self.env)

    def _start(self, name: str, args: list[str], resources: str | None) -> Node:
        cache = self.root / f"cache-{name}"
        cache.mkdir(parents=True, exist_ok=True)
        log = self.root / f"{name}.log"
        argv = [RAY, "start", "--block", f"--num-cpus={self.cpus}", f"--object-store-memory={self.object_store}",
                "--disable-usage-stats", *args]
        if resources:
            argv.append(f"--resources={resources}")
        proc = subprocess.Popen(argv, env={**self.env, "TESTJACK_CACHE": str(cache)}, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
                                preexec_fn=_as_a_background_job)
        node = Node(name, cache, proc, log)

        def pump() -> None:
            with open(log, "w") as out:
                for line in proc.stdout:
                    out.write(line)
                    out.flush()
                    node.lines.append(line)
                    if STARTED in line:
                        node.started.set()
            node.started.set()  # the process ended: whoever waits looks at alive()

        threading.Thread(target=pump, daemon=True).start()
        self.nodes.append(node)
        if not node.started.wait(START_TIMEOUT_S) or not node.alive():
            raise RuntimeError(f"ray node {name} did not start:\n{''.join(node.lines)[-3000:]}")
        return node

    def start_head(self, resources: str | None = None) -> Node:
        # the Ray Client server's port is fixed (10001) unless told: two clusters here would clash
        return self._start("head", ["--head", f"--port={self.port}", "--include-dashboard=false",
                                    f"--ray-client-server-port={free_port()}", f"--temp-dir={self.root / 'ray'}"],
                           resources)

    def add_node(self, name: str, resources: str | None = None) -> Node:
        # an address of its own on the loopback network (127.0.0.2, ...): the head keeps the
        # machine's, so a driver started here always attaches to the head, never to this node
        ip = f"127.0.0.{len(self.nodes) + 1}"
        return self._start(name, [f"--address={self.address}", f"--node-ip-address={ip}"], resources)

    def kill(self, node: Node) -> None:
        """A crash: SIGKILL to the node's ``ray start`` and every process under it."""
        for pid in reversed(descendants(node.proc.pid)):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        node.proc.wait()

    def stop(self) -> None:
        for node in reversed(self.nodes):
            if node.alive():
                node.proc.send_signal(signal.SIGTERM)
        for node in reversed(self.nodes):
            try:
                node.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.kill(node)

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> "LocalCluster":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
