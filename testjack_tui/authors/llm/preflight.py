"""The preflight: whether the LLM author can work with this server and model, in one line.

It lists the server's models and makes one tool-call round trip (a tiny request: one tool, one
instruction to call it), through the author's own client, so a dialect switch it makes (a
reasoning model's ``max_completion_tokens``, tools described in the prompt) holds for the audit
that follows. It answers what a new user gets wrong: a base URL without ``/v1``, nothing
listening, a refused key, a model name the server does not list, a model served without tool
calling. ``testjack llm check`` prints it; ``testjack audit --author llm`` runs it first and stops
(exit 3) before spending anything when the author cannot work, and so does an LLM audit started
from the console (in its worker; the audit does not start). Its one call is not in the ledger:
it belongs to no run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import openai

from testjack_tui.authors.llm.client import ChatClient, Reply

PING = "report_status"
PING_TOOL = {
    "type": "function",
    "function": {
        "name": PING,
        "description": "Report that you can call tools.",
        "parameters": {"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]},
    },
}
PING_MESSAGES = [
    {"role": "system", "content": "You are checking a connection. Answer only by calling a tool."},
    {"role": "user", "content": f'Call the {PING} tool with status "ready".'},
]
OPTIONS_OF_SWITCHES = {  # a dialect switch, as the option that starts an audit in that dialect
    "max_tokens_field": lambda d: d.max_tokens_field,
    "temperature": lambda d: None,
    "reasoning_effort": lambda d: "",
    "tool_mode": lambda d: d.tool_mode,
}


@dataclass
class Preflight:
    works: bool
    line: str  # what works, or what is wrong and what to set
    models: list[str] | None = None  # what the server lists (None: it has no list to give)
    options: dict = field(default_factory=dict)  # TESTJACK_LLM_OPTIONS that start in the dialect found

    def before_audit(self) -> str:
        """What an audit says as it starts (the CLI on stderr, the console in a notice), or why it does not."""
        return f"LLM check: {self.line}" if self.works else f"the LLM author cannot work: {self.line}"


def check(client: ChatClient) -> Preflight:
    """Whether ``client``'s server and model can drive the agent (see the module's docstring)."""
    s = client.settings
    where = s.base_url or "the OpenAI API"
    models, problem = _models(client, where)
    if problem:
        return Preflight(False, problem)
    try:
        reply, _usage = client.once(PING_MESSAGES, [PING_TOOL])
    except Exception as exc:  # every refusal becomes a sentence; nothing is retried
        return Preflight(False, _refused(exc, client, where, models), models)
    return _verdict(reply, client, where, models)


def _models(client: ChatClient, where: str) -> tuple[list[str] | None, str]:
    """(the models the server lists, or None when it lists none; the problem that stops the check, or "")."""
    try:
        return client.list_models(), ""
    except openai.NotFoundError:
        if _lacks_v1(client.settings.base_url):
            return None, _v1_hint(client.settings.base_url)
        return None, ""  # a proxy without /models: the round trip decides
    except openai.APIStatusError as exc:
        if exc.status_code in (401, 403):
            return None, _key_refused(exc)
        return None, ""
    except (openai.APIConnectionError, openai.APITimeoutError) as exc:
        return None, _unreachable(exc, where)


def _verdict(reply: Reply, client: ChatClient, where: str, models: list[str] | None) -> Preflight:
    s, dialect = client.settings, client.dialect
    unlisted = models is not None and s.model not in models
    listed = f" (the server does not list it; it lists {_names(models)})" if unlisted else ""
    options = {key: OPTIONS_OF_SWITCHES[key](dialect) for key in _switched_keys(client)}
    hint = f"; set TESTJACK_LLM_OPTIONS='{json.dumps(options)}' to start so" if options else ""
    if not any(c.name == PING for c in reply.tool_calls):
        said = " ".join(reply.content.split())[:80]
        return Preflight(False, (
            f"{s.model} at {where} answered without calling a tool ({said!r}): the agent needs tool calls; "
            "serve the model with tool calling on (vLLM: --enable-auto-tool-choice and a --tool-call-parser; "
            "Ollama: a model with tool support) or choose another model with --model"
        ), models, options)
    how = ("writes its tool calls in its text, which TestJack reads (the server parses none)" if reply.from_text
           else "calls tools")
    switched = f"; switched: {'; '.join(dialect.switched)}" if dialect.switched else ""
    return Preflight(True, f"works: {s.model} at {where} {how}{listed}{switched}{hint}", models, options)


def _switched_keys(client: ChatClient) -> list[str]:
    s, d = client.settings, client.dialect
    keys = []
    if d.max_tokens_field != s.max_tokens_field:
        keys.append("max_tokens_field")
    if s.temperature is not None and not d.send_temperature:
        keys.append("temperature")
    if s.reasoning_effort and not d.send_effort:
        keys.append("reasoning_effort")
    if d.tool_mode != s.tool_mode:
        keys.append("tool_mode")
    return keys


def _refused(exc: Exception, client: ChatClient, where: str, models: list[str] | None) -> str:
    """The one line for a round trip the server refused."""
    s = client.settings
    if isinstance(exc, (openai.NotFoundError, openai.BadRequestError)) and models is not None \
            and s.model not in models:
        return (f"the server at {where} does not list model {s.model!r} (it lists {_names(models)}): "
                "set TESTJACK_MODEL (or --model) to one of them")
    if isinstance(exc, openai.NotFoundError) and _lacks_v1(s.base_url):
        return _v1_hint(s.base_url)
    if isinstance(exc, openai.APIStatusError) and exc.status_code in (401, 403):
        return _key_refused(exc)
    if isinstance(exc, (openai.APIConnectionError, openai.APITimeoutError)):
        return _unreachable(exc, where)
    if isinstance(exc, openai.APIStatusError):
        return f"the server at {where} refused a tool call to {s.model} (http {exc.status_code}: {_first_line(exc)})"
    return f"the server at {where} gave no usable reply ({type(exc).__name__}: {_first_line(exc)})"


def _lacks_v1(base_url: str | None) -> bool:
    return bool(base_url) and not urlsplit(base_url).path.rstrip("/").endswith("/v1")


def _v1_hint(base_url: str | None) -> str:
    fixed = (base_url or "").rstrip("/") + "/v1"
    return (f"{base_url} answers 404 (not found): OpenAI-compatible servers serve under /v1; "
            f"set OPENAI_BASE_URL (or --base-url) to {fixed}")


def _key_refused(exc: openai.APIStatusError) -> str:
    return (f"the server refused the key (http {exc.status_code}: {_first_line(exc)}): set OPENAI_API_KEY, "
            "or the header it wants in TESTJACK_LLM_HEADERS (Azure: api-key)")


def _unreachable(exc: Exception, where: str) -> str:
    return f"nothing answers at {where} ({_first_line(exc)}): start the server, or set OPENAI_BASE_URL (or --base-url)"


def _names(models: list[str] | None) -> str:
    if not models:
        return "none"
    return ", ".join(models[:8]) + (f" and {len(models) - 8} more" if len(models) > 8 else "")


def _first_line(exc: Exception) -> str:
    text = str(exc).strip() or type(exc).__name__
    cause = exc.__cause__
    if cause is not None and str(cause).strip() and str(cause).strip() not in text:
        text = f"{text}: {str(cause).strip()}"
    return text.splitlines()[0][:160]
