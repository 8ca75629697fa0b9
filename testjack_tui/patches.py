"""The files a unified diff touches, read one way for every part of TestJack.

Worlds apply patches, the Python-source readers find the functions a patch changes, the evidence
collectors look for tampering, the importers name the tests a test patch adds: they all ask the
same question of a diff, so they all read it here. unidiff does the parsing; this module only
settles what a path is (one ``a/`` or ``b/`` prefix dropped, ``/dev/null`` meaning "no file") and
which line numbers the patch adds, so no caller re-derives them and two callers cannot disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

_DEV_NULL = "/dev/null"
# The headers of a diff unidiff cannot read; paths without spaces, as the tools will read them.
_HEADER = re.compile(r"^(?:diff --git a/(\S+) b/(\S+)|--- (\S+)|\+\+\+ (\S+))", re.M)


class UnreadablePatch(ValueError):
    """unidiff cannot read the text as a unified diff."""


@dataclass(frozen=True)
class Hunk:
    """One hunk: where it starts in the old and new file, and its lines as (kind, text).

    ``kind`` is unidiff's: ``" "`` context, ``"-"`` removed, ``"+"`` added, ``"\\"`` a "No newline
    at end of file" marker; ``text`` keeps its newline.
    """

    source_start: int
    target_start: int
    lines: tuple[tuple[str, str], ...]

    @property
    def old(self) -> list[str]:
        """The lines the hunk expects in the file before the patch."""
        return [text for kind, text in self.lines if kind in " -"]

    @property
    def new(self) -> list[str]:
        """The lines the hunk leaves in the file after the patch."""
        return [text for kind, text in self.lines if kind in " +"]


@dataclass(frozen=True)
class FileDiff:
    """One file of a diff."""

    source: str | None  # path before the patch; None when the patch creates the file
    target: str | None  # path after the patch; None when the patch removes the file
    is_added: bool = False
    is_removed: bool = False
    hunks: tuple[Hunk, ...] = ()
    added: dict[int, str] = field(default_factory=dict)  # post-patch line number -> text, no newline
    removed: tuple[str, ...] = ()  # removed lines' text, no newline
    text: str = ""  # this file's part of the diff, headers included, as unidiff writes it back

    @property
    def path(self) -> str:
        """The file the patch leaves (a rename's new name); for a removal, the file it removes."""
        return (self.source if self.is_removed else self.target) or self.source or self.target or ""


def strip_prefix(path: str | None) -> str | None:
    """A diff's path as a repository path: one ``a/`` or ``b/`` dropped, ``/dev/null`` is None."""
    if not path or path == _DEV_NULL:
        return None
    path = path.split("\t")[0]
    return path[2:] if path[:2] in ("a/", "b/") else path


def read_patch(text: str, *, strict: bool = False) -> list[FileDiff]:
    """Every file of a unified diff, in order; no files for an empty diff.

    A diff unidiff cannot read gives no files, or raises UnreadablePatch when ``strict``.
    """
    if not text or not text.strip():
        return []
    try:
        patch = PatchSet(text)
    except UnidiffParseError as exc:
        if strict:
            raise UnreadablePatch(str(exc)) from exc
        return []
    return [_file(pf) for pf in patch]


def _file(pf) -> FileDiff:
    hunks, added, removed = [], {}, []
    for hunk in pf:
        # unidiff keeps a blank line that separates files as an empty-typed line of the last
        # hunk: it is not part of the file, so it is left out
        lines = tuple((line.line_type, line.value) for line in hunk if line.line_type)
        hunks.append(Hunk(hunk.source_start, hunk.target_start, lines))
        for line in hunk:
            if line.is_added:
                added[line.target_line_no] = line.value.rstrip("\n")
            elif line.is_removed:
                removed.append(line.value.rstrip("\n"))
    return FileDiff(
        # a diff may say a file is new or gone by its hunk (``@@ -0,0 +1,2 @@``) alone
        source=None if pf.is_added_file else strip_prefix(pf.source_file),
        target=None if pf.is_removed_file else strip_prefix(pf.target_file),
        is_added=pf.is_added_file, is_removed=pf.is_removed_file,
        hunks=tuple(hunks), added=added, removed=tuple(removed), text=str(pf))


def touched_paths(text: str) -> list[str]:
    """Every path a diff reads or writes (a rename's old and new name), once, in order.

    Of a diff unidiff cannot read, the paths its header lines name: whoever applies it still
    needs to know which files it may write.
    """
    try:
        found = [p for f in read_patch(text, strict=True) for p in (f.source, f.target) if p]
    except UnreadablePatch:
        found = [p for m in _HEADER.finditer(text) for p in map(strip_prefix, m.groups()) if p]
    return list(dict.fromkeys(found))


def file_paths(text: str) -> list[str]:
    """Each file's ``path`` once, in order: the files a diff leaves changed, created or removed.

    Of a diff unidiff cannot read, the new names its header lines give (a task's test files are
    still placed by them, as ``git apply`` may still apply it)."""
    try:
        found = [f.path for f in read_patch(text, strict=True)]
    except UnreadablePatch:
        # the new side: ``diff --git``'s b path, or a ``+++`` line (``---`` names the old side)
        found = [p for m in _HEADER.finditer(text) if (p := strip_prefix(m.group(2) or m.group(4)))]
    return list(dict.fromkeys(found))
