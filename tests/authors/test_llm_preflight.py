"""``testjack llm check`` and the same check before an ``--author llm`` audit: one line that says
what works or what to set, against the scripted server over real HTTP (the real ``openai`` client)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from scripted_server import answer, tool_call

from testjack_tui.cli import main
from testjack_tui.store import Store

MINI = Path(__file__).resolve().parents[2] / "sample_runs" / "mini"
READY = tool_call("report_status", {"status": "ready"})


@pytest.fixture(autouse=True)
def no_llm_environment(monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "TESTJACK_MODEL", "OPENAI_MODEL", "TESTJACK_LLM_OPTIONS",
                 "TESTJACK_LLM_HEADERS", "TESTJACK_LLM_BUDGET", "TESTJACK_PRICES"):
        monkeypatch.delenv(name, raising=False)


def check(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["llm", "check", *args])
    return code, capsys.readouterr().out.splitlines()


def test_a_working_server_lists_its_models_and_calls_the_tool(server, capsys):
    server.models = ["scripted", "other"]
    server.script(READY)
    code, out = check(capsys, "--base-url", server.base_url, "--model", "scripted")
    assert code == 0
    assert out == ["models: scripted, other", f"works: scripted at {server.base_url} calls tools"]
    assert server.requests[0]["tools"][0]["function"]["name"] == "report_status"


def test_a_base_url_without_v1_is_named_with_the_fix(server, capsys):
    bare = server.base_url.removesuffix("/v1")
    code, out = check(capsys, "--base-url", bare, "--model", "scripted")
    assert code == 3
    assert out == [f"{bare} answers 404 (not found): OpenAI-compatible servers serve under /v1; "
                   f"set OPENAI_BASE_URL (or --base-url) to {bare}/v1"]


def test_a_model_the_server_does_not_list_is_named_with_what_it_lists(server, capsys, monkeypatch):
    server.check_model = True
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_MODEL", "gpt-5")
    code, out = check(capsys)
    assert code == 3
    assert out[-1] == (f"the server at {server.base_url} does not list model 'gpt-5' (it lists scripted): "
                       "set TESTJACK_MODEL (or --model) to one of them")


def test_a_model_without_tool_calling_is_told_what_to_do(server, capsys):
    server.script(answer("Ready! How can I help you today?"))
    code, out = check(capsys, "--base-url", server.base_url, "--model", "scripted")
    assert code == 3
    assert out[-1].startswith("scripted at " + server.base_url + " answered without calling a tool "
                              "('Ready! How can I help you today?'): the agent needs tool calls; serve the model "
                              "with tool calling on (vLLM: --enable-auto-tool-choice")


def test_calls_written_in_the_text_work_and_are_said_so(server, capsys):
    server.dialect = "no-tools"
    server.script(READY)
    code, out = check(capsys, "--base-url", server.base_url, "--model", "scripted")
    assert code == 0
    assert out[-1] == (
        f"works: scripted at {server.base_url} writes its tool calls in its text, which TestJack reads (the server "
        "parses none); switched: tools are described in the prompt, calls read from the reply's text (the server "
        "refused tools); set TESTJACK_LLM_OPTIONS='{\"tool_mode\": \"content\"}' to start so")


def test_a_reasoning_model_works_after_switching_and_is_told_what_to_set(server, capsys):
    server.dialect = "reasoning"
    server.script(READY)
    code, out = check(capsys, "--base-url", server.base_url, "--model", "scripted")
    assert code == 0
    assert out[-1].endswith("set TESTJACK_LLM_OPTIONS='{\"max_tokens_field\": \"max_completion_tokens\", "
                            "\"temperature\": null}' to start so")


def test_nothing_listening_is_said_so(capsys):
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out = check(capsys, "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m")
    assert code == 3
    assert out[-1].startswith(f"nothing answers at http://127.0.0.1:{port}/v1 (")
    assert out[-1].endswith("start the server, or set OPENAI_BASE_URL (or --base-url)")


def test_an_audit_whose_author_cannot_work_exits_3_before_spending_anything(server, capsys, tmp_path):
    server.default = lambda body: answer("I cannot use tools, but I can chat.")
    db = tmp_path / "t.db"
    code = main(["audit", str(MINI), "--author", "llm", "--store", str(db),
                 "--base-url", server.base_url, "--model", "scripted"])
    assert code == 3
    err = capsys.readouterr().err
    assert "the LLM author cannot work: scripted at" in err and "answered without calling a tool" in err
    assert len(server.requests) == 1  # the check's one call, and nothing after it
    store = Store(db)
    (run,) = store.list_runs()
    assert store.list_llm_calls(run.id) == [] and store.list_audits(run.id) == []
    store.close()


def test_model_and_base_url_need_the_llm_author(capsys, tmp_path):
    code = main(["audit", str(MINI), "--store", str(tmp_path / "t.db"), "--model", "m"])
    assert code == 2
    assert "use them with --author llm" in capsys.readouterr().err
