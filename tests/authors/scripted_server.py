"""A scripted OpenAI-compatible server on loopback, for the LLM author's tests.

``POST /v1/chat/completions`` answers from a queue of scripted replies, one per request, in order;
each reply is a dict built by the helpers below, or a callable that gets the request body and
returns one (for replies that depend on what the author sent). Every request body is kept in
``requests`` so tests can check what the real ``openai`` client sent. An empty queue answers 500
with a message (unless ``default`` is set), so a test that scripted too little fails loudly.

Two replies misbehave on purpose, for the client's bounds: ``trickle`` sends a reply one byte at
a time (from the status line on, or only the body), and ``flood`` sends a reply of any size,
written as the client reads it. Both stop when the client goes away and say when and after how
many bytes (``disconnected``, ``disconnected_after``, ``sent``). ``body_sizes`` and ``paths``
hold the size and the target of every request.

``dialect`` makes the server speak like one kind of real server (``DIALECTS``): it refuses what
that kind refuses, with the error text it sends, and writes its replies as that kind does.
``models`` is what ``GET /v1/models`` lists.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Reply = dict[str, Any]

# how real servers differ, each as a name a test can give to ``ScriptedServer.dialect``
DIALECTS = {
    "openai": "standard tool calling",
    "reasoning": "OpenAI reasoning models: max_tokens and a temperature other than 1 refused",
    "thinking": "DeepSeek, Kimi, GLM: replies carry reasoning_content, which must come back with tool calls",
    "object-args": "some llama.cpp builds and proxies: tool arguments as a JSON object",
    "ollama-stream": "Ollama streaming: every tool call at index 0, each whole in one chunk",
    "text-calls": "no tool parser: calls written in the text as <tool_call> blocks",
    "no-tools": "tools refused outright; calls written in the text as fenced JSON",
    "no-usage": "no usage in replies",
    "openrouter": "usage with the server's cost and cached prompt tokens",
}
THINKING = "First I look at the prompt, then I decide."


def tool_call(name: str, arguments: dict[str, Any] | str, *, stream: bool = False, usage=(100, 20)) -> Reply:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"kind": "message", "tool_calls": [(name, args)], "content": None, "stream": stream, "usage": usage}


def tool_calls(*calls: tuple[str, dict[str, Any] | str], usage=(100, 20)) -> Reply:
    pairs = [(n, a if isinstance(a, str) else json.dumps(a)) for n, a in calls]
    return {"kind": "message", "tool_calls": pairs, "content": None, "stream": False, "usage": usage}


def answer(text: str, *, stream: bool = False, usage=(100, 20)) -> Reply:
    return {"kind": "message", "tool_calls": [], "content": text, "stream": stream, "usage": usage}


def rate_limited(retry_after: float = 0) -> Reply:
    return {"kind": "status", "status": 429, "headers": {"Retry-After": str(retry_after)}}


def server_error(status: int = 500) -> Reply:
    return {"kind": "status", "status": status, "headers": {}}


def garbage() -> Reply:
    return {"kind": "raw", "body": "{this is not json"}


def trickle(*, phase: str = "headers", interval: float = 0.2, stream: bool = False) -> Reply:
    """A reply sent one byte every ``interval`` seconds: all of it (``phase="headers"``) or only
    its body after prompt headers (``phase="body"``); ``stream`` sends server-sent events."""
    return {"kind": "trickle", "phase": phase, "interval": interval, "stream": stream}


def flood(size: int, *, stream: bool = False, content_length: bool = False) -> Reply:
    """A reply whose text is ``size`` bytes of "x": one JSON body (chunked, or with a
    Content-Length when ``content_length``) or, with ``stream``, events of 64 KiB of text each."""
    return {"kind": "flood", "size": size, "stream": stream, "content_length": content_length}


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up mid-reply (the tests of deadlines and floods do it on purpose) is
    expected, so it prints no traceback; any other handler error still does."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class ScriptedServer:
    def __init__(self) -> None:
        self.queue: list[Reply | Callable[[dict[str, Any]], Reply]] = []
        self.requests: list[dict[str, Any]] = []
        # answers requests once the queue is empty (an agent scripted by what it is asked)
        self.default: Callable[[dict[str, Any]], Reply] | None = None
        self.dialect = "openai"
        self.models = ["scripted"]
        self.check_model = False  # answer a model it does not list with 404, as vLLM and Ollama do
        self.lock = threading.Lock()
        self.body_sizes: list[int] = []
        self.paths: list[str] = []  # the request target of every POST, as sent
        self.headers: list[dict[str, str]] = []  # the HTTP headers of every POST, names in lower case
        self.sent: list[int] = []  # bytes written by each trickle or flood reply before it ended
        self.disconnected = threading.Event()  # a trickle or flood reply found the client gone
        self.disconnected_after: float | None = None  # seconds from its request to finding that
        self.stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_GET(self) -> None:
                if "/v1/" not in self.path:  # as Ollama and vLLM answer a base URL without /v1
                    self._send(404, b"404 page not found", "text/plain")
                    return
                self._json(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in server.models]})

            def do_POST(self) -> None:
                started = time.monotonic()
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                body = json.loads(raw or b"{}")
                if "/v1/" not in self.path:
                    self._send(404, b"404 page not found", "text/plain")
                    return
                with server.lock:
                    server.body_sizes.append(len(raw))
                    server.paths.append(self.path)
                    server.headers.append({k.lower(): v for k, v in self.headers.items()})
                    server.requests.append(body)
                    if server.check_model and body.get("model") not in server.models:
                        self._json(404, {"error": {"message": f"model {body.get('model')!r} not found"}})
                        return
                    refused = _refusal(server.dialect, body)
                    if refused:
                        self._json(400, {"error": {"message": refused, "type": "invalid_request_error"}})
                        return
                    item = server.queue.pop(0) if server.queue else server.default
                if item is None:
                    self._json(500, {"error": {"message": "scripted server: no reply left in the queue"}})
                    return
                reply = item(body) if callable(item) else item
                if reply["kind"] == "status":
                    self._json(reply["status"], {"error": {"message": "scripted failure"}}, reply["headers"])
                elif reply["kind"] == "raw":
                    self._send(200, reply["body"].encode(), "application/json")
                elif reply["kind"] in ("trickle", "flood"):
                    self.close_connection = True
                    reply = {**reply, "stream": reply["stream"] or bool(body.get("stream"))}
                    written = 0
                    try:
                        pieces = self._trickled(body, reply) if reply["kind"] == "trickle" else self._flooded(body, reply)
                        for piece in pieces:
                            if server.stopping.is_set():
                                return
                            self.wfile.write(piece)
                            written += len(piece)
                    except OSError:
                        server.disconnected_after = time.monotonic() - started
                        server.disconnected.set()
                    finally:
                        server.sent.append(written)
                elif server.dialect == "ollama-stream" and body.get("stream"):
                    self._ollama_stream(body, reply)
                elif reply.get("stream") or body.get("stream"):
                    self._stream(body, _in_text(server.dialect, reply))
                else:
                    self._json(200, _completion(body, reply, server.dialect))

            def _trickled(self, body: dict[str, Any], reply: Reply):
                if reply["stream"]:
                    ctype = "text/event-stream"
                    event = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": body.get("model"),
                             "choices": [{"index": 0, "delta": {"content": "slow"}, "finish_reason": None}]}
                    payload = (f"data: {json.dumps(event)}\n\n" * 20).encode()
                else:
                    ctype = "application/json"
                    payload = json.dumps(_completion(body, answer("this reply never ends in time"))).encode()
                head = (f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {len(payload)}\r\n"
                        "Connection: close\r\n\r\n").encode()
                if reply["phase"] == "body":
                    yield head
                    data = payload
                else:
                    data = head + payload
                for i in range(len(data)):
                    yield data[i:i + 1]
                    time.sleep(reply["interval"])  # the trickle itself: the one sleep of these tests

            def _flooded(self, body: dict[str, Any], reply: Reply):
                size, block = reply["size"], 64 * 1024
                if reply["stream"]:
                    event = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": body.get("model"),
                             "choices": [{"index": 0, "delta": {"content": "x" * block}, "finish_reason": None}]}
                    parts = [f"data: {json.dumps(event)}\n\n".encode()] * max(1, size // block) + [b"data: [DONE]\n\n"]
                    ctype = "text/event-stream"
                else:
                    done = json.dumps(_completion(body, answer("@@")))
                    prefix, suffix = (t.encode() for t in done.split("@@"))
                    parts = [prefix] + [b"x" * block] * max(1, size // block) + [suffix]
                    ctype = "application/json"
                head = f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nConnection: close\r\n"
                if reply["content_length"]:
                    yield (head + f"Content-Length: {sum(len(p) for p in parts)}\r\n\r\n").encode()
                    yield from parts
                    return
                yield (head + "Transfer-Encoding: chunked\r\n\r\n").encode()
                for part in parts:
                    yield f"{len(part):x}\r\n".encode() + part + b"\r\n"
                yield b"0\r\n\r\n"

            def _json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
                self._send(status, json.dumps(data).encode(), "application/json", headers)

            def _send(self, status: int, raw: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(raw)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

            def _ollama_stream(self, body: dict[str, Any], reply: Reply) -> None:
                base = {"id": "chatcmpl-o", "object": "chat.completion.chunk", "created": 0, "model": body.get("model")}
                chunks = [{**base, "choices": [{"index": 0, "delta": {"content": reply["content"] or ""},
                                                "finish_reason": None}]}]
                for i, (name, args) in enumerate(reply["tool_calls"]):
                    tc = {"index": 0, "id": f"call_o{i}", "type": "function", "function": {"name": name, "arguments": args}}
                    chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [tc]}, "finish_reason": None}]})
                p, c = reply["usage"]
                chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                               "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}})
                raw = "".join(f"data: {json.dumps(ch)}\n\n" for ch in chunks) + "data: [DONE]\n\n"
                self._send(200, raw.encode(), "text/event-stream")

            def _stream(self, body: dict[str, Any], reply: Reply) -> None:
                chunks = []
                base = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 0, "model": body.get("model")}
                if server.dialect == "thinking":
                    chunks.append({**base, "choices": [{"index": 0, "delta": {"reasoning_content": THINKING},
                                                        "finish_reason": None}]})
                if reply["content"]:
                    for piece in (reply["content"][: len(reply["content"]) // 2], reply["content"][len(reply["content"]) // 2:]):
                        chunks.append({**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
                for i, (name, args) in enumerate(reply["tool_calls"]):
                    half = len(args) // 2
                    first = {"index": i, "id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": args[:half]}}
                    second = {"index": i, "function": {"arguments": args[half:]}}
                    for tc in (first, second):
                        chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [tc]}, "finish_reason": None}]})
                finish = "tool_calls" if reply["tool_calls"] else "stop"
                chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
                p, c = reply["usage"]
                if server.dialect != "no-usage":
                    chunks.append({**base, "choices": [], "usage": {"prompt_tokens": p, "completion_tokens": c,
                                                                    "total_tokens": p + c}})
                raw = "".join(f"data: {json.dumps(ch)}\n\n" for ch in chunks) + "data: [DONE]\n\n"
                self._send(200, raw.encode(), "text/event-stream")

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def script(self, *replies: Reply | Callable[[dict[str, Any]], Reply]) -> None:
        with self.lock:
            self.queue.extend(replies)

    def __enter__(self) -> "ScriptedServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def _refusal(dialect: str, body: dict[str, Any]) -> str:
    """The error message a server of ``dialect`` answers ``body`` with (400), or ""."""
    if dialect == "reasoning" and "max_tokens" in body:
        return ("Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.")
    if dialect == "reasoning" and body.get("temperature", 1) != 1:
        return (f"Unsupported value: 'temperature' does not support {body['temperature']} with this model. "
                "Only the default (1) value is supported.")
    if dialect == "thinking":
        for i, m in enumerate(body.get("messages", [])):
            if m.get("role") == "assistant" and m.get("tool_calls") and not m.get("reasoning_content"):
                return f"thinking is enabled but reasoning_content is missing in assistant tool call message at index {i}"
    if dialect == "no-tools" and "tools" in body:
        return "registry.ollama.ai/library/scripted:latest does not support tools"
    return ""


def _in_text(dialect: str, reply: Reply) -> Reply:
    """``reply`` with its tool calls written in its text, as a server without a tool parser sends them."""
    if dialect not in ("text-calls", "no-tools") or not reply.get("tool_calls"):
        return reply
    def obj(name: str, args: str) -> str:
        try:
            return json.dumps({"name": name, "arguments": json.loads(args)})
        except json.JSONDecodeError:
            return '{"name": "%s", "arguments": %s}' % (name, args)
    if dialect == "text-calls":
        text = "I will call a tool.\n" + "\n".join(f"<tool_call>\n{obj(n, a)}\n</tool_call>" for n, a in reply["tool_calls"])
    else:
        text = "\n".join(f"```json\n{obj(n, a)}\n```" for n, a in reply["tool_calls"])
    return {**reply, "tool_calls": [], "content": text}


def _completion(body: dict[str, Any], reply: Reply, dialect: str = "openai") -> dict[str, Any]:
    reply = _in_text(dialect, reply)
    message: dict[str, Any] = {"role": "assistant", "content": reply["content"]}
    if dialect == "thinking":
        message["reasoning_content"] = THINKING
    if reply["tool_calls"]:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(reply["tool_calls"])
        ]
        if dialect == "object-args":
            for call in message["tool_calls"]:
                try:
                    call["function"]["arguments"] = json.loads(call["function"]["arguments"])
                except json.JSONDecodeError:
                    pass
    p, c = reply["usage"]
    usage: dict[str, Any] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    if dialect == "openrouter":
        usage.update(cost=0.00042, prompt_tokens_details={"cached_tokens": p // 2})
    out = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "scripted"),
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply["tool_calls"] else "stop"}],
        "usage": usage,
    }
    if dialect == "no-usage":
        del out["usage"]
    return out


def make(server: "ScriptedServer", **options: Any):
    """An LLM author talking to ``server`` (no backoff between retries, so tests stay fast)."""
    from testjack_tui.authors.llm import LLMAuthor

    options = {"base_url": server.base_url, "api_key": "k", "model": "scripted", "backoff_s": 0.0, **options}
    return LLMAuthor(**options)
