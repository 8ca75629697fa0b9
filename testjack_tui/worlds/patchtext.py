"""Apply one file's part of a unified diff to text in memory.

unidiff parses the patch; it does not apply it, and applying through ``git apply`` would need a
world on disk. Authors and the console only need to *read* a world's file, so a strict in-memory
application (hunks matched at their stated lines, or searched for nearby) is enough; execution
always materialises real worlds with ``git apply``.
"""

from __future__ import annotations

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError


def _norm(path: str) -> str:
    for prefix in ("a/", "b/"):
        if path.startswith(prefix):
            return path[len(prefix):]
    return path


def changed_files(patch: str) -> list[str]:
    """Paths a patch touches (target path, or source path for deletions)."""
    try:
        ps = PatchSet(patch)
    except UnidiffParseError:
        return []
    out = []
    for f in ps:
        out.append(_norm(f.source_file if f.is_removed_file else f.target_file))
    return out


def apply_to_text(patch: str, path: str, text: str | None) -> str | None:
    """The content of ``path`` after ``patch``; unchanged when the patch does not touch it."""
    if not patch.strip():
        return text
    try:
        ps = PatchSet(patch)
    except UnidiffParseError:
        return text
    for pf in ps:
        target = _norm(pf.target_file)
        source = _norm(pf.source_file)
        if path not in (target, source):
            continue
        if pf.is_removed_file:
            return None
        lines = [] if (pf.is_added_file or text is None) else text.splitlines(keepends=True)
        offset = 0
        for hunk in pf:
            old = [l.value for l in hunk if l.is_context or l.is_removed]
            new = [l.value for l in hunk if l.is_context or l.is_added]
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
