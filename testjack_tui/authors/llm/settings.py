"""Where the LLM author finds its endpoint, model, prices and budgets.

Everything comes from keyword options first and the environment second (read by
``testjack_tui.environment``), so that the command line (environment only) and the console or tests
(options) configure the same thing:

- ``OPENAI_BASE_URL`` / ``base_url``: any OpenAI-compatible server (a local vLLM or Ollama server
  is a first-class case; such servers need no key, so a placeholder key is sent);
- ``OPENAI_API_KEY`` / ``api_key``;
- ``TESTJACK_MODEL`` (else ``OPENAI_MODEL``) / ``model``: the model name the server knows;
- ``TESTJACK_LLM_HEADERS`` / ``headers``: JSON ``{"header": "value"}`` sent with every request
  (OpenRouter's ``HTTP-Referer``, Azure's ``api-key``);
- ``TESTJACK_PRICES`` / ``prices``: JSON ``{"model": [usd_per_1k_prompt, usd_per_1k_completion]}``;
  a model without a price costs 0 (a local server), so only token budgets bind it;
- ``TESTJACK_LLM_BUDGET`` / ``budget``: JSON with any of ``run_tokens``, ``run_usd``,
  ``trial_tokens``, ``trial_usd`` (absent = unlimited);
- ``TESTJACK_LLM_OPTIONS`` / keyword options: JSON of the tuning fields of ``LLMSettings``
  (``{"timeout_s": 300, "max_response_bytes": 8000000}``); a keyword option wins over the
  variable. Among them are the bounds of a call (``timeout_s``, ``max_response_bytes``,
  ``max_message_bytes``, ``max_tool_calls``, see ``client.py``) and of a session (``max_turns``,
  ``max_bad_calls``, ``session_deadline_s``, see ``agent.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from testjack_tui.authors.base import AuthorUnavailable
from testjack_tui.environment import BadVariable, Endpoint, LLMOptions, read

BUDGET_KEYS = ("run_tokens", "run_usd", "trial_tokens", "trial_usd")


class BadLLMOption(AuthorUnavailable):
    """An option has a value the author cannot use: bad input (exit 2), named, before any call,
    so that a ``"timeout_s": -1`` is not later blamed on the endpoint."""


@dataclass
class LLMSettings:
    base_url: str | None
    api_key: str
    model: str
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)
    budget: dict[str, float] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    # completion tokens asked for per call (None: no limit is sent); also bounds the cost estimate
    max_tokens: int | None = 2048
    temperature: float | None = 0.0  # None: not sent (reasoning models accept only their default)
    # the field the limit is sent in: "max_tokens", or "max_completion_tokens" (OpenAI's reasoning models)
    max_tokens_field: str = "max_tokens"
    reasoning_effort: str = ""  # sent as ``reasoning_effort`` when set ("low", "medium", "high", ...)
    send_reasoning: bool = True  # send a reply's reasoning (``reasoning_content``) back on the next turn
    # "native": the ``tools`` parameter; "content": tools described in the prompt, calls written in the
    # reply's text; "auto": native, calls found in the text too, content once the server refuses tools
    tool_mode: str = "auto"
    timeout_s: float = 120.0  # wall-clock deadline of one HTTP request, all of it (not per read)
    max_retries: int = 4  # retries of one call on rate limits, server errors, bad bodies
    backoff_s: float = 1.0  # first retry delay; doubles each retry, capped by backoff_cap_s
    backoff_cap_s: float = 30.0
    stream: bool = False  # ask for server-sent events (some local servers answer faster)
    max_turns: int = 24  # model turns of one agent session (checklist, audit, refinement)
    max_bad_calls: int = 3  # malformed tool calls in a row tolerated; one more fails the session
    session_deadline_s: float = 600.0  # wall-clock time of one agent session, every turn and retry included
    # wall-clock time of one trial's audit by the author: its audit session and the re-judgments of
    # its own witnesses, together (each session also keeps its own deadline)
    trial_deadline_s: float = 1800.0
    max_response_bytes: int = 4 * 1024 * 1024  # bytes of one HTTP reply read at most
    max_message_bytes: int = 16_000  # kept of a reply's text, of one call's arguments, of a tool result
    max_tool_calls: int = 8  # tool calls of one reply that are kept and run

    def price(self) -> tuple[float, float]:
        return self.prices.get(self.model, (0.0, 0.0))


# the fields options may set besides endpoint, key, model, prices, budget and headers
TUNING = tuple(
    k for k in LLMSettings.__dataclass_fields__ if k not in ("base_url", "api_key", "model", "prices", "budget", "headers")
)
# the options that may be null (not sent), and the text options with the values they may take
NULLABLE = ("max_tokens", "temperature")
CHOICES = {
    "max_tokens_field": ("max_tokens", "max_completion_tokens"),
    "tool_mode": ("auto", "native", "content"),
}
# the tuning numbers for which 0 makes sense (no retries, no delay, no malformed call tolerated);
# every other one is a size, a count or a deadline and must be above 0
MAY_BE_ZERO = ("temperature", "max_retries", "backoff_s", "backoff_cap_s", "max_bad_calls")


def _check_option(key: str, value: Any) -> str | None:
    """Why ``value`` cannot be tuning option ``key`` (its type is that of the field's default), or None."""
    kind = type(getattr(LLMSettings, key))
    if value is None and key in NULLABLE:
        return None
    if kind is str:
        allowed = CHOICES.get(key)
        if not isinstance(value, str) or (allowed and value not in allowed):
            return f"must be {' or '.join(map(repr, allowed)) if allowed else 'text'}, not {value!r}"
        return None
    if kind is bool:
        return None if isinstance(value, bool) else f"must be true or false, not {value!r}"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)):
        return f"must be {'a whole number' if kind is int else 'a number'}, not {value!r}"
    if not math.isfinite(value):
        return f"must be a finite number, not {value!r}"
    if key in MAY_BE_ZERO:
        return None if value >= 0 else f"must be 0 or more, not {value!r}"
    return None if value > 0 else f"must be greater than 0, not {value!r}"


def amount_problem(value: Any) -> str | None:
    """Why ``value`` cannot be a price or a budget limit (a finite number, 0 or more), or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"must be a number, not {value!r}"
    if not math.isfinite(value) or value < 0:
        return f"must be a finite number, 0 or more, not {value!r}"
    return None


def _prices(raw: Any, where: str) -> dict[str, tuple[float, float]]:
    if raw is None:
        return {}
    pair_shape = "[usd_per_1k_prompt, usd_per_1k_completion]"
    if not isinstance(raw, dict):
        raise BadLLMOption(f"{where} must map model names to {pair_shape}, not {raw!r}"[:300])
    table = {}
    for model, pair in raw.items():
        if not isinstance(pair, list) or len(pair) != 2:
            raise BadLLMOption(f"{where}: {model!r} must map to {pair_shape}, not {pair!r}"[:300])
        for value in pair:
            if problem := amount_problem(value):
                raise BadLLMOption(f"{where}: {model!r}: a price {problem}")
        table[str(model)] = (float(pair[0]), float(pair[1]))
    return table


def _budget(raw: Any, where: str) -> dict[str, float]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise BadLLMOption(f"{where} must be a JSON object with any of {', '.join(BUDGET_KEYS)}, not {raw!r}"[:300])
    unknown = set(raw) - set(BUDGET_KEYS)
    if unknown:
        raise BadLLMOption(f"{where}: unknown budget keys {sorted(unknown)} (known: {', '.join(BUDGET_KEYS)})")
    for key, value in raw.items():
        if value is not None and (problem := amount_problem(value)):
            raise BadLLMOption(f"{where}: {key} {problem}")
    return {k: float(v) for k, v in raw.items() if v is not None}


def _headers(raw: Any, where: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
        raise BadLLMOption(f'{where} must be a JSON object of header names and text values, not {raw!r}'[:300])
    return dict(raw)


def load_settings(
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    model: str | None = None,
    prices: dict[str, Any] | None = None,
    budget: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    **tuning: Any,
) -> LLMSettings:
    """Settings from options and the environment; ``AuthorUnavailable`` says what is missing."""
    given = {"base_url": base_url, "api_key": api_key, "model": model}
    endpoint = read(Endpoint, **{k: v for k, v in given.items() if v})  # a keyword wins over the variable
    base_url, api_key, model = endpoint.base_url, endpoint.api_key, endpoint.model
    if not base_url and not api_key:
        raise AuthorUnavailable(
            "the LLM author needs an OpenAI-compatible endpoint: set OPENAI_BASE_URL (for example "
            "http://localhost:8000/v1 for a local vLLM or Ollama server) and/or OPENAI_API_KEY, "
            "and TESTJACK_MODEL (the model name)"
        )
    if not model:
        raise AuthorUnavailable(
            "the LLM author needs a model name: set TESTJACK_MODEL or OPENAI_MODEL, or give --model "
            "(for example gpt-4o-mini)")
    if base_url and urlsplit(base_url).scheme not in ("http", "https"):  # else every call fails, blaming the server
        name = "base_url" if base_url == given["base_url"] else "OPENAI_BASE_URL"
        raise BadLLMOption(f"{name} must be an http:// or https:// address, not {base_url!r}")
    try:
        given_json = (("prices", prices), ("budget", budget), ("headers", headers))
        env = read(LLMOptions, **{k: v for k, v in given_json if v is not None})
    except BadVariable as exc:  # JSON that does not parse
        raise BadLLMOption(str(exc)) from None
    table = _prices(env.prices, "TESTJACK_PRICES" if prices is None else "prices")
    limits = _budget(env.budget, "TESTJACK_LLM_BUDGET" if budget is None else "budget")
    extra_headers = _headers(env.headers, "TESTJACK_LLM_HEADERS" if headers is None else "headers")
    known = {k: v for k, v in tuning.items() if k in TUNING}
    extra = set(tuning) - set(known)
    if extra:
        raise TypeError(f"unknown LLM author options: {sorted(extra)}")
    from_env = {} if env.options is None else env.options
    if not isinstance(from_env, dict) or set(from_env) - set(TUNING):
        bad = sorted(set(from_env) - set(TUNING)) if isinstance(from_env, dict) else from_env
        raise BadLLMOption(f"TESTJACK_LLM_OPTIONS: unknown options {bad!r} (known: {', '.join(TUNING)})")
    for key, value in known.items():
        if problem := _check_option(key, value):
            raise BadLLMOption(f"LLM author option {key}: {problem}")
    for key, value in from_env.items():
        if key not in known and (problem := _check_option(key, value)):
            raise BadLLMOption(f"TESTJACK_LLM_OPTIONS: {key} {problem}")
    known = {**from_env, **known}
    return LLMSettings(
        base_url=base_url, api_key=api_key or "not-needed", model=model, prices=table, budget=limits,
        headers=extra_headers, **known
    )
