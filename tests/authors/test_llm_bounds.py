"""The LLM author's bounds over real HTTP: a deadline per request, caps on what is read, kept,
sent back and stored, and sessions that fail loudly instead of ending with nothing.

The real ``openai`` client talks to the scripted server on loopback, which here also misbehaves
on purpose (a reply trickled a byte at a time, a reply of tens of megabytes). Contexts come from
a real audit of the mini sample in a store under tmp_path; nothing is executed.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from scripted_server import ScriptedServer, make, answer, flood, tool_call, tool_calls, trickle

from testjack_tui.store import Store
from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.worlds.cancel import Cancelled
from testjack_tui.authors.base import AuthorFailed, Candidate
from testjack_tui.authors.llm import EndpointFailed, LLMAuthor
from testjack_tui.authors.llm.agent import AUDIT_TOOLS, Session
from testjack_tui.authors.llm.client import clip
from testjack_tui.authors.llm.transcript import render_session
from testjack_tui.formats.importing import import_path
from testjack_tui.model import RequirementKind

MINI = Path(__file__).resolve().parents[2] / "sample_runs" / "mini"
HI = [{"role": "user", "content": "hi"}]
CHECKLIST = {"items": [{"text": "an empty list gives no chunks", "kind": "explicit"}]}
MB = 1024 * 1024




def context(store, author, trial_id: str | None = "chunk-t3", cancel: threading.Event | None = None):
    audit = Audit(store, "mini", AuditOptions(author="llm"), author=author, cancel=cancel)
    task = store.get_task("mini", "chunk")
    trial = store.get_trial("mini", trial_id) if trial_id else None
    return audit._context(task, trial)


# ---------------------------------------------------------------------- the deadline


@pytest.mark.parametrize(
    "phase, stream", [("headers", False), ("body", False), ("body", True)], ids=["headers", "body", "streamed-body"]
)
def test_a_trickling_server_is_cut_off_at_the_deadline_and_the_call_recorded(server, store, phase, stream):
    # a byte every 0.2 s: no single read ever waits long, only the whole request does
    author = make(server, timeout_s=1.5, max_retries=0, stream=stream)
    server.script(trickle(phase=phase, interval=0.2))
    started = time.monotonic()
    with pytest.raises(EndpointFailed, match="timeout"):
        author.client.chat(context(store, author), "probe", HI, None)
    elapsed = time.monotonic() - started
    assert 1.4 <= elapsed < 2.5
    # the connection itself was closed, not left to trickle on behind the client's back
    assert server.disconnected.wait(3)
    assert server.disconnected_after < 3.0
    (call,) = store.list_llm_calls("mini")
    assert call.outcome == "timeout" and call.trial_id == "chunk-t3" and call.purpose == "probe"
    assert 1.4 <= call.latency_s < 2.5
    assert "1.5 s" in json.loads(call.transcript)["error"]


def test_a_timed_out_attempt_is_retried_within_its_own_deadline(server, store):
    author = make(server, timeout_s=1.0, max_retries=1)
    server.script(trickle(phase="body", interval=0.2), answer("on time"))
    reply = author.client.chat(context(store, author), "probe", HI, None)
    assert reply.content == "on time"
    assert [c.outcome for c in store.list_llm_calls("mini")] == ["timeout", "ok"]


def test_cancelling_the_audit_abandons_the_call_in_flight(server, store):
    # the audit's own cancel event, found through the context the engine builds
    cancel = threading.Event()
    author = make(server, timeout_s=60, max_retries=3)
    ctx = context(store, author, cancel=cancel)

    def cancel_then_trickle(body):
        cancel.set()  # the user cancels while the request is in flight
        return trickle(phase="headers", interval=0.2)

    server.script(cancel_then_trickle)
    started = time.monotonic()
    with pytest.raises(Cancelled) as info:
        author.client.chat(ctx, "probe", HI, None)
    assert not isinstance(info.value, EndpointFailed)
    assert time.monotonic() - started < 2.0  # not the 60 s deadline
    assert server.disconnected.wait(3)
    assert len(server.requests) == 1  # no retry after a cancel
    (call,) = store.list_llm_calls("mini")
    assert call.outcome == "cancelled"


def test_the_proxy_of_the_environment_is_used(server, store, monkeypatch):
    # the scripted server plays the proxy: it gets the absolute URL of a host that does not exist
    proxy = server.base_url.rsplit("/v1", 1)[0]
    for name in ("HTTP_PROXY", "http_proxy"):
        monkeypatch.setenv(name, proxy)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    author = LLMAuthor(base_url="http://llm.invalid/v1", api_key="k", model="scripted", max_retries=0)
    server.script(answer("via the proxy"))
    assert author.client.chat(context(store, author), "probe", HI, None).content == "via the proxy"
    assert server.paths == ["http://llm.invalid/v1/chat/completions"]


# ---------------------------------------------------------------------- the caps


@pytest.mark.parametrize("content_length", [False, True], ids=["chunked", "content-length"])
def test_a_flood_is_not_read_past_the_cap(server, store, content_length):
    author = make(server, max_response_bytes=MB, max_retries=1)
    server.script(flood(60 * MB, content_length=content_length), answer("a normal reply"))
    reply = author.client.chat(context(store, author), "probe", HI, None)
    assert reply.content == "a normal reply"
    calls = store.list_llm_calls("mini")
    assert [c.outcome for c in calls] == ["too large", "ok"]
    assert "max_response_bytes" in json.loads(calls[0].transcript)["error"]
    assert server.disconnected.wait(3)
    assert server.sent[0] < 16 * MB  # the client stopped reading; the rest was never sent
    assert all(len(c.transcript) < 10_000 for c in calls)


def test_a_streamed_flood_is_cut_and_stays_small_in_later_requests_and_the_store(server, store):
    author = make(server, stream=True, max_response_bytes=MB, max_message_bytes=8_000)
    server.script(flood(60 * MB, stream=True), tool_call("finish", {"report": "done"}, stream=True))
    result = Session(author.client, context(store, author), "audit", "go", AUDIT_TOOLS).run()
    assert result.report == "done"
    assert server.sent[0] < 16 * MB
    kept = server.requests[1]["messages"][3]
    assert kept["role"] == "assistant"
    assert "truncated" in kept["content"] and "cut by TestJack" in kept["content"]
    assert len(kept["content"].encode()) < 8_200
    assert server.body_sizes[1] - server.body_sizes[0] < 10_000  # the flood added ~8 KB, not 60 MB
    calls = store.list_llm_calls("mini")
    assert [c.outcome for c in calls] == ["cut", "ok"]
    assert sum(len(c.transcript) for c in calls) < server.body_sizes[1] + 10_000


def test_oversized_text_arguments_and_tool_calls_are_bounded(server, store):
    author = make(server, max_message_bytes=4_000, max_tool_calls=3)
    huge_code = "def test_x():\n    assert True\n" + "# padding\n" * 50_000
    server.script(
        answer("y" * 300_000),  # a complete reply, within the socket cap, far over what is kept
        tool_call("propose_witness", {"requirement": "r", "kind": "explicit", "code": huge_code}),
        tool_calls(*[("read_diff", {"which": "tests"})] * 20),
        tool_call("finish", {"report": "done"}),
    )
    result = Session(author.client, context(store, author), "audit", "go", AUDIT_TOOLS).run()
    assert result.report == "done" and result.candidates == []
    second, third, fourth = (r["messages"] for r in server.requests[1:])
    text = second[3]["content"]
    assert text.startswith("yyy") and text.endswith("[... truncated 296000 bytes by TestJack]")
    assert third[-1]["role"] == "tool" and "more than the 4000 TestJack keeps" in third[-1]["content"]
    assert third[-2]["tool_calls"][0]["function"]["arguments"] == "{}"  # not sent back to the model
    assert [m["role"] for m in fourth[-5:]] == ["assistant", "tool", "tool", "tool", "user"]
    assert len(fourth[-5]["tool_calls"]) == 3  # 3 of the 20 calls kept and answered
    assert "17 more were dropped" in fourth[-1]["content"]
    assert max(server.body_sizes) < 60_000
    assert all(len(c.transcript) < 40_000 for c in store.list_llm_calls("mini"))


def test_a_session_is_stored_once_not_once_more_per_turn(server, store):
    author = make(server)
    turns = 12
    server.script(*[tool_call("read_diff", {"which": "reference"})] * (turns - 1), tool_call("finish", {"report": "ok"}))
    session = Session(author.client, context(store, author), "audit", "go", AUDIT_TOOLS)
    assert session.run().report == "ok"
    calls = store.list_llm_calls("mini")
    assert len(calls) == turns
    stored = sum(len(c.transcript) for c in calls)
    last_request = len(json.dumps(server.requests[-1]["messages"], ensure_ascii=False))
    # every message once (plus per-call headers); a copy per turn would be ~turns/2 times the last request
    assert stored < 1.3 * last_request
    parts = [json.loads(c.transcript) for c in calls]
    assert {p["session"] for p in parts} == {session.conversation.id}
    assert parts[0]["from"] == 0 and parts[0]["messages"][0]["role"] == "system"
    assert all(p["messages"][0]["role"] == "tool" for p in parts[1:])  # the new turns only
    text = render_session(calls, session.conversation.id)
    assert text.count("--- system") == 1 and text.count("→ read_diff") == turns - 1 and "→ finish" in text


def test_clip_cuts_on_a_character_boundary_and_says_how_much():
    assert clip("short", 10) == "short"
    cut = clip("é" * 10, 5)  # two bytes each: two whole characters fit
    assert cut == "éé\n[... truncated 16 bytes by TestJack]"


# ---------------------------------------------------------------------- sessions that fail


def test_four_malformed_calls_in_a_row_fail_the_audit(server, store):
    author = make(server)
    ctx = context(store, author)
    server.script(tool_call("submit_checklist", CHECKLIST), *[tool_call("propose_witness", "{not json")] * 4,
                  answer("never sent"))
    with pytest.raises(AuthorFailed, match="4 malformed tool calls in a row") as info:
        author.audit_trial(ctx)
    assert "audit session" in str(info.value) and "not valid JSON" in str(info.value)
    assert len(server.requests) == 5  # the checklist, then four audit turns


def test_a_good_call_resets_the_count_of_malformed_ones(server, store):
    author = make(server)
    bad = tool_call("read_file", "[]")
    server.script(bad, bad, bad, tool_call("read_diff", {"which": "tests"}), bad, bad, bad,
                  tool_call("finish", {"report": "found nothing"}))
    result = Session(author.client, context(store, author), "audit", "go", AUDIT_TOOLS).run()
    assert result.stopped == "finish" and result.bad_calls == 6


def test_a_broken_checklist_session_fails(server, store):
    author = make(server)
    server.script(*[answer("I would rather chat")] * 4)
    with pytest.raises(AuthorFailed, match="checklist session failed.*4 malformed.*called no tool"):
        author.requirements(context(store, author))


def test_an_audit_that_reaches_its_turn_limit_with_nothing_fails(server, store):
    author = make(server, max_turns=2)
    server.script(tool_call("submit_checklist", CHECKLIST), *[tool_call("read_diff", {"which": "trial"})] * 2)
    with pytest.raises(AuthorFailed, match="turn limit"):
        author.audit_trial(context(store, author))


def test_a_rejudgment_without_a_judgment_fails_instead_of_rejecting(server, store):
    author = make(server)
    server.script(*[tool_call("judge", {"decision": "maybe"})] * 4)
    cand = Candidate("the last list may be shorter", RequirementKind.EXPLICIT, "def test_x():\n    assert False\n")
    with pytest.raises(AuthorFailed, match="re-judgment session failed"):
        author.rejudge(context(store, author), cand, "AssertionError")


# ---------------------------------------------------------------------- the session's deadline


def slow(server: ScriptedServer, seconds: float, reply):
    """A reply that comes ``seconds`` late: under the request's deadline, so only the session's
    deadline can stop a session of such replies. (Waiting is the behaviour under test here.)"""
    def late(body):
        server.stopping.wait(seconds)
        return reply
    return late


def test_replies_just_under_the_request_deadline_cannot_hold_a_session_past_its_own(server, store):
    # without the session's deadline this session would run 40 turns of 0.5 s
    author = make(server, timeout_s=1.0, session_deadline_s=2.0, max_turns=40)
    server.default = slow(server, 0.5, tool_call("read_diff", {"which": "trial"}))
    started = time.monotonic()
    result = Session(author.client, context(store, author), "audit", "go", AUDIT_TOOLS).run()
    assert time.monotonic() - started < 3.0
    assert result.stopped == "deadline" and result.turns <= 5
    assert "passed its deadline of 2 s (session_deadline_s)" in result.problem
    # the last request was cut to what was left of the session, not given its full second
    assert sum(c.latency_s for c in store.list_llm_calls("mini")) < 2.5


def test_a_request_is_cut_at_the_session_deadline_and_the_trial_is_left_unaudited(tmp_path):
    """The whole audit: a server that never answers holds the trial's checklist session for
    session_deadline_s, not timeout_s (60 s here); the failed session leaves the trial unaudited,
    with the reason, never sound."""
    import json as json_
    from testjack_tui.model import Verdict

    problem = {
        "task_id": "Slow/0", "entry_point": "double",
        "prompt": 'def double(x: int) -> int:\n    """Twice x.\n    >>> double(2)\n    4\n    """\n',
        "canonical_solution": "    return 2 * x\n", "test": "def check(candidate):\n    assert candidate(3) == 6\n",
    }
    (tmp_path / "problems.jsonl").write_text(json_.dumps(problem) + "\n")
    (tmp_path / "samples.jsonl").write_text(json_.dumps({"id": "t", "task_id": "Slow/0", "completion": "    return x + x\n"}) + "\n")
    store = Store(tmp_path / "t.db")
    run_id = import_path(store, tmp_path).run_id
    never = threading.Event()
    with ScriptedServer() as server:
        server.default = lambda body: (never.wait(), answer("too late"))[1]
        author = make(server, timeout_s=60, session_deadline_s=1.5, max_retries=3)
        audit = Audit(store, run_id, AuditOptions(mode="per-trial", author="llm", evidence=False), author=author)
        try:
            assert audit.execute() == "done"
        finally:
            never.set()
    verdict = store.list_verdicts(run_id)["t"]
    assert verdict.verdict == Verdict.UNAUDITED
    assert "checklist session passed its deadline of 1.5 s (session_deadline_s)" in verdict.rule
    (call,) = store.list_llm_calls(run_id)  # cut once, at the session's deadline, and not retried
    assert call.outcome == "timeout" and 1.4 <= call.latency_s < 2.5


def test_every_session_of_a_trial_ends_by_the_trial_s_deadline(server, store):
    # each session alone would be allowed 30 s; the trial's sessions together, 1.5 s: its checklist
    # spends them all, and the audit (which asks for the checklist again) then fails at once
    author = make(server, timeout_s=1.0, session_deadline_s=30.0, trial_deadline_s=1.5, max_turns=40)
    server.default = slow(server, 0.4, tool_call("read_diff", {"which": "trial"}))
    ctx = context(store, author)
    started = time.monotonic()
    with pytest.raises(AuthorFailed, match=r"checklist session passed the trial's deadline of 1.5 s "
                                           r"\(trial_deadline_s\).*raise trial_deadline_s"):
        author.requirements(ctx)
    with pytest.raises(AuthorFailed, match=r"passed the trial's deadline of 1.5 s \(trial_deadline_s\) in turn 0"):
        author.audit_trial(ctx)
    assert time.monotonic() - started < 3.0
    # a task's own sessions (no trial) keep their own deadline only
    assert author._until(context(store, author, trial_id=None)) is None
