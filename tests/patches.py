"""Patches the tests write for the runs they build."""

import difflib


def diff(path: str, before: str, after: str) -> str:
    """A git-style diff of one file from ``before`` ("" for a new file) to ``after``."""
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 "/dev/null" if not before else f"a/{path}", f"b/{path}")
    return f"diff --git a/{path} b/{path}\n" + "".join(lines)
