"""Tool calls a model wrote in its reply's text, for servers that do not parse them into ``tool_calls``.

A model served without tool support (no tool-call parser on a vLLM or llama.cpp server, an Ollama
model whose template has no tools) still writes its calls, in one of three shapes: blocks of
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (Hermes, Qwen and their kin), a
fenced JSON block, or the reply's whole text as one JSON object (or a list of them). The object
names the tool as ``name`` (or inside ``function``) and its arguments as ``arguments`` or
``parameters``, an object or JSON text. ``CONTENT_FORMAT`` is the shape TestJack asks for when it
describes the tools in the prompt itself (``tool_mode`` "content").

Only these shapes count: prose that mentions a tool is not a call. A text that has the shape of a
call but cannot be read (broken JSON, no name) gives a problem, which the session sends back as
a short correction.
"""

from __future__ import annotations

import json
import re
from typing import Any

CONTENT_FORMAT = '<tool_call>{"name": "<tool name>", "arguments": {<the arguments as JSON>}}</tool_call>'

_TAG = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
_FENCE = re.compile(r"```[\w-]*\s*\n(.*?)\n?```", re.S)


def calls_in_text(text: str) -> tuple[list[tuple[str, str]], str]:
    """The (tool name, arguments as JSON text) calls written in ``text``, and the problem of a
    call-shaped text that could not be read ("" when there is none)."""
    blocks = [m.group(1) for m in _TAG.finditer(text)] if "<tool_call>" in text else []
    if not blocks:
        blocks = [m.group(1) for m in _FENCE.finditer(text)]
        if not blocks and text.strip()[:1] in ("{", "["):
            blocks = [text.strip()]
        if not any('"name"' in b for b in blocks):  # JSON that names no tool is not a call
            return [], ""
    calls: list[tuple[str, str]] = []
    problem = ""
    for block in blocks:
        found, why = _read_block(block)
        calls.extend(found)
        problem = problem or why
    return calls, problem


def _read_block(block: str) -> tuple[list[tuple[str, str]], str]:
    start = min((i for i in (block.find("{"), block.find("[")) if i >= 0), default=-1)
    if start < 0:
        return [], "a tool call holds no JSON object"
    try:
        data, _end = json.JSONDecoder().raw_decode(block[start:])
    except json.JSONDecodeError as exc:
        return [], f"a tool call's JSON does not parse ({exc.msg} at {exc.pos})"
    items = data if isinstance(data, list) else [data]
    calls = []
    for item in items:
        call = _as_call(item)
        if call is None:
            return calls, 'a tool call must be an object with "name" and "arguments"'
        calls.append(call)
    return calls, ""


def _as_call(item: Any) -> tuple[str, str] | None:
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("function"), dict):  # the OpenAI shape, written out
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str) or not name:
        return None
    args = item.get("arguments", item.get("parameters", {}))
    return name, args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)


def describe_tools(tools: list[dict[str, Any]]) -> str:
    """The tools, for a prompt: what a server without tool support is told instead of ``tools``."""
    lines = [
        "You have these tools. To call one, write in your reply, for each call:",
        CONTENT_FORMAT,
        "and nothing else after your calls; the results come back in the next message.",
        "",
    ]
    for tool in tools:
        fn = tool["function"]
        lines.append(f"- {fn['name']}: {fn['description']} Arguments (JSON Schema): "
                     f"{json.dumps(fn['parameters'], ensure_ascii=False)}")
    return "\n".join(lines)
