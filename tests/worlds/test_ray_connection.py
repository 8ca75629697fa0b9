"""One process, one Ray connection: the console may audit several runs at once on the cluster.

The first executor joins the cluster; later ones share that connection; the last to close ends it,
so an audit that finishes never cuts off another that still runs. A connection someone else made
(a script's own ``ray.init``) is used and never ended. Ray's ``init`` and ``shutdown`` are replaced
by recorders here: what is checked is who ends the connection, not Ray itself
(tests/worlds/test_ray_cluster.py runs a real cluster).
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
