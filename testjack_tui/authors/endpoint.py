"""The LLM author's server and model as a user gives them: ``--model`` and ``--base-url`` on the
command line, the Model and Base URL fields of the console's audit form.

Both hand them to the author the same way, as its ``model`` and ``base_url`` options; a value left
empty is left out, so the environment's TESTJACK_MODEL (else OPENAI_MODEL) and OPENAI_BASE_URL hold.
It sits apart from ``authors/llm/`` so the console can use it without loading ``openai``.
"""

from __future__ import annotations


def endpoint_options(model: str | None, base_url: str | None) -> dict[str, str]:
    """The author options for ``model`` and ``base_url``; a given one wins over the environment."""
    given = {"model": (model or "").strip(), "base_url": (base_url or "").strip()}
    return {key: value for key, value in given.items() if value}
