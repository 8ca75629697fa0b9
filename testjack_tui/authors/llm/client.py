"""One chat-completion call: the budget check, retries with backoff, the bounds, and the record.

The ``openai`` client's own retries are switched off (``max_retries=0``) and done here instead,
because every attempt must pass the budget check first and must be recorded (tokens, cost,
latency, outcome, transcript) whether it succeeded or not. Retried: rate limits (429, honouring
``Retry-After``), server errors (5xx), timeouts, dropped connections, bodies that are not a chat
completion, and bodies over the size cap. Anything else (a bad key, an unknown model) is not
retried.

Bounds (``transport.py`` enforces the first two on the socket):
- every HTTP request has one wall-clock deadline, ``timeout_s``, for all of it (a server that
  trickles a byte a second is cut off at the deadline, not kept open), and none runs past the
  deadline of its session (``session_deadline_s``, see ``agent.py``);
- at most ``max_response_bytes`` of a body are read; a streamed reply is kept up to the cap
  (outcome "cut"), any other is a failed attempt ("too large");
- what is kept of a reply is bounded: its text to ``max_message_bytes`` (cut with a marker),
  at most ``max_tool_calls`` tool calls, and a call whose arguments pass ``max_message_bytes`` is
  kept as ``{}`` with ``ToolCall.oversize`` set (the session answers it as a malformed call);
- a cancelled audit (``ctx.cancel``, or the event of the engine's execution service) abandons the
  request in flight at once.

Every attempt is recorded when it starts, with outcome "in flight" at the worst case the budget
check assumed (the estimated prompt plus ``max_tokens``), and completed when it ends; a process
killed meanwhile leaves that row, which budgets keep counting. An attempt that times out or is
cancelled is recorded like any other (outcome "timeout" or "cancelled"). A call's transcript holds the messages that are new since the previous call of its
``Conversation`` (one agent session), so a session is stored once, not once more per turn.

When every attempt failed the audit cannot go on meaningfully (an unreachable endpoint would make
every later trial look clean), so ``EndpointFailed`` stops it resumably, like a budget stop; a
cancel raises the engine's ``Cancelled``.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

import httpx2
import openai

from testjack_tui.worlds.cancel import Cancelled
from testjack_tui.authors.base import AuthorContext
from testjack_tui.authors.llm.budget import (check_budget, cost_usd, estimate_prompt_tokens, estimate_tokens,
                                             worst_completion)
from testjack_tui.authors.llm.dialect import Dialect
from testjack_tui.authors.llm.settings import LLMSettings
from testjack_tui.authors.llm.text_calls import calls_in_text, describe_tools
from testjack_tui.authors.llm.transport import BoundedTransport, Limits, Watch
from testjack_tui.model import LLMCall

REASONING_FIELDS = ("reasoning_content", "reasoning")  # where servers put a thinking model's reasoning
NAME_LIMIT = 200  # characters of a tool name or call id kept (they are echoed back every turn)
IN_FLIGHT = "in flight"  # the outcome of a call sent and not answered yet (or whose process was killed)


class EndpointFailed(Cancelled):
    """The endpoint kept failing (or refused the request); the audit stops and can be resumed."""


class DeadlinePassed(Exception):
    """The session's deadline passed before a call could complete (or start); the session fails.
    Not a ``Cancelled``: one slow session leaves its trial unaudited, the audit goes on."""


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes (on a character boundary), with a marker
    saying how many bytes were left out."""
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= limit:
        return text
    kept = raw[: max(0, limit)].decode("utf-8", "ignore")
    return kept + f"\n[... truncated {len(raw) - len(kept.encode('utf-8', 'surrogatepass'))} bytes by TestJack]"


def size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text as the model wrote it (may be malformed); "{}" when oversize
    oversize: int = 0  # bytes of arguments too large to keep (they were dropped), else 0


@dataclass
class Usage:
    """What a server reported a call took (``cost_usd`` and ``cached_tokens`` when it said)."""

    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None = None  # the server's own price of the call (OpenRouter's ``usage.cost``)
    cached_tokens: int = 0  # prompt tokens the server read from its cache


@dataclass
class Reply:
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str = ""
    dropped_calls: int = 0  # tool calls past ``max_tool_calls``: neither kept nor run
    cut: bool = False  # the body passed ``max_response_bytes``; this is what came before
    # a thinking model's reasoning and the field it came in; sent back with the reply (``send_reasoning``)
    reasoning: str = ""
    reasoning_field: str = ""
    from_text: bool = False  # the calls were read from ``content`` (the server parsed none)
    text_problem: str = ""  # why call-shaped text in ``content`` could not be read, else ""

    def as_message(self) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.reasoning and self.reasoning_field:
            msg[self.reasoning_field] = self.reasoning
        if self.tool_calls and not self.from_text:
            msg["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        return msg


@dataclass
class Conversation:
    """One conversation (an agent session) as the store holds it: each call's transcript stores
    the messages from ``stored`` on, then ``stored`` moves past them and past the reply (which the
    caller appends to its messages)."""

    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    stored: int = 0


class ChatClient:
    def __init__(
        self,
        settings: LLMSettings,
        sleep: Callable[[float], Any] | None = None,
        cancel: threading.Event | None = None,
    ):
        """``sleep`` replaces the backoff wait (tests); by default it waits on the cancel event.
        ``cancel`` is used when the context brings none (see ``cancel_event``)."""
        self.settings = settings
        self._sleep = sleep
        self.cancel = cancel
        self.transport = BoundedTransport(Limits(settings.timeout_s, settings.max_response_bytes))
        self.dialect = Dialect.of(settings)  # what this server takes; switched on a refusal, for the run
        self._client = openai.OpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key,
            max_retries=0,
            timeout=settings.timeout_s,
            default_headers=settings.headers or None,
            http_client=httpx2.Client(transport=self.transport, follow_redirects=True, timeout=settings.timeout_s),
        )

    def cancel_event(self, ctx: AuthorContext) -> threading.Event | None:
        """The audit's cancel event: ``ctx.cancel`` when the context has one, else the event of the
        execution service behind ``ctx.execute``, else the client's own."""
        for event in (getattr(ctx, "cancel", None), getattr(getattr(ctx.execute, "__self__", None), "cancel", None)):
            if isinstance(event, threading.Event):
                return event
        return self.cancel

    def chat(
        self,
        ctx: AuthorContext,
        purpose: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        conversation: Conversation | None = None,
        deadline: float | None = None,
    ) -> Reply:
        """One model turn. Raises ``BudgetExhausted`` before a call that might not fit,
        ``EndpointFailed`` when the endpoint cannot answer, ``Cancelled`` when the audit is, and
        ``DeadlinePassed`` when ``deadline`` (a ``time.monotonic()`` instant: the session's) comes
        first: no attempt, and no wait between attempts, runs past it."""
        s = self.settings
        cancel = self.cancel_event(ctx)
        last_problem = ""
        attempt = 0
        while attempt <= s.max_retries:
            limit = self._time_for_attempt(cancel, deadline)
            try:
                reply, last_problem, retry_after = self._attempt(ctx, purpose, messages, tools, conversation,
                                                                 cancel, limit)
            except _Switched:  # the server named a parameter it refuses: the same call, in its dialect
                continue
            if reply is not None:
                return reply
            if attempt < s.max_retries:
                self._back_off(attempt, retry_after, last_problem, cancel, deadline)
            attempt += 1
        times = "once" if s.max_retries == 0 else f"{s.max_retries + 1} times in a row"
        raise EndpointFailed(
            f"the LLM endpoint failed {times} (last: {last_problem}); "
            "check OPENAI_BASE_URL and the server, then run the audit again"
        )

    def list_models(self) -> list[str]:
        """The model names the server lists (``GET /models``); raises what the ``openai`` client raises."""
        return [m.id for m in self._client.models.list()]

    def once(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> tuple[Reply, Usage | None]:
        """One request outside any audit (the preflight): neither budgeted nor recorded, nor
        retried, except that a refusal naming a parameter is answered by switching, as in ``chat``."""
        s = self.settings
        while True:
            request = self._request_body(messages, tools)
            try:
                with self.transport.watch(Limits(s.timeout_s, s.max_response_bytes, self.cancel, s.stream)) as watch:
                    return self._bounded_reply(request, watch)
            except openai.BadRequestError as exc:
                if not self.dialect.switch(_error_text(exc), s, request):
                    raise

    def _bounded_reply(self, request: dict[str, Any], watch: Watch) -> tuple[Reply, Usage | None]:
        reply, usage = self._request(request)
        return self._bounded(reply, watch), usage

    def _time_for_attempt(self, cancel: threading.Event | None, deadline: float | None) -> float:
        """The next attempt's time limit: ``timeout_s``, or what is left before ``deadline``."""
        if cancel is not None and cancel.is_set():
            raise Cancelled("the audit was cancelled")
        s = self.settings
        limit = s.timeout_s if deadline is None else min(s.timeout_s, deadline - time.monotonic())
        if limit <= 0:
            raise DeadlinePassed("no time was left for another call")
        return limit

    def _attempt(
        self,
        ctx: AuthorContext,
        purpose: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        conversation: Conversation | None,
        cancel: threading.Event | None,
        limit: float,
    ) -> tuple[Reply | None, str, float | None]:
        """One request, budget-checked and recorded: (reply, "", None) when it succeeds, else
        (None, the problem, the server's ``Retry-After``) for a failure worth retrying. Raises on
        any other failure."""
        s = self.settings
        request = self._request_body(messages, tools)
        prompt_estimate = estimate_prompt_tokens(request["messages"], request.get("tools"))
        check_budget(s.budget, ctx.spent, prompt_estimate, s.max_tokens, s.price(), ctx.trial is not None)
        started = time.monotonic()
        watch: Watch | None = None
        call = self._start(ctx, purpose, messages, tools, prompt_estimate, conversation)

        def record(outcome: str, error: str, reply: Reply | None = None, usage: Usage | None = None) -> None:
            self._record(ctx, call, messages, tools, reply, outcome, started, error, usage, conversation)

        try:
            with self.transport.watch(Limits(limit, s.max_response_bytes, cancel, s.stream)) as watch:
                reply, usage = self._bounded_reply(request, watch)
        except KeyboardInterrupt:
            record("cancelled", "interrupted")
            raise
        except Exception as exc:
            problem, retry_after = self._failed(exc, watch, record, limit, request)
            return None, problem, retry_after
        record("cut" if reply.cut else "ok", "", reply, usage)
        return reply, "", None

    def _failed(self, exc: Exception, watch: Watch | None, record: Callable[[str, str], None],
                limit: float, request: dict[str, Any]) -> tuple[str, float | None]:
        """A failed attempt, recorded: (problem, ``Retry-After``) when another attempt may follow;
        raises when none may (cancelled, refused, cut off at the deadline, not an outcome at all),
        and ``_Switched`` when a 400 named a parameter the dialect could switch."""
        outcome, retryable, problem = self._failure(exc, watch)
        if isinstance(exc, openai.BadRequestError):
            switched = self.dialect.switch(_error_text(exc), self.settings, request)
            if switched:
                record(outcome, f"{_error_text(exc)} [TestJack switched: {switched}]")
                raise _Switched(switched) from exc
        if outcome == "cancelled":
            record(outcome, problem)
            raise Cancelled("the audit was cancelled during an LLM call") from exc
        if not isinstance(exc, _HANDLED):
            record("error", repr(exc))
            raise exc
        retry_after = _retry_after(exc.response) if isinstance(exc, openai.APIStatusError) else None
        record(outcome, problem if outcome in ("timeout", "too large") else _error_text(exc))
        last_problem = f"{outcome}: {problem}"
        if outcome == "timeout" and limit < self.settings.timeout_s:
            raise DeadlinePassed(f"a call was cut off at the deadline ({problem})") from exc
        if not retryable:
            raise EndpointFailed(f"the LLM endpoint refused the request ({last_problem})") from exc
        return last_problem, retry_after

    def _back_off(self, attempt: int, retry_after: float | None, last_problem: str,
                  cancel: threading.Event | None, deadline: float | None) -> None:
        """Wait before attempt ``attempt + 1``: doubling from ``backoff_s``, at least what the server
        asked, at most ``backoff_cap_s``; never past ``deadline``."""
        s = self.settings
        delay = min(s.backoff_cap_s, s.backoff_s * (2**attempt))
        if retry_after is not None:
            delay = min(s.backoff_cap_s, max(delay, retry_after))
        if deadline is not None and time.monotonic() + delay >= deadline:
            raise DeadlinePassed(f"the wait of {delay:g} s before retrying ({last_problem}) would pass it")
        self._pause(delay, cancel)

    def _pause(self, delay: float, cancel: threading.Event | None) -> None:
        if self._sleep is not None:
            self._sleep(delay)
        elif cancel is not None:
            cancel.wait(delay)
        else:
            time.sleep(delay)
        if cancel is not None and cancel.is_set():
            raise Cancelled("the audit was cancelled")

    def _failure(self, exc: Exception, watch: Watch | None) -> tuple[str, bool, str]:
        """(outcome, retryable, problem) of a failed attempt."""
        s = self.settings
        if watch is not None and watch.fired == "cancelled":
            return "cancelled", False, "the audit was cancelled while the request was in flight"
        if watch is not None and watch.fired == "deadline":
            return "timeout", True, (
                f"no complete reply within {watch.limits.deadline_s:g} s (abandoned after {watch.elapsed():.1f} s)"
            )
        if watch is not None and watch.cut:
            return "too large", True, (
                f"the reply is longer than max_response_bytes ({s.max_response_bytes}); not read further"
            )
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            return f"http {status}", status == 429 or status >= 500 or status == 408, _short(exc)
        if isinstance(exc, openai.APITimeoutError) or isinstance(exc, httpx2.TimeoutException):
            return "timeout", True, _short(exc)
        if isinstance(exc, (openai.APIConnectionError, httpx2.TransportError)):
            return "connection error", True, _short(exc)
        return "bad response", True, _short(exc)

    # -------------------------------------------------------------- one HTTP request

    def _request_body(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        """The request's fields in this server's dialect: tools as the ``tools`` parameter, or
        described in the system prompt when the server takes none."""
        s, dialect = self.settings, self.dialect
        body: dict[str, Any] = dict(model=s.model, messages=messages, **dialect.fields(s, bool(tools)))
        if tools and dialect.tools_in_prompt():
            system = messages[0] if messages and messages[0].get("role") == "system" else None
            note = describe_tools(tools)
            head = [{"role": "system", "content": f"{system['content']}\n\n{note}" if system else note}]
            body["messages"] = head + messages[1 if system else 0:]
        elif tools:
            body["tools"] = tools
        if not s.send_reasoning:
            body["messages"] = [{k: v for k, v in m.items() if k not in REASONING_FIELDS} for m in body["messages"]]
        return body

    def _request(self, request: dict[str, Any]) -> tuple[Reply, Usage | None]:
        if self.settings.stream:
            return self._streamed(request)
        resp = self._client.chat.completions.create(**request)
        if isinstance(resp, str) or not getattr(resp, "choices", None):
            raise ValueError(f"not a chat completion: {str(resp)[:200]}")
        choice = resp.choices[0]
        msg = choice.message
        calls = [
            ToolCall(c.id or f"call_{i}", c.function.name or "", _arguments(c.function.arguments))
            for i, c in enumerate(msg.tool_calls or [])
        ]
        reply = Reply(msg.content or "", calls, choice.finish_reason or "")
        reply.reasoning_field, reply.reasoning = _reasoning(msg)
        return _with_text_calls(reply), _usage(resp.usage)

    def _streamed(self, request: dict[str, Any]) -> tuple[Reply, Usage | None]:
        stream = self._client.chat.completions.create(
            stream=True, stream_options={"include_usage": True}, **request
        )
        content: list[str] = []
        reasoning: dict[str, list[str]] = {}
        calls: list[dict[str, str]] = []
        current: dict[int, dict[str, str]] = {}  # a stream index -> the call it is writing now
        usage = None
        finish = ""
        for chunk in stream:
            if getattr(chunk, "usage", None):
                usage = _usage(chunk.usage)
            for choice in chunk.choices or []:
                delta = choice.delta
                if delta.content:
                    content.append(delta.content)
                name, piece = _reasoning(delta)
                if piece:
                    reasoning.setdefault(name, []).append(piece)
                for tc in delta.tool_calls or []:
                    _add_delta(calls, current, tc)
                finish = choice.finish_reason or finish
        tool_calls = [ToolCall(v["id"] or f"call_{i}", v["name"], v["arguments"]) for i, v in enumerate(calls)]
        reply = Reply("".join(content), tool_calls, finish)
        if reasoning:
            reply.reasoning_field, pieces = next(iter(reasoning.items()))
            reply.reasoning = "".join(pieces)
        return _with_text_calls(reply), usage

    def _bounded(self, reply: Reply, watch: Watch) -> Reply:
        """What is kept of a reply: its text clipped, a bounded number of calls, no huge arguments."""
        s = self.settings
        limit = s.max_message_bytes
        content = clip(reply.content, limit)
        if watch.cut:
            content += f"\n[... the reply was cut by TestJack after {s.max_response_bytes} bytes]"
        calls = []
        for c in reply.tool_calls[: max(0, s.max_tool_calls)]:
            args, over = c.arguments, 0
            if size(args) > limit:
                args, over = "{}", size(args)
            calls.append(ToolCall(c.id[:NAME_LIMIT], c.name[:NAME_LIMIT], args, over))
        return Reply(
            content=content,
            tool_calls=calls,
            finish_reason="length" if watch.cut else reply.finish_reason[:40],
            dropped_calls=max(0, len(reply.tool_calls) - len(calls)),
            cut=watch.cut,
            reasoning=clip(reply.reasoning, limit),
            reasoning_field=reply.reasoning_field,
            from_text=reply.from_text,
            text_problem=reply.text_problem[:300],
        )

    # -------------------------------------------------------------- the record

    def _start(
        self,
        ctx: AuthorContext,
        purpose: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        prompt_estimate: int,
        conversation: Conversation | None,
    ) -> LLMCall:
        """The call's row, written before the request is sent (outcome ``IN_FLIGHT``) at the worst
        case the budget check assumed: a process killed before the reply leaves it counted so."""
        s = self.settings
        call = LLMCall(
            run_id=ctx.run_id or ctx.task.run_id,
            trial_id=ctx.trial.id if ctx.trial else None,
            task_id=ctx.task.id,
            model=s.model,
            purpose=purpose,
            prompt_tokens=prompt_estimate,
            completion_tokens=worst_completion(s.max_tokens),
            cost_usd=cost_usd(prompt_estimate, worst_completion(s.max_tokens), s.price()),
            latency_s=0.0,
            outcome=IN_FLIGHT,
            transcript=self._transcript(messages, tools, conversation, None, ""),
        )
        if ctx.record_llm_call is not None:
            ctx.record_llm_call(call)
        return call

    def _record(
        self,
        ctx: AuthorContext,
        call: LLMCall,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        reply: Reply | None,
        outcome: str,
        started: float,
        error: str,
        usage: Usage | None = None,
        conversation: Conversation | None = None,
    ) -> None:
        """Complete the row ``_start`` wrote with what the call really took: the server's figures
        when it reported them, an estimate only when it did not."""
        if reply is not None and usage is None:  # servers that report no usage: estimate it
            text = reply.reasoning + reply.content + "".join(c.name + c.arguments for c in reply.tool_calls)
            usage = Usage(estimate_prompt_tokens(messages, tools), estimate_tokens(text) + 1)
        usage = usage or Usage(0, 0)
        call.prompt_tokens, call.completion_tokens = usage.prompt_tokens, usage.completion_tokens
        call.cached_tokens = usage.cached_tokens
        call.cost_usd = (usage.cost_usd if usage.cost_usd is not None
                         else cost_usd(usage.prompt_tokens, usage.completion_tokens, self.settings.price()))
        call.latency_s = round(time.monotonic() - started, 3)
        call.outcome = outcome
        call.transcript = self._transcript(messages, tools, conversation, reply, error)
        if conversation is not None:
            conversation.stored = len(messages) + (1 if reply is not None else 0)
        if ctx.record_llm_call is not None:
            ctx.record_llm_call(call)

    def _transcript(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        conversation: Conversation | None,
        reply: Reply | None,
        error: str,
    ) -> str:
        first = min(conversation.stored, len(messages)) if conversation else 0
        return json.dumps(
            {
                "model": self.settings.model,
                "session": conversation.id if conversation else None,
                "from": first,  # messages before this index are in earlier calls of the session
                "messages": messages[first:],
                "tools": [t["function"]["name"] for t in tools or []],
                "reply": reply.as_message() if reply else None,
                "error": error[:2000],
            },
            ensure_ascii=False,
        )


class _Switched(Exception):
    """A refused request whose dialect was switched: the same call is sent again at once."""


def _arguments(value: Any) -> str:
    """A call's arguments as JSON text: some servers send an object where OpenAI sends text."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _reasoning(message: Any) -> tuple[str, str]:
    """(field, text) of the reasoning a message or delta carries under a name servers use."""
    for name in REASONING_FIELDS:
        value = getattr(message, name, None)
        if isinstance(value, str) and value:
            return name, value
    return "", ""


def _add_delta(calls: list[dict[str, str]], current: dict[int, dict[str, str]], tc: Any) -> None:
    """Add one streamed tool-call delta: to the call its index is writing, or to a new call when
    the index is new or the delta brings a new id (Ollama streams every call at index 0)."""
    slot = current.get(tc.index)
    if slot is None or (tc.id and slot["id"] and tc.id != slot["id"]):
        slot = {"id": "", "name": "", "arguments": ""}
        calls.append(slot)
        current[tc.index] = slot
    if tc.id:
        slot["id"] = tc.id
    fn = tc.function
    if fn is not None and fn.name:
        slot["name"] += fn.name
    if fn is not None and fn.arguments is not None:
        slot["arguments"] += _arguments(fn.arguments)


def _with_text_calls(reply: Reply) -> Reply:
    """``reply`` with the calls written in its text, when the server parsed none."""
    if reply.tool_calls or not reply.content:
        return reply
    found, reply.text_problem = calls_in_text(reply.content)
    if found:
        reply.tool_calls = [ToolCall(f"text_call_{i}", name, args) for i, (name, args) in enumerate(found)]
        reply.from_text = True
    return reply


def _usage(usage: Any) -> Usage | None:
    """The server's figures, read leniently: missing counts are 0, ``cost`` and cached tokens when given."""
    if usage is None:
        return None
    prompt = getattr(usage, "prompt_tokens", None)
    completion = getattr(usage, "completion_tokens", None)
    if prompt is None and completion is None:
        return None
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    cost = getattr(usage, "cost", None)
    return Usage(int(prompt or 0), int(completion or 0),
                 float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None,
                 int(cached or 0))


# what a failed attempt may raise and still be recorded and retried (or refused) as an outcome
_HANDLED = (
    openai.APIError,
    httpx2.HTTPError,
    json.JSONDecodeError,
    ValueError,
    TypeError,
    AttributeError,
    KeyError,
    IndexError,
)


def _retry_after(response: Any) -> float | None:
    try:
        value = response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, ValueError, TypeError):
        return None


def _error_text(exc: Exception) -> str:
    text = str(exc)
    cause = exc.__cause__
    if cause is not None and str(cause) and str(cause) not in text:
        text += f" ({type(cause).__name__}: {cause})"
    return text[:2000]


def _short(exc: Exception) -> str:
    text = str(exc).strip()
    cause = exc.__cause__
    if cause is not None and str(cause).strip():  # openai's wrappers say little; the cause says why
        text = f"{text}: {str(cause).strip()}" if text else str(cause).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__
