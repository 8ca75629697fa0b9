"""Cost control: what a call may cost at most, and whether it may start.

A call is refused *before* it is made when its worst case would pass a limit: the prompt's tokens
(estimated, since no tokenizer is known for an arbitrary model) plus the ``max_tokens`` it asks
for (``UNCAPPED_COMPLETION`` when it asks for no limit), priced at the model's rates.

The estimate counts the pieces a byte-pair tokenizer splits text into: a word (letters and
underscores) is one token up to ``WORD_LETTERS`` letters and one more for each ``WORD_LETTERS``
after; a number is a token per three digits; a run of punctuation is a token per two characters;
whitespace is free (tokenizers fold it into the next piece). A prompt is counted as the server
sees it: the messages' text (not their JSON escapes), a few tokens per message, and the tools'
schemas. A flat 3 characters a
token, used before, counted JSON-heavy agent prompts at nearly twice what servers reported and
tripped token caps early (issue 39: 130k estimated against 72k reported). No tokenizer library is used: the one that would fit (tiktoken) downloads its tables at run time,
and a server's model may not use them anyway. A server's own count always wins: the estimate is
used before a call and for a reply that reports no usage. Spending is read from the store through
``AuthorContext.spent()``, so limits hold across processes and resumed audits.

``BudgetExhausted`` is a ``Cancelled``: the engine already stops an audit on it without marking
the running step done, so the same command with a bigger budget continues where it stopped.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable

from testjack_tui.worlds.cancel import Cancelled

WORD_LETTERS = 8  # a word of up to this many letters is one token; a longer one is split
MESSAGE_OVERHEAD = 4  # tokens a chat template adds around each message (role and separators)
UNCAPPED_COMPLETION = 16_384  # the completion tokens a call that sends no max_tokens is assumed to take
_PIECES = re.compile(r"(?P<word>[^\W\d]+)|(?P<number>\d+)|(?P<marks>[^\w\s]+)")


class BudgetExhausted(Cancelled):
    """No further LLM call fits the budget; the audit stops resumable. The message says which limit."""


def estimate_tokens(text: str) -> int:
    """The tokens of ``text`` as a byte-pair tokenizer would roughly count them (see above)."""
    total = 0
    for m in _PIECES.finditer(text):
        size = m.end() - m.start()
        if m.lastgroup == "word":
            total += 1 + (size - 1) // WORD_LETTERS
        else:
            total += math.ceil(size / (3 if m.lastgroup == "number" else 2))
    return total


def estimate_prompt_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
    """A prompt's tokens: each message's text as the server tokenizes it (not its JSON, whose escapes
    the server never sees), ``MESSAGE_OVERHEAD`` per message for the chat template's markers, and
    the tools' JSON schemas."""
    total = estimate_tokens(json.dumps(tools, ensure_ascii=False)) if tools else 0
    for message in messages:
        total += MESSAGE_OVERHEAD
        for value in message.values():
            total += estimate_tokens(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return total + 1


def worst_completion(max_tokens: int | None) -> int:
    """The completion tokens a call may take at most: its ``max_tokens``, else ``UNCAPPED_COMPLETION``."""
    return UNCAPPED_COMPLETION if max_tokens is None else max_tokens


def cost_usd(prompt_tokens: int, completion_tokens: int, price: tuple[float, float]) -> float:
    return prompt_tokens / 1000.0 * price[0] + completion_tokens / 1000.0 * price[1]


def check_budget(
    limits: dict[str, float],
    spent: Callable[[], dict[str, tuple[int, float]]] | None,
    prompt_tokens: int,
    max_tokens: int | None,
    price: tuple[float, float],
    in_trial: bool,
) -> None:
    """Raise ``BudgetExhausted`` if a call of this size could pass any limit."""
    if not limits:
        return
    now = spent() if spent else {}
    completion = worst_completion(max_tokens)
    worst_tokens = prompt_tokens + completion
    worst_usd = cost_usd(prompt_tokens, completion, price)
    scopes = ["run"] + (["trial"] if in_trial else [])
    for scope in scopes:
        used_tokens, used_usd = now.get(scope, (0, 0.0))
        cap = limits.get(f"{scope}_tokens")
        if cap is not None and used_tokens + worst_tokens > cap:
            raise BudgetExhausted(
                f"LLM token budget per {scope} reached: {used_tokens} used, the next call may take "
                f"{worst_tokens} of {int(cap)}; raise {scope}_tokens in TESTJACK_LLM_BUDGET and run again"
            )
        cap = limits.get(f"{scope}_usd")
        if cap is not None and used_usd + worst_usd > cap:
            raise BudgetExhausted(
                f"LLM money budget per {scope} reached: ${used_usd:.4f} spent, the next call may cost "
                f"${worst_usd:.4f} of ${cap:.2f}; raise {scope}_usd in TESTJACK_LLM_BUDGET and run again"
            )
