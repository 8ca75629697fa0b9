"""One chat-completion call: the budget check, retries with backoff, and the record in the store.

The ``openai`` client's own retries are switched off (``max_retries=0``) and done here instead,
because every attempt must pass the budget check first and must be recorded (tokens, cost,
latency, outcome, transcript) whether it succeeded or not. Retried: rate limits (429, honouring
``Retry-After``), server errors (5xx), timeouts, dropped connections, and bodies that are not a
chat completion. Anything else (a bad key, an unknown model) is not retried.

When every attempt failed the audit cannot go on meaningfully (an unreachable endpoint would make
every later trial look clean), so ``EndpointFailed`` stops it resumably, like a budget stop.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import openai

from testjack_tui.audit.execution import Cancelled
from testjack_tui.authors.base import AuthorContext
from testjack_tui.authors.llm.budget import CHARS_PER_TOKEN, check_budget, cost_usd, estimate_prompt_tokens
from testjack_tui.authors.llm.settings import LLMSettings
from testjack_tui.model import LLMCall


class EndpointFailed(Cancelled):
    """The endpoint kept failing (or refused the request); the audit stops and can be resumed."""


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text as the model wrote it (may be malformed)


@dataclass
class Reply:
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str = ""

    def as_message(self) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            msg["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        return msg


class ChatClient:
    def __init__(self, settings: LLMSettings, sleep=time.sleep):
        self.settings = settings
        self._sleep = sleep
        self._client = openai.OpenAI(
            base_url=settings.base_url, api_key=settings.api_key, max_retries=0, timeout=settings.timeout_s
        )

    def chat(
        self, ctx: AuthorContext, purpose: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> Reply:
        """One model turn. Raises ``BudgetExhausted`` before a call that might not fit, and
        ``EndpointFailed`` when the endpoint cannot answer."""
        s = self.settings
        last_problem = ""
        for attempt in range(s.max_retries + 1):
            prompt_estimate = estimate_prompt_tokens(messages, tools)
            check_budget(s.budget, ctx.spent, prompt_estimate, s.max_tokens, s.price(), ctx.trial is not None)
            started = time.monotonic()
            retry_after: float | None = None
            try:
                reply, usage = self._request(messages, tools)
            except openai.APIStatusError as exc:
                status = exc.status_code
                outcome = f"http {status}"
                retryable = status == 429 or status >= 500 or status == 408
                retry_after = _retry_after(exc.response)
                self._record(ctx, purpose, messages, tools, None, outcome, started, str(exc))
                last_problem = f"{outcome}: {_short(exc)}"
                if not retryable:
                    raise EndpointFailed(f"the LLM endpoint refused the request ({last_problem})") from exc
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                outcome = "timeout" if isinstance(exc, openai.APITimeoutError) else "connection error"
                self._record(ctx, purpose, messages, tools, None, outcome, started, str(exc))
                last_problem = f"{outcome}: {_short(exc)}"
            except (openai.APIResponseValidationError, json.JSONDecodeError, ValueError, TypeError,
                    AttributeError, KeyError, IndexError) as exc:
                self._record(ctx, purpose, messages, tools, None, "bad response", started, repr(exc))
                last_problem = f"bad response: {_short(exc)}"
            else:
                self._record(ctx, purpose, messages, tools, reply, "ok", started, "", usage)
                return reply
            if attempt < s.max_retries:
                delay = min(s.backoff_cap_s, s.backoff_s * (2**attempt))
                if retry_after is not None:
                    delay = min(s.backoff_cap_s, max(delay, retry_after))
                self._sleep(delay)
        raise EndpointFailed(
            f"the LLM endpoint failed {s.max_retries + 1} times in a row (last: {last_problem}); "
            "check OPENAI_BASE_URL and the server, then run the audit again"
        )

    # -------------------------------------------------------------- one HTTP request

    def _request(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> tuple[Reply, tuple[int, int] | None]:
        s = self.settings
        kwargs: dict[str, Any] = dict(
            model=s.model, messages=messages, max_tokens=s.max_tokens, temperature=s.temperature
        )
        if tools:
            kwargs["tools"] = tools
        if s.stream:
            return self._streamed(kwargs)
        resp = self._client.chat.completions.create(**kwargs)
        if isinstance(resp, str) or not getattr(resp, "choices", None):
            raise ValueError(f"not a chat completion: {str(resp)[:200]}")
        choice = resp.choices[0]
        msg = choice.message
        calls = [
            ToolCall(c.id or f"call_{i}", c.function.name, c.function.arguments or "")
            for i, c in enumerate(msg.tool_calls or [])
        ]
        usage = (resp.usage.prompt_tokens, resp.usage.completion_tokens) if resp.usage else None
        return Reply(msg.content or "", calls, choice.finish_reason or ""), usage

    def _streamed(self, kwargs: dict[str, Any]) -> tuple[Reply, tuple[int, int] | None]:
        stream = self._client.chat.completions.create(
            stream=True, stream_options={"include_usage": True}, **kwargs
        )
        content: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        usage = None
        finish = ""
        for chunk in stream:
            if getattr(chunk, "usage", None):
                usage = (chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
            for choice in chunk.choices or []:
                delta = choice.delta
                if delta.content:
                    content.append(delta.content)
                for tc in delta.tool_calls or []:
                    slot = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                    if tc.id:
                        slot["id"] = tc.id
                    if tc.function and tc.function.name:
                        slot["name"] += tc.function.name
                    if tc.function and tc.function.arguments:
                        slot["arguments"] += tc.function.arguments
                finish = choice.finish_reason or finish
        tool_calls = [
            ToolCall(v["id"] or f"call_{i}", v["name"], v["arguments"]) for i, v in sorted(calls.items())
        ]
        return Reply("".join(content), tool_calls, finish), usage

    # -------------------------------------------------------------- the record

    def _record(
        self,
        ctx: AuthorContext,
        purpose: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        reply: Reply | None,
        outcome: str,
        started: float,
        error: str,
        usage: tuple[int, int] | None = None,
    ) -> None:
        latency = time.monotonic() - started
        if reply is not None and usage is None:  # servers that report no usage: estimate it
            text = reply.content + "".join(c.arguments for c in reply.tool_calls)
            usage = (estimate_prompt_tokens(messages, tools), int(len(text) / CHARS_PER_TOKEN) + 1)
        prompt_tokens, completion_tokens = usage or (0, 0)
        transcript = json.dumps(
            {
                "model": self.settings.model,
                "messages": messages,
                "tools": [t["function"]["name"] for t in tools or []],
                "reply": reply.as_message() if reply else None,
                "error": error[:2000],
            },
            ensure_ascii=False,
        )
        if ctx.record_llm_call is None:
            return
        ctx.record_llm_call(
            LLMCall(
                run_id=ctx.run_id or ctx.task.run_id,
                trial_id=ctx.trial.id if ctx.trial else None,
                task_id=ctx.task.id,
                model=self.settings.model,
                purpose=purpose,
                prompt_tokens=int(prompt_tokens),
                completion_tokens=int(completion_tokens),
                cost_usd=cost_usd(prompt_tokens, completion_tokens, self.settings.price()),
                latency_s=round(latency, 3),
                outcome=outcome,
                transcript=transcript,
            )
        )


def _retry_after(response: Any) -> float | None:
    try:
        value = response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, ValueError, TypeError):
        return None


def _short(exc: Exception) -> str:
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
