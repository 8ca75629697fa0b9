"""The console's audits run their tests on the executor it was opened with, as ``testjack audit`` does.

``testjack open --executor ray --ray-address ADDR`` (or ``$TESTJACK_RAY_ADDRESS``): every audit the
console starts (``--audit``, the form, a resume) asks for that executor; its thread stays the only
writer of the store. The executor is replaced here by a recorder that runs the requests in threads,
so no cluster is needed; tests/worlds/test_ray_cluster.py runs audits on a real one.
"""

from __future__ import annotations

import pytest

from testjack_tui.store import Store
from testjack_tui.app.app import TestJackApp
from testjack_tui.audit import AuditOptions
from testjack_tui.audit import execution
from testjack_tui.cli import main
from testjack_tui.worlds.executor import Executor

from .helpers import settle


@pytest.fixture
def executors(monkeypatch) -> list[tuple[str, int, str | None]]:
    """Every executor the audits ask for: (kind, workers, address); each runs its requests in threads."""
    asked: list[tuple[str, int, str | None]] = []

    def recorded(kind: str, workers: int, ray_address: str | None = None):
        asked.append((kind, workers, ray_address))
        return Executor(workers=workers)

    monkeypatch.setattr(execution, "make_executor", recorded)
    return asked


async def test_the_consoles_audits_run_on_the_executor_it_was_opened_with(demo_store, executors):
    app = TestJackApp(demo_store, run_id="demo", executor="ray", ray_address="head:6379")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.start_run_audit("demo", AuditOptions(author="none", rounds=1))  # what the form hands over
        job = app.audits.jobs["demo"]
        assert (job.options.executor, job.options.ray_address) == ("ray", "head:6379")
        await pilot.pause()
        assert any("tests on the Ray cluster at head:6379" in n.message for n in app._notifications)
        await job.worker.wait()
        await settle(pilot)
        assert job.status == "done"
    assert executors and all(kind == "ray" and address == "head:6379" for kind, _, address in executors)
    store = Store(demo_store)
    assert store.list_audits("demo")[-1]["status"] == "done"  # written by the console's audit thread
    store.close()


async def test_a_console_opened_without_an_executor_audits_in_threads(demo_store, executors):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.start_run_audit("demo", AuditOptions(author="none", rounds=1))
        await app.audits.jobs["demo"].worker.wait()
        await settle(pilot)
    assert executors and {kind for kind, _, _ in executors} == {"local"}


async def test_a_cluster_the_console_cannot_join_fails_the_audit_before_any_step(demo_store, monkeypatch):
    def unreachable(kind: str, workers: int, ray_address: str | None = None):
        raise execution.ExecutorUnavailable(f"cannot join the Ray cluster at {ray_address}: no answer")

    monkeypatch.setattr(execution, "make_executor", unreachable)
    app = TestJackApp(demo_store, run_id="demo", executor="ray", ray_address="nowhere:6379")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.start_run_audit("demo", AuditOptions(author="none", rounds=1))
        job = app.audits.jobs["demo"]
        await job.worker.wait()
        await settle(pilot)
        assert job.status == "failed"
        assert any("cannot join the Ray cluster at nowhere:6379" in n.message for n in app._notifications)
    store = Store(demo_store)
    assert store.list_audits("demo") == []  # no audit was started, so none is left "interrupted"
    store.close()


def test_open_passes_the_executor_to_the_console(demo_store, monkeypatch, capsys):
    import sys

    from testjack_tui.app import main as console_main

    opened: list[dict] = []
    monkeypatch.setattr(console_main, "run_console", lambda *a, **kw: opened.append(kw))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setenv("TESTJACK_RAY_ADDRESS", "env-head:6379")
    assert main(["open", "--store", str(demo_store), "--executor", "ray", "--ray-address", "head:6379"]) == 0
    assert main(["open", "demo", "--store", str(demo_store), "--executor", "ray"]) == 0
    assert main(["--store", str(demo_store)]) == 0  # no command: the console, in threads
    assert [(kw["executor"], kw["ray_address"]) for kw in opened] == [
        ("ray", "head:6379"), ("ray", "env-head:6379"), ("local", None)]
    # an address without the Ray executor is refused, as by testjack audit
    assert main(["open", "--store", str(demo_store), "--ray-address", "auto"]) == 2
    assert "--ray-address is for --executor ray" in capsys.readouterr().err


def _outcome(path) -> dict:
    store = Store(path)
    try:
        verdicts = {t: (str(v.verdict), sorted(v.witnesses)) for t, v in store.list_verdicts("demo").items()}
        results = {w.id: sorted((k, str(r.outcome), tuple(r.runs)) for k, r in store.witness_results(w.id).items())
                   for w in store.list_witnesses("demo", "chunk")}
        return {"verdicts": verdicts, "results": results, "audit": store.list_audits("demo")[-1]["status"]}
    finally:
        store.close()


async def _console_audit(path, executor: str) -> str:
    app = TestJackApp(path, run_id="demo", executor=executor)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.start_run_audit("demo", AuditOptions(author="offline", rounds=1))
        job = app.audits.jobs["demo"]
        await job.worker.wait()
        await settle(pilot)
        return job.status


@pytest.mark.slow
async def test_a_console_audit_on_ray_gives_what_a_console_audit_in_threads_gives(tmp_path, demo_store):
    """For real: a private Ray joined as ``testjack open --executor ray`` joins it (run_console)."""
    pytest.importorskip("ray")
    from testjack_tui.app.main import join_executor
    from testjack_tui.cli.common import DEFAULT_WORKERS
    from tests.app.conftest import build_demo_store

    assert await _console_audit(demo_store, "local") == "done"
    on_ray = tmp_path / "ray" / "testjack.db"
    build_demo_store(on_ray, tmp_path / "ray-work").close()
    held = join_executor("ray", None, DEFAULT_WORKERS)  # on the main thread, before the console opens
    try:
        assert await _console_audit(on_ray, "ray") == "done"
    finally:
        held.close()
    import ray

    assert not ray.is_initialized()  # the session's hold was the last
    assert _outcome(on_ray) == _outcome(demo_store)


def test_a_cluster_that_cannot_be_joined_stops_open_before_the_console_opens(demo_store, monkeypatch, capsys):
    import sys

    def unreachable(kind: str, workers: int, ray_address: str | None = None):
        raise execution.ExecutorUnavailable(f"cannot join the Ray cluster at {ray_address}: no answer")

    def never(self):
        raise AssertionError("the console opened")

    monkeypatch.setattr(execution, "make_executor", unreachable)
    monkeypatch.setattr(TestJackApp, "run", never)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert main(["open", "--store", str(demo_store), "--executor", "ray", "--ray-address", "nowhere:6379"]) == 3
    assert "cannot join the Ray cluster at nowhere:6379" in capsys.readouterr().err
