"""A recorded LLM call as readable text, for the console and the command line.

``LLMCall.transcript`` holds JSON: the model, the session (``Conversation``) the call belongs to,
the messages that are new since the session's previous call (``from`` is the index of the first
one; the first call of a session has them all, from the system prompt on), the tool names, and
the reply or the error. A session is thus stored once, whatever its length; ``render_session``
puts its calls back together. Older records hold every message of the request and no session.
"""

from __future__ import annotations

import json

from testjack_tui.model import LLMCall


def render_transcript(call: LLMCall, *, limit: int = 4000) -> str:
    """Header line (purpose, model, tokens, cost, latency, outcome), then the call's messages."""
    data = _data(call)
    if data is None:
        return _head(call) + "\n" + call.transcript
    parts = [_head(call)]
    if data.get("tools"):
        parts.append("tools: " + ", ".join(data["tools"]))
    if data.get("from"):
        parts.append(f"(session {data.get('session')}: continues after message {data['from']}; "
                     "the earlier ones are in the session's earlier calls)")
    parts.extend(_body(data, limit))
    return "\n".join(parts)


def render_session(calls: list[LLMCall], session: str, *, limit: int = 4000) -> str:
    """Every message of one session, in order, each call's header before its part."""
    parts: list[str] = []
    for call in calls:
        data = _data(call)
        if data is None or data.get("session") != session:
            continue
        parts.append("=== " + _head(call))
        parts.extend(_body(data, limit))
    return "\n".join(parts)


def _data(call: LLMCall) -> dict | None:
    try:
        data = json.loads(call.transcript or "{}")
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def _head(call: LLMCall) -> str:
    return (
        f"{call.purpose} · {call.model} · {call.prompt_tokens}+{call.completion_tokens} tokens · "
        f"${call.cost_usd:.4f} · {call.latency_s:.2f}s · {call.outcome}"
    )


def _body(data: dict, limit: int) -> list[str]:
    parts = [_message(msg, limit) for msg in data.get("messages", []) + ([data["reply"]] if data.get("reply") else [])]
    if data.get("error"):
        parts.append(f"--- error\n{data['error']}")
    return parts


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
