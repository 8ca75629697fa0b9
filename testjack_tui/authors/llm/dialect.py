"""What a server accepts in a request, and the switches that answer a refusal naming a parameter.

OpenAI-compatible servers differ in a few fields of the same request: OpenAI's reasoning models
refuse ``max_tokens`` (they take ``max_completion_tokens``) and any temperature but their default;
some servers refuse ``reasoning_effort`` or the ``tools`` parameter. The settings choose the
starting point (``max_tokens_field``, ``temperature``, ``reasoning_effort``, ``tool_mode``); a 400
whose message names one of those parameters is answered once by switching it (the limit goes to
the other field, the temperature or the effort is no longer sent, tools move into the prompt),
and the switch holds for the rest of the run, since one ``Dialect`` belongs to one client. Each
switch goes one way only, so a server that refuses every form fails after at most four retries.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

from testjack_tui.authors.llm.settings import LLMSettings

# how servers say they take no tools ("does not support tools", vLLM's "auto" tool choice needs a flag);
# not "role 'tool'", which is about the messages
TOOLS_REFUSED = re.compile(r"\btools\b|tool.choice|support.{0,20}\btool|function.call")
OTHER_LIMIT = {"max_tokens": "max_completion_tokens", "max_completion_tokens": "max_tokens"}


@dataclass
class Dialect:
    max_tokens_field: str
    send_temperature: bool
    send_effort: bool
    tool_mode: str  # "auto", "native" or "content"
    switched: list[str] = field(default_factory=list)  # what was switched, in words, in order
    _limit_switched: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def of(cls, settings: LLMSettings) -> "Dialect":
        return cls(settings.max_tokens_field, settings.temperature is not None, bool(settings.reasoning_effort),
                   settings.tool_mode)

    def tools_in_prompt(self) -> bool:
        return self.tool_mode == "content"

    def fields(self, settings: LLMSettings, with_tools: bool) -> dict[str, Any]:
        """The request's tuning fields, as this server takes them (model and messages aside)."""
        out: dict[str, Any] = {}
        if settings.max_tokens is not None:
            out[self.max_tokens_field] = settings.max_tokens
        if self.send_temperature and settings.temperature is not None:
            out["temperature"] = settings.temperature
        if self.send_effort and settings.reasoning_effort:
            out["reasoning_effort"] = settings.reasoning_effort
        return out

    def switch(self, message: str, settings: LLMSettings, sent: dict[str, Any]) -> str:
        """Answer a 400 whose ``message`` names a parameter of the request ``sent``: switch it and
        say what was switched, or "" when nothing names one that can still be switched."""
        text = message.lower()
        with self._lock:
            done = self._switch(text, settings, sent)
            if done:
                self.switched.append(done)
            return done

    def _switch(self, text: str, settings: LLMSettings, sent: dict[str, Any]) -> str:
        field_sent = next((f for f in OTHER_LIMIT if f in sent), None)
        if field_sent and not self._limit_switched and _names(text, field_sent):
            self._limit_switched = True
            self.max_tokens_field = OTHER_LIMIT[field_sent]
            return f"the limit is sent as {self.max_tokens_field} (the server refused {field_sent})"
        if "temperature" in sent and self.send_temperature and _names(text, "temperature"):
            self.send_temperature = False
            return "no temperature is sent (the server refused it)"
        if "reasoning_effort" in sent and self.send_effort and _names(text, "reasoning_effort"):
            self.send_effort = False
            return "no reasoning_effort is sent (the server refused it)"
        if "tools" in sent and self.tool_mode == "auto" and TOOLS_REFUSED.search(text):
            self.tool_mode = "content"
            return "tools are described in the prompt, calls read from the reply's text (the server refused tools)"
        return ""


def _names(text: str, parameter: str) -> bool:
    """Whether an error message names ``parameter`` as a whole word (max_tokens is not
    max_completion_tokens)."""
    return re.search(rf"(?<![\w]){re.escape(parameter)}(?![\w])", text) is not None
