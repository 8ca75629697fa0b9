"""Aligning two versions of a file line by line for a side-by-side view (no Textual here).

difflib's SequenceMatcher gives the opcodes; this turns them into rows of (left line, right
line) and folds long runs of equal lines into one marker row, like a unified diff's context.
The console's diff widget only draws these rows.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

CONTEXT = 3


@dataclass(frozen=True)
class Row:
    kind: str  # "equal", "replace", "delete" (left only), "insert" (right only), "fold", "file"
    left_no: int | None = None
    left: str = ""
    right_no: int | None = None
    right: str = ""


@dataclass(frozen=True)
class FilePair:
    """One file as the reference (left) and the trial (right) leave it; None: the file is absent."""

    path: str
    left: str | None
    right: str | None


def align(left: str | None, right: str | None, context: int = CONTEXT) -> list[Row]:
    a = (left or "").splitlines()
    b = (right or "").splitlines()
    rows: list[Row] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            n = i2 - i1
            first, last = i1 == 0, i2 == len(a)
            keep_head = 0 if first else context
            keep_tail = 0 if last else context
            if n > keep_head + keep_tail + 1:
                rows += [Row("equal", i1 + k + 1, a[i1 + k], j1 + k + 1, b[j1 + k]) for k in range(keep_head)]
                rows.append(Row("fold", left=f"{n - keep_head - keep_tail} unchanged lines"))
                rows += [
                    Row("equal", i2 - keep_tail + k + 1, a[i2 - keep_tail + k], j2 - keep_tail + k + 1,
                        b[j2 - keep_tail + k])
                    for k in range(keep_tail)
                ]
            else:
                rows += [Row("equal", i1 + k + 1, a[i1 + k], j1 + k + 1, b[j1 + k]) for k in range(n)]
            continue
        span = max(i2 - i1, j2 - j1)
        for k in range(span):
            li, rj = i1 + k, j1 + k
            has_l, has_r = li < i2, rj < j2
            kind = "replace" if has_l and has_r else ("delete" if has_l else "insert")
            rows.append(
                Row(kind, li + 1 if has_l else None, a[li] if has_l else "",
                    rj + 1 if has_r else None, b[rj] if has_r else "")
            )
    return rows


def align_files(pairs: list[FilePair], context: int = CONTEXT) -> list[tuple[str, Row]]:
    """(path, row) for every file, each file introduced by a "file" row."""
    out: list[tuple[str, Row]] = []
    for pair in pairs:
        note = ""
        if pair.left is None:
            note = " (only in the trial)"
        elif pair.right is None:
            note = " (only in the reference)"
        elif pair.left == pair.right:
            note = " (identical)"
        out.append((pair.path, Row("file", left=pair.path + note)))
        out += [(pair.path, r) for r in align(pair.left, pair.right, context)]
    return out
