"""Apply one file's part of a unified diff to text in memory.

``patches.read_patch`` reads the patch; unidiff does not apply it, and applying through ``git apply`` would need a
world on disk. Authors and the console only need to *read* a world's file, so a strict in-memory
application (hunks matched at their stated lines, or searched for nearby) is enough; execution
always materialises real worlds with ``git apply``.
"""

from __future__ import annotations

from testjack_tui.patches import read_patch


def apply_to_text(patch: str, path: str, text: str | None) -> str | None:
    """The content of ``path`` after ``patch``; unchanged when the patch does not touch it."""
    for changed in read_patch(patch):
        if path not in (changed.target, changed.source):
            continue
        if changed.is_removed:
            return None
        lines = [] if (changed.is_added or text is None) else text.splitlines(keepends=True)
        offset = 0
        for hunk in changed.hunks:
            old, new = hunk.old, hunk.new
            start = max(hunk.source_start - 1, 0) + offset
            at = _find(lines, old, start)
            if at is None:
                return text  # does not apply: show the file as it was
            lines[at : at + len(old)] = new
            offset += len(new) - len(old)
        return "".join(lines)
    return text


def _find(lines: list[str], block: list[str], start: int) -> int | None:
    if not block:
        return min(start, len(lines))
    norm = [b.rstrip("\r\n") for b in block]
    def matches(i: int) -> bool:
        return i >= 0 and i + len(block) <= len(lines) and [l.rstrip("\r\n") for l in lines[i : i + len(block)]] == norm
    for delta in range(0, len(lines) + 1):
        for i in (start + delta, start - delta):
            if matches(i):
                return i
    return None
