"""One process, one Ray connection: the console may audit several runs at once on the cluster.

The first executor joins the cluster; later ones share that connection; the last to close ends it,
so an audit that finishes never cuts off another that still runs. A connection someone else made
(a script's own ``ray.init``) is used and never ended. Ray's ``init`` and ``shutdown`` are replaced
by recorders here: what is checked is who ends the connection, not Ray itself
(tests/worlds/test_ray_cluster.py runs a real cluster).

An address nobody answers on is refused at once with exit 3 (the real ``ray.init`` would retry it
for minutes): that test runs the command itself.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ray")

from testjack_tui.worlds import ray_executor  # noqa: E402
from testjack_tui.worlds.ray_executor import RayExecutor  # noqa: E402


@pytest.fixture
def fake_ray(monkeypatch) -> dict:
    state = {"up": False, "inits": [], "shutdowns": 0}

    def init(address=None, **options):
        state["up"] = True
        state["inits"].append(address)

    def shutdown():
        state["up"] = False
        state["shutdowns"] += 1

    monkeypatch.setattr(ray_executor.ray, "is_initialized", lambda: state["up"])
    monkeypatch.setattr(ray_executor.ray, "init", init)
    monkeypatch.setattr(ray_executor.ray, "shutdown", shutdown)
    monkeypatch.setattr(ray_executor, "probe_head", lambda address: None)  # no head listens for the fake
    return state


def test_executors_share_the_connection_and_the_last_one_ends_it(fake_ray) -> None:
    first = RayExecutor("head:6379")
    second = RayExecutor("head:6379")
    assert fake_ray["inits"] == ["head:6379"]  # joined once
    first.close()
    assert fake_ray["up"] and fake_ray["shutdowns"] == 0  # the second audit still runs on it
    second.close()
    assert not fake_ray["up"] and fake_ray["shutdowns"] == 1
    again = RayExecutor("head:6379")  # a later audit joins anew
    assert fake_ray["inits"] == ["head:6379", "head:6379"]
    again.close()


def test_a_second_cluster_in_the_same_process_is_refused(fake_ray) -> None:
    first = RayExecutor("head:6379")
    try:
        with pytest.raises(ValueError, match="already connected to the Ray cluster at head:6379"):
            RayExecutor("other:6379")
    finally:
        first.close()
    assert fake_ray["shutdowns"] == 1


def test_a_connection_made_by_someone_else_is_never_ended(fake_ray) -> None:
    fake_ray["up"] = True  # the caller's own ray.init
    executor = RayExecutor("auto")
    executor.close()
    assert fake_ray["up"] and fake_ray["inits"] == [] and fake_ray["shutdowns"] == 0


def test_an_unreachable_address_exits_3_at_once_naming_it(tmp_path) -> None:
    """Ray itself retries an address nobody answers on for minutes, printing a warning each time;
    the audit ends with the environment's exit code and says what to do instead."""
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    with socket.socket() as closed:  # bound, never listening: every connection to it is refused
        closed.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{closed.getsockname()[1]}"
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "testjack_tui.cli", "audit", str(root / "sample_runs" / "mini"),
             "--executor", "ray", "--ray-address", address, "--store", str(tmp_path / "s.db")],
            capture_output=True, text=True, cwd=root, timeout=120,
        )
    assert proc.returncode == 3, proc.stderr
    assert time.monotonic() - started < 60
    assert f"cannot join the Ray cluster at {address}: nothing accepts connections at {address}" in proc.stderr
    assert "ray start --head" in proc.stderr and "Traceback" not in proc.stderr


def test_the_head_is_probed_only_for_host_and_port_addresses() -> None:
    assert ray_executor.head_endpoint("10.0.0.5:6379") == ("10.0.0.5", 6379)
    assert ray_executor.head_endpoint("ray://head:10001") == ("head", 10001)
    assert ray_executor.head_endpoint("[::1]:6379") == ("::1", 6379)
    assert ray_executor.head_endpoint("auto") is None  # Ray finds the local cluster itself
