"""Helpers for the evidence tests: build a trial's unified diff from before/after file contents."""

from __future__ import annotations

import difflib
import textwrap


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def make_diff(before: dict[str, str], after: dict[str, str]) -> str:
    """A git-style unified diff turning ``before`` into ``after`` (None or absence = no file)."""
    out = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        out.append(f"diff --git a/{path} b/{path}\n")
        if old is None:
            out.append("new file mode 100644\n")
        if new is None:
            out.append("deleted file mode 100644\n")
        lines = difflib.unified_diff((old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True),
                                     "/dev/null" if old is None else f"a/{path}",
                                     "/dev/null" if new is None else f"b/{path}", n=3)
        out.extend(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return "".join(out)


class Trial:
    """A repository before and after a trial: its diff and a reader of the post-patch files."""

    def __init__(self, before: dict[str, str], changes: dict[str, str | None]):
        self.before = {k: code(v) for k, v in before.items()}
        self.after = dict(self.before)
        for path, text in changes.items():
            if text is None:
                self.after.pop(path, None)
            else:
                self.after[path] = code(text)
        self.patch = make_diff(self.before, self.after)

    def read(self, path: str) -> str | None:
        return self.after.get(path)
