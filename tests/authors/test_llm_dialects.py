"""The dialects of OpenAI-compatible servers, each spoken by the scripted server over real HTTP to
the real ``openai`` client: what TestJack sends, what it reads back, and what it records."""

from __future__ import annotations

import json

import pytest
from scripted_server import THINKING, make, answer, tool_call, tool_calls
from test_llm_client import context

from testjack_tui.authors.base import AuthorFailed
from testjack_tui.authors.llm.agent import AUDIT_TOOLS, CHECKLIST_TOOLS, Session
from testjack_tui.authors.llm.budget import estimate_prompt_tokens, estimate_tokens
from testjack_tui.authors.llm.text_calls import calls_in_text

CHECKLIST = {"items": [{"text": "empty list gives []", "kind": "explicit"}]}


def checklist_session(author, store, **kw):
    return Session(author.client, context(store, author), "checklist", "go", CHECKLIST_TOOLS, **kw)


def test_a_reasoning_model_gets_max_completion_tokens_and_no_temperature_after_one_refusal_each(server, store):
    server.dialect = "reasoning"
    author = make(server, reasoning_effort="high")
    server.script(tool_call("read_diff", {"which": "trial"}), tool_call("submit_checklist", CHECKLIST))
    result = checklist_session(author, store).run()
    assert result.checklist is not None
    first, second, third, fourth = server.requests
    assert "max_tokens" in first and "max_completion_tokens" in second and second["temperature"] == 0.0
    assert "temperature" not in third and third["reasoning_effort"] == "high"
    assert "max_tokens" not in fourth and "temperature" not in fourth  # remembered for the run
    calls = store.list_llm_calls("mini")
    assert [c.outcome for c in calls] == ["http 400", "http 400", "ok", "ok"]
    assert "TestJack switched: the limit is sent as max_completion_tokens" in json.loads(calls[0].transcript)["error"]


def test_reasoning_settings_are_sent_from_the_start_and_null_max_tokens_passes_the_budget_check(
        server, store, monkeypatch):
    server.dialect = "reasoning"
    monkeypatch.setenv("TESTJACK_LLM_OPTIONS", '{"max_tokens": null, "temperature": null}')
    author = make(server, budget={"run_tokens": 100_000})
    server.script(tool_call("submit_checklist", CHECKLIST))
    assert checklist_session(author, store).run().checklist is not None
    (sent,) = server.requests
    assert not {"max_tokens", "max_completion_tokens", "temperature"} & set(sent)
    author = make(server, max_tokens=4000, max_tokens_field="max_completion_tokens", temperature=None)
    server.script(tool_call("submit_checklist", CHECKLIST))
    checklist_session(author, store).run()
    assert server.requests[-1]["max_completion_tokens"] == 4000


def test_a_thinking_models_reasoning_goes_back_with_its_tool_calls(server, store):
    server.dialect = "thinking"
    author = make(server)
    server.script(tool_call("read_diff", {"which": "trial"}), tool_call("submit_checklist", CHECKLIST))
    assert checklist_session(author, store).run().checklist is not None
    echoed = [m for m in server.requests[1]["messages"] if m["role"] == "assistant"]
    assert echoed[0]["reasoning_content"] == THINKING
    assert [c.outcome for c in store.list_llm_calls("mini")] == ["ok", "ok"]


def test_tool_arguments_sent_as_an_object_are_read_and_counted(server, store):
    server.dialect = "object-args"
    author = make(server)
    server.script(tool_call("submit_checklist", CHECKLIST, usage=(321, 45)))
    result = checklist_session(author, store).run()
    assert [i.text for i in result.checklist.items] == ["empty list gives []"]
    (call,) = store.list_llm_calls("mini")
    assert (call.outcome, call.prompt_tokens, call.completion_tokens) == ("ok", 321, 45)


def test_ollama_streaming_two_calls_at_index_0_stay_two_calls(server, store):
    server.dialect = "ollama-stream"
    author = make(server, stream=True)
    server.script(
        tool_calls(("read_diff", {"which": "trial"}), ("read_diff", {"which": "tests"})),
        tool_call("finish", {"report": "nothing"}),
    )
    result = Session(author.client, context(store, author), "audit", "go", AUDIT_TOOLS).run()
    assert result.report == "nothing" and result.bad_calls == 0
    answers = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in answers] == ["call_o0", "call_o1"]


@pytest.mark.parametrize("dialect", ["text-calls", "no-tools"])
def test_calls_written_in_the_text_are_run_and_answered_in_a_user_message(server, store, dialect):
    server.dialect = dialect
    author = make(server)
    server.script(tool_call("read_diff", {"which": "trial"}), tool_call("submit_checklist", CHECKLIST))
    result = checklist_session(author, store).run()
    assert [i.text for i in result.checklist.items] == ["empty list gives []"] and result.bad_calls == 0
    last = server.requests[-1]
    assert last["messages"][-1]["role"] == "user" and last["messages"][-1]["content"].startswith("Result of read_diff")
    assert not any(m["role"] == "tool" for m in last["messages"])
    if dialect == "no-tools":  # refused once, then the tools are described in the prompt
        assert "tools" in server.requests[0] and "tools" not in last
        assert "<tool_call>" in last["messages"][0]["content"] and "submit_checklist" in last["messages"][0]["content"]
        assert [c.outcome for c in store.list_llm_calls("mini")] == ["http 400", "ok", "ok"]


def test_an_unreadable_call_in_the_text_gets_a_short_correction(server, store):
    author = make(server)
    server.script(answer('<tool_call>{"name": "submit_checklist", "arguments": {"items": [}</tool_call>'),
                  tool_call("submit_checklist", CHECKLIST))
    result = checklist_session(author, store).run()
    assert result.checklist is not None and result.bad_calls == 1
    correction = server.requests[1]["messages"][-1]["content"]
    assert correction.startswith("Your tool call could not be read (a tool call's JSON does not parse")
    assert "<tool_call>" in correction and len(correction) < 300


def test_text_calls_in_their_shapes():
    assert calls_in_text('<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call>') == ([("a", '{"x": 1}')], "")
    assert calls_in_text('```json\n{"name": "a", "parameters": {"x": 1}}\n```') == ([("a", '{"x": 1}')], "")
    assert calls_in_text('[{"function": {"name": "a", "arguments": "{}"}}]') == ([("a", "{}")], "")
    assert calls_in_text("I think the trial is sound.") == ([], "")
    assert calls_in_text('{"verdict": "sound"}') == ([], "")  # JSON that names no tool is not a call


def test_a_model_that_never_calls_a_tool_fails_the_task_analysis_instead_of_ending_it(server, store):
    author = make(server)
    server.script(*[answer("The task looks fine to me; I would write some tests.")] * 4)
    with pytest.raises(AuthorFailed, match="task analysis session failed.*called no tool"):
        author.analyse_task(context(store, author, None))


def test_without_usage_tokens_are_estimated_by_pieces_not_characters(server, store):
    server.dialect = "no-usage"
    author = make(server)
    server.script(tool_call("submit_checklist", CHECKLIST))
    checklist_session(author, store).run()
    (call,) = store.list_llm_calls("mini")
    body = server.requests[0]
    assert call.prompt_tokens == estimate_prompt_tokens(body["messages"], body["tools"])
    sent = json.dumps(body["messages"]) + json.dumps(body["tools"])
    assert call.prompt_tokens < len(sent) / 3.3  # under the old 3 characters a token, even on JSON schemas
    # pieces as OpenAI's tokenizers count them: one per common word, punctuation runs merged
    assert estimate_tokens("The quick brown fox jumps over the lazy dog.") == 10
    assert estimate_tokens("def chunk(items, size):") == 7


def test_the_servers_cost_and_cached_tokens_go_into_the_ledger(server, store):
    server.dialect = "openrouter"
    author = make(server, prices={"scripted": [100.0, 100.0]})
    server.script(tool_call("submit_checklist", CHECKLIST, usage=(1000, 10)))
    checklist_session(author, store).run()
    (call,) = store.list_llm_calls("mini")
    assert (call.cost_usd, call.cached_tokens, call.prompt_tokens) == (0.00042, 500, 1000)


def test_extra_headers_are_sent(server, store, monkeypatch):
    monkeypatch.setenv("TESTJACK_LLM_HEADERS", '{"api-key": "azure-key", "HTTP-Referer": "https://example.org"}')
    author = make(server)
    server.script(tool_call("submit_checklist", CHECKLIST))
    checklist_session(author, store).run()
    assert server.headers[-1]["api-key"] == "azure-key" and server.headers[-1]["http-referer"] == "https://example.org"


def test_openai_model_names_the_model_when_testjack_model_is_unset(server, monkeypatch):
    from testjack_tui.authors.factory import make_author

    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.delenv("TESTJACK_MODEL", raising=False)
    monkeypatch.setenv("OPENAI_MODEL", "from-openai-model")
    assert make_author("llm").settings.model == "from-openai-model"
    monkeypatch.setenv("TESTJACK_MODEL", "from-testjack-model")
    assert make_author("llm").settings.model == "from-testjack-model"


def test_only_a_refusal_naming_a_parameter_switches_it():
    from testjack_tui.authors.llm.dialect import Dialect
    from testjack_tui.authors.llm.settings import LLMSettings

    settings = LLMSettings(base_url=None, api_key="k", model="m")
    sent = {"max_tokens": 2048, "temperature": 0.0, "tools": []}
    dialect = Dialect.of(settings)
    assert dialect.switch("messages with role 'tool' must be a response to a preceding message with "
                          "'tool_calls'", settings, sent) == ""
    assert dialect.switch("max_completion_tokens is too large", settings, sent) == ""  # not max_tokens
    assert dialect.switch('"auto" tool choice requires --enable-auto-tool-choice', settings, sent).startswith("tools")
    assert dialect.tool_mode == "content" and dialect.max_tokens_field == "max_tokens"


@pytest.mark.slow
def test_an_audit_by_a_model_that_cannot_call_tools_marks_nothing_done_and_refutes_nothing(server, store):
    from testjack_tui.audit import Audit, AuditOptions

    server.default = lambda body: answer("Here is my analysis: the trial looks fine.")
    author = make(server)
    assert Audit(store, "mini", AuditOptions(author="llm", evidence=False, workers=2), author=author).execute() == "done"
    assert not store.step_done("mini", "analysis:chunk")  # the next audit tries the analysis again
    verdicts = {t: str(v.verdict) for t, v in store.list_verdicts("mini").items()}
    assert verdicts == {"chunk-t1": "unaudited", "chunk-t2": "unaudited", "chunk-t3": "unaudited",
                        "chunk-t4": "not_passing"}
