"""The author factory: the author named on the command line, made from its own package.

It lives apart from ``base`` because the authors import ``base`` (the interface they implement);
the factory imports the authors, and the audit imports the factory.
"""

from __future__ import annotations

from typing import Any

from testjack_tui.authors.base import Author, NoneAuthor


def make_author(name: str, seed: int = 0, **options: Any) -> Author:
    """The author named on the command line; ``seed`` makes the offline author's inputs repeatable."""
    if name == "none":
        return NoneAuthor()
    # imported here, so that asking for one author never loads the other (the LLM one loads openai)
    if name == "offline":
        from testjack_tui.authors.offline import OfflineAuthor

        return OfflineAuthor(seed=seed, **options)
    if name == "llm":
        from testjack_tui.authors.llm import LLMAuthor

        return LLMAuthor(**options)
    raise ValueError(f"unknown author {name!r} (offline, llm, none)")
