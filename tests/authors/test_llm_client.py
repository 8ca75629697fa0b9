"""The LLM author's calls over real HTTP: configuration, retries, streaming, budget, records.

The real ``openai`` client talks to a scripted OpenAI-compatible server on loopback; the contexts
come from a real audit of the mini sample in a store under tmp_path (nothing is executed here).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripted_server import ScriptedServer, make, answer, garbage, rate_limited, server_error, tool_call, tool_calls

from testjack_tui.store import Store
from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.worlds.cancel import Cancelled
from testjack_tui.authors.base import AuthorUnavailable
from testjack_tui.authors.factory import make_author
from testjack_tui.authors.llm import BudgetExhausted, EndpointFailed, LLMAuthor
from testjack_tui.authors.llm.agent import CHECKLIST_TOOLS, Session
from testjack_tui.formats.importing import import_path
from testjack_tui.model import EvidenceKind, Evidence

MINI = Path(__file__).resolve().parents[2] / "sample_runs" / "mini"




def context(store, author, trial_id: str | None = "chunk-t3"):
    audit = Audit(store, "mini", AuditOptions(author="llm"), author=author)
    task = store.get_task("mini", "chunk")
    trial = store.get_trial("mini", trial_id) if trial_id else None
    return audit._context(task, trial)


# ---------------------------------------------------------------------- configuration


def test_no_endpoint_says_what_to_set(monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TESTJACK_MODEL", "m")
    with pytest.raises(AuthorUnavailable, match="OPENAI_BASE_URL.*OPENAI_API_KEY"):
        make_author("llm")


def test_missing_model_and_bad_prices_are_named(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("TESTJACK_MODEL", raising=False)
    with pytest.raises(AuthorUnavailable, match="TESTJACK_MODEL"):
        make_author("llm")
    monkeypatch.setenv("TESTJACK_MODEL", "m")
    monkeypatch.setenv("TESTJACK_PRICES", '{"m": 3}')
    with pytest.raises(AuthorUnavailable, match="TESTJACK_PRICES"):
        make_author("llm")


def test_environment_configures_endpoint_model_prices_and_budget(monkeypatch, server):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # local servers need no key
    monkeypatch.setenv("TESTJACK_MODEL", "local-model")
    monkeypatch.setenv("TESTJACK_PRICES", '{"local-model": [1.0, 2.0]}')
    monkeypatch.setenv("TESTJACK_LLM_BUDGET", '{"run_usd": 5}')
    author = make_author("llm")
    assert author.settings.price() == (1.0, 2.0)
    assert author.settings.budget == {"run_usd": 5.0}
    assert author.settings.base_url == server.base_url


# ---------------------------------------------------------------------- calls, retries, records


def test_rate_limits_server_errors_and_garbage_are_retried_and_recorded(server, store):
    delays: list[float] = []
    author = make(server, backoff_s=0.01, backoff_cap_s=5)
    author.client._sleep = delays.append
    server.script(rate_limited(retry_after=2), server_error(503), garbage(), answer("hello", usage=(50, 7)))
    ctx = context(store, author)
    reply = author.client.chat(ctx, "probe", [{"role": "user", "content": "hi"}], None)
    assert reply.content == "hello"
    calls = store.list_llm_calls("mini")
    assert [c.outcome for c in calls] == ["http 429", "http 503", "bad response", "ok"]
    assert all(c.trial_id == "chunk-t3" and c.task_id == "chunk" and c.purpose == "probe" for c in calls)
    assert (calls[-1].prompt_tokens, calls[-1].completion_tokens) == (50, 7)
    assert delays[0] == 2  # Retry-After honoured, then exponential backoff
    assert delays[1:] == [0.02, 0.04]
    assert json.loads(calls[-1].transcript)["reply"]["content"] == "hello"


def test_endpoint_that_keeps_failing_stops_the_audit_resumably(server, store):
    author = make(server, max_retries=2)
    server.script(server_error(), server_error(), server_error())
    with pytest.raises(EndpointFailed, match="failed 3 times") as info:
        author.client.chat(context(store, author), "probe", [{"role": "user", "content": "hi"}], None)
    assert isinstance(info.value, Cancelled)  # the engine stops without marking the step done
    assert len(server.requests) == 3


def test_a_refused_request_is_not_retried(server, store):
    author = make(server)
    server.script(server_error(401), answer("never"))
    with pytest.raises(EndpointFailed, match="refused"):
        author.client.chat(context(store, author), "probe", [{"role": "user", "content": "hi"}], None)
    assert len(server.requests) == 1


def test_streamed_tool_calls_are_reassembled(server, store):
    author = make(server, stream=True)
    server.script(tool_call("finish", {"report": "all good"}, stream=True, usage=(30, 4)))
    reply = author.client.chat(context(store, author), "probe", [{"role": "user", "content": "hi"}], None)
    assert server.requests[0]["stream"] is True
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [("finish", {"report": "all good"})]
    assert store.llm_totals("mini", "chunk-t3") == (34, 0.0)


# ---------------------------------------------------------------------- budget


def test_budget_refuses_a_call_before_it_is_sent(server, store):
    author = make(server, prices={"scripted": [10.0, 30.0]}, budget={"trial_usd": 0.05}, max_tokens=1000)
    ctx = context(store, author)
    server.script(answer("first", usage=(10, 10)))
    with pytest.raises(BudgetExhausted, match="money budget per trial") as info:
        # 1000 completion tokens at $30/1k alone could cost $30: refused up front
        author.client.chat(ctx, "probe", [{"role": "user", "content": "hi"}], None)
    assert isinstance(info.value, Cancelled)
    assert server.requests == []
    assert store.list_llm_calls("mini") == []


def test_spending_is_counted_per_trial_and_per_run(server, store):
    author = make(server, prices={"scripted": [1.0, 2.0]}, budget={"run_tokens": 2000}, max_tokens=100)
    server.script(answer("a", usage=(900, 100)), answer("b", usage=(10, 10)))
    msgs = [{"role": "user", "content": "hi"}]
    author.client.chat(context(store, author, "chunk-t1"), "probe", msgs, None)
    assert store.llm_totals("mini") == (1000, pytest.approx(0.9 + 0.2))
    author.client.chat(context(store, author, "chunk-t3"), "probe", msgs, None)
    assert store.llm_totals("mini", "chunk-t3") == (20, pytest.approx(0.03))
    # the run is now at 1020 tokens; a call that may take 100 + its prompt still fits under 2000,
    # one asking for 1000 completion tokens does not
    author.client.settings.max_tokens = 1000
    with pytest.raises(BudgetExhausted, match="token budget per run"):
        author.client.chat(context(store, author, "chunk-t1"), "probe", msgs, None)


def test_a_call_in_flight_is_recorded_and_counted_before_its_reply(server, store, tmp_path):
    """A process killed while a call is in flight must not undercount the budget: the call's row
    is written before the request is sent, at its worst case, and completed by the reply."""
    import threading

    arrived, release = threading.Event(), threading.Event()

    def held(body):  # the server has the request; it answers once the test has looked
        arrived.set()
        release.wait()
        return answer("late", usage=(40, 5))

    author = make(server, prices={"scripted": [1.0, 2.0]}, budget={"run_tokens": 1200}, max_tokens=1000)
    server.script(held)
    msgs = [{"role": "user", "content": "hi"}]
    box: dict = {}
    caller = threading.Thread(target=lambda: box.update(reply=author.client.chat(context(store, author), "probe", msgs, None)))
    caller.start()
    try:
        assert arrived.wait(10)
        # what a process resuming after a kill now would see, through a connection of its own
        other = Store(store.path)
        (call,) = other.list_llm_calls("mini")
        assert call.outcome == "in flight" and call.completion_tokens == 1000 and call.prompt_tokens > 0
        tokens, usd = other.llm_totals("mini")
        assert tokens == call.prompt_tokens + 1000 and usd == pytest.approx(call.cost_usd) and usd > 2.0
        # a call of up to 300 tokens would fit beside the finished call (45 tokens); beside this one it does not
        fresh = make(server, budget={"run_tokens": 1200}, max_tokens=300)
        with pytest.raises(BudgetExhausted, match="token budget per run"):
            fresh.client.chat(context(other, fresh), "probe", msgs, None)
        other.close()
    finally:
        release.set()
        caller.join(10)
    assert box["reply"].content == "late"
    (call,) = store.list_llm_calls("mini")  # the same row, completed with what the call took
    assert (call.outcome, call.prompt_tokens, call.completion_tokens) == ("ok", 40, 5)
    assert store.llm_totals("mini") == (45, pytest.approx(0.04 + 0.01))


# ---------------------------------------------------------------------- the agent loop


def test_malformed_tool_calls_are_answered_with_the_error(server, store):
    author = make(server)
    ctx = context(store, author)
    server.script(
        tool_call("submit_checklist", "{not json"),
        tool_calls(("delete_everything", {}), ("submit_checklist", {"items": [{"text": "x", "kind": "sort-of"}]})),
        tool_call("submit_checklist", {"items": [{"text": "empty list gives []", "kind": "explicit",
                                                  "covered_by_t0": False, "implemented": True}]}),
    )
    reqs = author.requirements(ctx)
    assert [(r.id, r.text, r.covered_by_t0, r.implemented, r.trial_id) for r in reqs] == [
        ("chunk-t3:r1", "empty list gives []", False, True, "chunk-t3")
    ]
    second = server.requests[1]["messages"][-1]
    assert second["role"] == "tool" and "not valid JSON" in second["content"]
    third = [m["content"] for m in server.requests[2]["messages"][-2:]]
    assert "unknown tool 'delete_everything'" in third[0]
    assert "items.0.kind" in third[1]


def test_too_many_malformed_calls_end_the_session(server, store):
    author = make(server, max_bad_calls=1)
    server.script(tool_call("read_file", "[]"), answer("no tools for me"), answer("never sent"))
    result = Session(author.client, context(store, author), "checklist", "go", CHECKLIST_TOOLS).run()
    assert result.stopped == "bad calls" and result.checklist is None
    assert len(server.requests) == 2


def test_tools_read_list_and_search_the_worlds(server, store):
    author = make(server)
    ctx = context(store, author)
    ctx.evidence = [Evidence("mini", "chunk-t3", EvidenceKind.DETECTOR, "returns a literal list",
                             file="listkit/chunk.py", line=9, detector="hardcoded")]
    server.script(
        tool_calls(
            ("list_files", {"world": "model", "folder": "listkit"}),
            ("list_files", {"world": "null", "folder": "listkit"}),
            ("read_file", {"world": "model", "path": "listkit/chunk.py", "start_line": 8, "end_line": 9}),
            ("search", {"world": "reference", "pattern": "raise ValueError"}),
            ("read_diff", {"which": "tests"}),
            ("read_evidence", {}),
        ),
        tool_call("finish", {"report": "done"}),
    )
    from testjack_tui.authors.llm.agent import AUDIT_TOOLS

    result = Session(author.client, ctx, "audit", "go", AUDIT_TOOLS).run()
    assert result.report == "done"
    answers = [m["content"] for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert answers[0].splitlines() == ["listkit/__init__.py", "listkit/chunk.py", "listkit/flatten.py"]
    assert "listkit/chunk.py" not in answers[1]  # the null world has no chunk.py
    assert "return [[1, 2], [3, 4], [5]]" in answers[2]
    assert answers[3].startswith("listkit/chunk.py:7:")
    assert "test_remainder" in answers[4]
    assert "hardcoded" in answers[5] and "listkit/chunk.py:9" in answers[5]


def test_every_call_of_a_task_starts_with_the_same_prefix(server, store):
    author = make(server)
    item = {"items": [{"text": "t", "kind": "explicit"}]}
    server.script(tool_call("submit_checklist", item), tool_call("submit_checklist", item))
    author.requirements(context(store, author, "chunk-t1"))
    author.requirements(context(store, author, None))
    first, second = (r["messages"] for r in server.requests)
    assert first[:2] == second[:2]
    assert "chunk(items, size)" in first[1]["content"] and "reference patch" in first[1]["content"].lower()
    assert first[2] != second[2]


def test_recorded_transcript_is_readable(server, store):
    from testjack_tui.authors.llm.transcript import render_transcript

    author = make(server, prices={"scripted": [1.0, 1.0]})
    server.script(tool_call("submit_checklist", {"items": [{"text": "t", "kind": "explicit"}]}, usage=(500, 500)))
    author.requirements(context(store, author))
    (call,) = store.list_llm_calls("mini")
    text = render_transcript(call)
    assert text.splitlines()[0].startswith("checklist · scripted · 500+500 tokens · $1.0000")
    assert "--- system" in text and "Step: requirements checklist" in text
    assert '→ submit_checklist({"items"' in text
