"""A scripted OpenAI-compatible server on loopback, for the LLM author's tests.

``POST /v1/chat/completions`` answers from a queue of scripted replies, one per request, in order;
each reply is a dict built by the helpers below, or a callable that gets the request body and
returns one (for replies that depend on what the author sent). Every request body is kept in
``requests`` so tests can check what the real ``openai`` client sent. An empty queue answers 500
with a message (unless ``default`` is set), so a test that scripted too little fails loudly.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Reply = dict[str, Any]


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


class ScriptedServer:
    def __init__(self) -> None:
        self.queue: list[Reply | Callable[[dict[str, Any]], Reply]] = []
        self.requests: list[dict[str, Any]] = []
        # answers requests once the queue is empty (an agent scripted by what it is asked)
        self.default: Callable[[dict[str, Any]], Reply] | None = None
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_GET(self) -> None:
                self._json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with server.lock:
                    server.requests.append(body)
                    item = server.queue.pop(0) if server.queue else server.default
                if item is None:
                    self._json(500, {"error": {"message": "scripted server: no reply left in the queue"}})
                    return
                reply = item(body) if callable(item) else item
                if reply["kind"] == "status":
                    self._json(reply["status"], {"error": {"message": "scripted failure"}}, reply["headers"])
                elif reply["kind"] == "raw":
                    self._send(200, reply["body"].encode(), "application/json")
                elif reply.get("stream") or body.get("stream"):
                    self._stream(body, reply)
                else:
                    self._json(200, _completion(body, reply))

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

            def _stream(self, body: dict[str, Any], reply: Reply) -> None:
                chunks = []
                base = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 0, "model": body.get("model")}
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
                chunks.append({**base, "choices": [], "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}})
                raw = "".join(f"data: {json.dumps(ch)}\n\n" for ch in chunks) + "data: [DONE]\n\n"
                self._send(200, raw.encode(), "text/event-stream")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
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
        self.httpd.shutdown()
        self.httpd.server_close()


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply["content"]}
    if reply["tool_calls"]:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(reply["tool_calls"])
        ]
    p, c = reply["usage"]
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "scripted"),
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply["tool_calls"] else "stop"}],
        "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
    }
