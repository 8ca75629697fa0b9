"""A recorded LLM call as readable text, for the console and the command line.

``LLMCall.transcript`` holds the JSON of the whole request (messages, tool names) and the reply or
the error; this turns it into plain text, newest message last.
"""

from __future__ import annotations

import json

from testjack_tui.model import LLMCall


def render_transcript(call: LLMCall, *, limit: int = 4000) -> str:
    """Header line (purpose, model, tokens, cost, latency, outcome), then every message."""
    head = (
        f"{call.purpose} · {call.model} · {call.prompt_tokens}+{call.completion_tokens} tokens · "
        f"${call.cost_usd:.4f} · {call.latency_s:.2f}s · {call.outcome}"
    )
    try:
        data = json.loads(call.transcript or "{}")
    except json.JSONDecodeError:
        return head + "\n" + call.transcript
    parts = [head]
    if data.get("tools"):
        parts.append("tools: " + ", ".join(data["tools"]))
    for msg in data.get("messages", []) + ([data["reply"]] if data.get("reply") else []):
        parts.append(_message(msg, limit))
    if data.get("error"):
        parts.append(f"--- error\n{data['error']}")
    return "\n".join(parts)


def _message(msg: dict, limit: int) -> str:
    role = msg.get("role", "?")
    label = f"--- {role}" + (f" ({msg['tool_call_id']})" if msg.get("tool_call_id") else "")
    body = msg.get("content") or ""
    if len(body) > limit:
        body = body[:limit] + f"\n... ({len(body) - limit} more characters)"
    calls = [
        f"→ {c['function']['name']}({c['function']['arguments'][:limit]})" for c in msg.get("tool_calls") or []
    ]
    return "\n".join([label, body, *calls]).rstrip()
