"""Cost control: what a call may cost at most, and whether it may start.

A call is refused *before* it is made when its worst case would pass a limit: the prompt's tokens
(estimated from its size, since no tokenizer is known for an arbitrary model) plus the
``max_tokens`` it asks for, priced at the model's rates. Spending is read from the store through
``AuthorContext.spent()``, so limits hold across processes and resumed audits.

``BudgetExhausted`` is a ``Cancelled``: the engine already stops an audit on it without marking
the running step done, so the same command with a bigger budget continues where it stopped.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from testjack_tui.worlds.cancel import Cancelled

CHARS_PER_TOKEN = 3.0  # deliberately low (English averages ~4): estimates err towards refusing


class BudgetExhausted(Cancelled):
    """No further LLM call fits the budget; the audit stops resumable. The message says which limit."""


def estimate_prompt_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
    size = len(json.dumps(messages, ensure_ascii=False)) + len(json.dumps(tools or [], ensure_ascii=False))
    return int(size / CHARS_PER_TOKEN) + 1


def cost_usd(prompt_tokens: int, completion_tokens: int, price: tuple[float, float]) -> float:
    return prompt_tokens / 1000.0 * price[0] + completion_tokens / 1000.0 * price[1]


def check_budget(
    limits: dict[str, float],
    spent: Callable[[], dict[str, tuple[int, float]]] | None,
    prompt_tokens: int,
    max_tokens: int,
    price: tuple[float, float],
    in_trial: bool,
) -> None:
    """Raise ``BudgetExhausted`` if a call of this size could pass any limit."""
    if not limits:
        return
    now = spent() if spent else {}
    worst_tokens = prompt_tokens + max_tokens
    worst_usd = cost_usd(prompt_tokens, max_tokens, price)
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
