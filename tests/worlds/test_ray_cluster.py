"""The Ray executor on a real cluster (issue 16): a head and a second node on this machine.

The cluster is started the way docs/scale.md tells a user to: ``ray start --head`` and ``ray start
--address ...`` for the second node, with its own TestJack cache directory (``ray_cluster``). Then
``testjack audit sample_runs/toolbox --executor ray --ray-address ...`` must give the verdicts,
witnesses and per-witness results a thread-executor audit gives; the same again when the second
node is killed in the middle of a test run; a cancel stops the tests running on the nodes; and a
docker-backend request lands only on the node that declares the ``docker`` resource.

Ray is in the ``test`` extra: under CI=true a missing Ray fails these tests, elsewhere it skips them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from tests.worlds.conftest import FAST_PYTEST, digest_of, write_repo

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
TOOLBOX = ROOT / "sample_runs" / "toolbox"
WORKERS = "2"

# Ray is imported only once the cluster's token is in the environment (it reads it on import)
if importlib.util.find_spec("ray") is None:  # pragma: no cover - depends on the install
    if os.environ.get("CI") == "true":
        raise RuntimeError("Ray is not installed; CI installs it with the test extra (pip install -e '.[test]')")
    pytest.skip("Ray is not installed (pip install 'testjack[ray]')", allow_module_level=True)

from tests.worlds.ray_cluster import LocalCluster  # noqa: E402


def wait_for(condition, what: str, timeout: float = 300.0, every: float = 0.02):
    """Wait until ``condition()`` is true (it watches a file or a process, not the clock)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


def _reread_token() -> None:
    """Make Ray read its token from the environment again: it keeps what it read first, and an
    earlier test of this session (the console's private Ray) may have imported and run it."""
    if "ray" in sys.modules:
        from ray._private.authentication_test_utils import reset_auth_token_state

        reset_auth_token_state()


@pytest.fixture(scope="module")
def cluster():
    c = LocalCluster(cpus_per_node=1, pythonpath=str(ROOT))
    env = pytest.MonkeyPatch()
    try:
        c.start_head()
        c.add_node("second", resources='{"docker": 1}')
        # this process joins the cluster too (the executor tests below): same token
        for key in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN"):
            env.setenv(key, c.env[key])
        _reread_token()
        yield c
    finally:
        env.undo()
        _reread_token()
        c.stop()
        c.cleanup()


def audit_command(db: Path, *extra: str) -> list[str]:
    # --no-mutation: mutants are evidence no verdict or witness compared here depends on, and their
    # 127 runs (up to 20 s per audited trial) were 46% of the test time of each of the module's audits
    return [sys.executable, "-m", "testjack_tui.cli", "audit", str(TOOLBOX), "--store", str(db),
            "--workers", WORKERS, "--no-mutation", "--json", *extra]


def outcome(stdout: str) -> dict:
    """What must not depend on the executor: verdicts, witnesses and every per-witness result."""
    report = json.loads(stdout[stdout.index("{"):])
    return {
        "verdicts": {t["id"]: (t["verdict"], sorted(t["witnesses"])) for t in report["trials"]},
        "witnesses": {w["id"]: {k: w[k] for k in ("task", "classification", "rho", "flaky", "code", "results")}
                      for w in report["witnesses"]},
        "tasks": report["tasks"],
    }


def run_audit(db: Path, env: dict, *extra: str) -> dict:
    done = subprocess.run(audit_command(db, *extra), cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    return outcome(done.stdout)


def executions_of(stdout: str) -> int:
    return json.loads(stdout[stdout.index("{"):])["summary"]["executions"]


@pytest.fixture(scope="module")
def thread_audit(tmp_path_factory) -> dict:
    db = tmp_path_factory.mktemp("thread") / "store.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(audit_command(db, "--executor", "local"), cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    return {**outcome(done.stdout), "executions": executions_of(done.stdout)}


def fetched(node) -> list[Path]:
    return sorted((node.cache / "fetched").glob("*.ready"))


def test_an_audit_through_the_cluster_matches_the_thread_executor(cluster, thread_audit, tmp_path) -> None:
    got = run_audit(tmp_path / "store.db", cluster.client_env(), "--executor", "ray", "--ray-address", cluster.address)
    assert got == {k: v for k, v in thread_audit.items() if k != "executions"}
    assert any(v == "refuted" or v == "reward_hack" for v, _ in got["verdicts"].values())
    head, second = cluster.nodes
    # both nodes ran worlds: each fetched the snapshots of the tasks it ran, once, into its own cache
    assert fetched(head) and fetched(second)
    assert {p.name for p in fetched(head) + fetched(second)} == {p.name for p in fetched(head)} | {
        p.name for p in fetched(second)}
    assert len({p.name for p in fetched(head) + fetched(second)}) == 4  # the toolbox's four tasks


def test_cancel_stops_the_tests_running_on_the_nodes(cluster, tmp_path) -> None:
    from testjack_tui.worlds.ray_executor import RayExecutor
    from testjack_tui.worlds.request import ExecRequest

    root = write_repo(tmp_path / "repo", {"test_sleep.py": "import time\n\n\ndef test_sleep():\n    time.sleep(600)\n"})
    request = ExecRequest(snapshot=str(root), snapshot_digest=digest_of(root), command=FAST_PYTEST,
                          test_ids=("test_sleep.py",), timeout=900)
    alive = [n for n in cluster.nodes if n.alive()]

    def worlds() -> list[Path]:
        return [p for n in alive for p in (n.cache / "worlds").glob("run-*")]

    executor = RayExecutor(address=cluster.address, workers=1)
    try:
        results = executor.run_all([replace(request, attempt=i) for i in range(len(alive))])
        started = time.monotonic()
        # one sleeping test on every node, then cancel from another thread, as the console does
        import threading

        def cancel_when_running() -> None:
            wait_for(lambda: len(worlds()) == len(alive), "a sleeping test on every node")
            executor.cancel()

        canceller = threading.Thread(target=cancel_when_running)
        canceller.start()
        assert list(results) == []  # nothing is handed back once cancelled
        canceller.join()
        # the backends killed the tests and removed their worlds, long before the test's 600 s
        wait_for(lambda: not worlds(), "the cancelled worlds to be removed", timeout=120)
        assert time.monotonic() - started < 300
    finally:
        executor.close()


@pytest.mark.docker
def test_a_docker_request_lands_only_on_a_node_with_the_docker_resource(cluster, engine, tmp_path) -> None:
    from testjack_tui.worlds.ray_executor import RayExecutor
    from testjack_tui.worlds.request import ExecRequest

    root = write_repo(tmp_path / "repo", {"test_ok.py": "def test_ok():\n    assert 1 + 1 == 2\n"})
    request = ExecRequest(snapshot=str(root), snapshot_digest=digest_of(root), backend="docker",
                          test_ids=("test_ok.py",), timeout=300)
    executor = RayExecutor(address=cluster.address, workers=1)
    try:
        import ray

        second = next(n["NodeID"] for n in ray.nodes() if n["Alive"] and n["Resources"].get("docker"))
        got = list(executor.run_all([replace(request, attempt=i) for i in range(3)]))
        assert [res.outcomes for _, res in got] == [{"test_ok.py": "pass"}] * 3, [r.message for _, r in got]
        assert dict(executor.ran_on) == {second: 3}
    finally:
        executor.close()


def test_the_audit_survives_the_death_of_a_node(cluster, thread_audit, tmp_path) -> None:
    from testjack_tui.store import Store

    victim = cluster.nodes[1]  # the second node (last test of the module: the cluster goes with it)
    db = tmp_path / "store.db"
    proc = subprocess.Popen(audit_command(db, "--executor", "ray", "--ray-address", cluster.address),
                            cwd=ROOT, env=cluster.client_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)

    def executions() -> int:
        if not db.exists():
            return 0
        try:
            store = Store(db)
        except Exception:  # being created
            return 0
        try:
            return store.summary("toolbox").executions
        except Exception:  # not imported yet
            return 0
        finally:
            store.close()

    try:
        # mid-audit (half of its executions are in the store) and mid-request: the node runs a
        # test, in a world of its own under its cache
        wait_for(lambda: proc.poll() is not None or executions() >= thread_audit["executions"] // 2,
                 "half of the audit's executions", timeout=1200, every=0.5)
        wait_for(lambda: proc.poll() is not None or list((victim.cache / "worlds").glob("run-*")),
                 "a test run on the node to kill")
        assert proc.poll() is None, "the audit ended before the node was killed"
        cluster.kill(victim)
        stdout, stderr = proc.communicate(timeout=1800)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr[-3000:]
    assert not victim.alive()
    assert outcome(stdout) == {k: v for k, v in thread_audit.items() if k != "executions"}
