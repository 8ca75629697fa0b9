"""Text from runs and trials, made safe to place in the report's Markdown.

Model names, requirements, reasons, ids and witness code come from run files, prompts, trials and
analysts; written into Markdown as they are, a ``|`` splits a table cell, a backtick ends a code
span, a ``*`` or ``_`` starts emphasis, a fence inside a witness's code ends its block. Markdown
libraries parse and render but have no writer for this, so these few functions do it (CommonMark's
rules: any ASCII punctuation may be escaped with a backslash; a code span or fence is closed only
by a run of backticks as long as the one that opened it). Ordinary text comes out unchanged, so
reports of ordinary runs read as they always have.
"""

from __future__ import annotations

import re

# what can start or end inline markup; '_' only at a word's edge (inside a word it is plain text)
_INLINE = re.compile(r"[\\`*\[\]<>|~]|(?<!\w)_|_(?!\w)")


def text(value: object) -> str:
    """``value`` as inline Markdown text (a table cell too): its own words, no markup, on one line."""
    flat = " ".join(str(value).split())
    return _INLINE.sub(lambda m: "\\" + m.group(0), flat)


def code(value: object) -> str:
    """``value`` as an inline code span, however many backticks it holds."""
    flat = " ".join(str(value).split())
    ticks = "`" * (_longest_run(flat) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def fence(source: str, lang: str = "") -> list[str]:
    """``source`` as a fenced block whose fence no line of it can close."""
    ticks = "`" * max(3, _longest_run(source) + 1)
    return [f"{ticks}{lang}", source.rstrip(), ticks]


def _longest_run(value: str) -> int:
    return max((len(run) for run in re.findall(r"`+", value)), default=0)
