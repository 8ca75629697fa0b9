"""Issue 39 in the console: the audit form's Model and Base URL for the LLM author, and the
preflight an LLM audit runs in its worker before it starts.

Real HTTP: the scripted OpenAI-compatible server of ``tests/authors`` on loopback, asked by the real
``openai`` client; the store is conftest's demo store.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest
from textual.widgets import Input, Select

from testjack_tui.app.app import TestJackApp
from testjack_tui.app.screens.forms import AuditForm
from testjack_tui.app.workers import AuditJob
from testjack_tui.audit import AuditOptions, Progress
from testjack_tui.review.lifecycle import record_progress
from testjack_tui.store import Store

from .helpers import settle, text_of

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "authors"))  # the scripted server lives there
from scripted_server import ScriptedServer, answer, tool_call  # noqa: E402

WIDE = (160, 48)


@pytest.fixture(autouse=True)
def no_llm_environment(monkeypatch, config_dir):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "TESTJACK_MODEL", "OPENAI_MODEL", "TESTJACK_LLM_OPTIONS",
                 "TESTJACK_LLM_HEADERS", "TESTJACK_LLM_BUDGET", "TESTJACK_PRICES"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server():
    with ScriptedServer() as s:
        yield s


def messages(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


def every_message(app) -> list[str]:
    """Every notification the app shows from now on, kept after it times out on screen."""
    seen: list[str] = []
    show = app.notify

    def notify(message, *args, title="", **kwargs):
        seen.append(f"{title}: {message}")
        return show(message, *args, title=title, **kwargs)

    app.notify = notify
    return seen


def audits(store_path) -> int:
    store = Store(store_path)
    try:
        return len(store.list_audits("demo"))
    finally:
        store.close()


async def fill_in_llm(pilot, model: str, base_url: str) -> AuditForm:
    """Open the audit form (a), choose the LLM author and type its model and base URL."""
    await pilot.press("a")
    await pilot.pause()
    form = pilot.app.screen
    assert isinstance(form, AuditForm)
    settings = form.query_one("#llm-settings")
    assert not settings.display  # the offline author has no server to name
    form.query_one("#author", Select).value = "llm"
    await pilot.pause()
    assert settings.display
    for field, text in (("#model", model), ("#base-url", base_url)):
        form.query_one(field, Input).focus()
        await pilot.press(*text)
    return form


async def test_the_form_hands_model_and_base_url_to_the_audit(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    started = []
    app.audits.start = lambda run_id, options: started.append(options) or AuditJob(run_id, options)  # type: ignore
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await fill_in_llm(pilot, "qwen3-coder", "http://127.0.0.1:8000/v1")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("a")  # empty fields: the environment's model and server hold
        await pilot.pause()
        app.screen.query_one("#author", Select).value = "llm"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert [(o.author, o.author_options) for o in started] == [
        ("llm", {"model": "qwen3-coder", "base_url": "http://127.0.0.1:8000/v1"}), ("llm", {})]


async def test_the_llm_fields_hide_again_for_another_author(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    started = []
    app.audits.start = lambda run_id, options: started.append(options) or AuditJob(run_id, options)  # type: ignore
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        form = await fill_in_llm(pilot, "m", "http://127.0.0.1:8000/v1")
        form.query_one("#author", Select).value = "offline"
        await pilot.pause()
        assert not form.query_one("#llm-settings").display
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert [(o.author, o.author_options) for o in started] == [("offline", {})]


async def test_a_server_without_tool_calling_stops_the_audit_before_it_starts(demo_store, server):
    server.script(answer("Ready! How can I help you today?"))
    before = audits(demo_store)
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await fill_in_llm(pilot, "scripted", server.base_url)
        await pilot.press("ctrl+s")
        await settle(pilot)
        said = messages(app)
        assert any(m.startswith("Audit not started: the audit of demo did not start: the LLM author cannot work: "
                                f"scripted at {server.base_url} answered without calling a tool") for m in said), said
        assert "demo" not in app.audits.jobs  # nothing runs, nothing to cancel
    assert audits(demo_store) == before  # nothing recorded
    assert len(server.requests) == 1  # the check's one round trip, no agent session


async def test_nothing_listening_on_the_base_url_is_said_and_nothing_starts(demo_store):
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}/v1"
    before = audits(demo_store)
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await fill_in_llm(pilot, "scripted", base_url)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert any(f"did not start: the LLM author cannot work: nothing answers at {base_url}" in m
                   for m in messages(app)), messages(app)
        assert "demo" not in app.audits.jobs
    assert audits(demo_store) == before


async def test_no_model_anywhere_is_said_and_nothing_starts(demo_store, server):
    before = audits(demo_store)
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await fill_in_llm(pilot, "", server.base_url)  # no model field, no TESTJACK_MODEL or OPENAI_MODEL
        await pilot.press("ctrl+s")
        await settle(pilot)
        said = [m for m in messages(app) if "did not start: the LLM author cannot work: " in m]
        assert said and "TESTJACK_MODEL" in said[0], messages(app)
        assert "demo" not in app.audits.jobs
    assert audits(demo_store) == before
    assert server.requests == []  # not even the check's call


async def test_an_interrupted_audit_stays_resumable_when_its_llm_author_cannot_work(demo_store, server):
    store = Store(demo_store)  # a console killed mid-audit left it running
    store.start_audit("demo", "lightweight", "llm", 0, 3, "", endpoint={"model": "scripted", "base_url": server.base_url})
    record_progress(store, "demo", Progress("witnesses", 4, 10), AuditOptions(author="llm"))
    store.close()
    server.script(answer("Ready!"))
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert "demo" in app.interrupted
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert form.query_one("#llm-settings").display  # the interrupted audit's author, model and URL
        assert (form.query_one("#model", Input).value, form.query_one("#base-url", Input).value) == (
            "scripted", server.base_url)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert any("did not start" in m for m in messages(app))
        assert "demo" in app.interrupted  # a still resumes it, once the server calls tools
        assert "audit interrupted at 40% — press a to resume" in text_of(app.screen.query_one("#audit-status"))


@pytest.mark.slow  # a whole (short) audit of the demo run, tests and all
async def test_a_working_server_says_so_and_the_audit_starts(demo_store, server):
    server.script(tool_call("report_status", {"status": "ready"}))
    server.default = lambda body: tool_call("finish", {"report": "nothing found"})
    before = audits(demo_store)
    app = TestJackApp(demo_store, run_id="demo")
    said = every_message(app)  # the check's line expires while a loaded machine audits
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await fill_in_llm(pilot, "scripted", server.base_url)
        await pilot.press("ctrl+s")
        await settle(pilot, rounds=200)
        assert f"Audit: demo: LLM check: works: scripted at {server.base_url} calls tools" in said, said
        assert any(m.startswith("Audit finished: demo") for m in said), said
    assert audits(demo_store) == before + 1
