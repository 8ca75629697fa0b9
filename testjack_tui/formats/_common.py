"""Helpers the benchmark importers share: reading JSON records, writing snapshots, making diffs.

Records: benchmarks ship rows as JSONL (optionally gzipped) or as one JSON document (a list of
rows, or a dict of rows keyed by id). :func:`read_records` reads all of them the same way and
reports a bad line as an :class:`ImportProblem` instead of stopping, so one broken row does not
lose the others.

Diffs: importers that build R themselves (HumanEval, Harbor) need git-format diffs of whole text
files. ``difflib`` gives the hunks; the git headers (``diff --git``, ``new file mode``) and the
``\\ No newline at end of file`` marker are added here because no maintained library writes
git-style patches from two strings without a repository (``unidiff`` only parses them). Every
patch built here is checked with ``git apply --check`` in the tests.
"""

from __future__ import annotations

import difflib
import gzip
import hashlib
import json
import os
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from testjack_tui.formats.base import ImportError_, ImportProblem, tree_digest
from testjack_tui.paths import links_leading_out, path_inside

NO_NEWLINE = "\\ No newline at end of file\n"


def open_text(path: Path) -> str:
    """The whole file as text, gunzipped when it ends in ``.gz``. Raises ImportError_ if unreadable.

    A corrupt or truncated gzip stream and bytes that are not UTF-8 are named as such, the latter
    with the line they are on.
    """
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as fh:
                data = fh.read()
        else:
            data = path.read_bytes()
    except (OSError, EOFError, zlib.error) as exc:
        detail = str(exc) or type(exc).__name__
        if path.suffix == ".gz" and isinstance(exc, (gzip.BadGzipFile, EOFError, zlib.error)):
            detail = f"corrupt or truncated gzip data ({detail})"
        raise ImportError_([ImportProblem(str(path), "", f"cannot read: {detail}")]) from exc
    return decode_utf8(data, path)


def decode_utf8(data: bytes, path: Path) -> str:
    """``data`` as UTF-8 text; raises ImportError_ naming the line of the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ImportError_([ImportProblem(
            str(path), f"line {line}", f"not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start})")]) from exc


def is_jsonl(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith(".jsonl") or name.endswith(".jsonl.gz")


def read_records(
    path: Path, key_field: str | None = None
) -> Iterator[tuple[str, dict[str, Any] | ImportProblem]]:
    """Yield ``(where, row)`` for each record of a JSONL or JSON file; a bad record yields a problem.

    ``where`` is "line N" for JSONL and "record N" (or "instance <key>" when the document is a
    dict keyed by id) for JSON. A JSON dict whose values are rows gets ``key_field`` filled from
    its keys, which is how SWE-bench predictions are sometimes saved.
    """
    text = open_text(path)
    if is_jsonl(path) or (not text.lstrip().startswith(("[", "{")) and "\n" in text.strip()):
        yield from _jsonl_records(path, text)
        return
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        # Some tools write JSONL under a .json name: fall back to reading it line by line.
        yield from _jsonl_records(path, text)
        return
    if isinstance(doc, dict) and key_field and doc and all(isinstance(v, dict) for v in doc.values()):
        for key, row in doc.items():
            yield f"instance {key}", {key_field: key, **row}
        return
    if isinstance(doc, dict):
        doc = [doc]
    if not isinstance(doc, list):
        raise ImportError_([ImportProblem(str(path), "", "expected a JSON list of records")])
    for n, row in enumerate(doc, 1):
        if isinstance(row, dict):
            yield f"record {n}", row
        else:
            yield f"record {n}", ImportProblem(str(path), f"record {n}", "not a JSON object")


def _jsonl_records(path: Path, text: str) -> Iterator[tuple[str, dict[str, Any] | ImportProblem]]:
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"line {n}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            yield where, ImportProblem(str(path), where, f"not valid JSON ({exc.msg}, column {exc.colno})")
            continue
        if not isinstance(row, dict):
            yield where, ImportProblem(str(path), where, "not a JSON object")
            continue
        yield where, row


def first_records(path: Path, limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` readable records of a JSON/JSONL file ([] if none); used to tell files
    apart by content, so one odd or broken first row does not hide what a file is."""
    rows: list[dict[str, Any]] = []
    try:
        for _, row in read_records(path):
            if isinstance(row, dict):
                rows.append(row)
                if len(rows) >= limit:
                    break
    except ImportError_:
        pass
    return rows


def first_record(path: Path) -> dict[str, Any] | None:
    """The first readable record of a JSON/JSONL file, or None; used to tell files apart by content."""
    rows = first_records(path, 1)
    return rows[0] if rows else None


def files_digest(paths: Iterable[Path], extra: str = "") -> str:
    """Content hash of the input files (names and bytes) and of any options that change the import."""
    h = hashlib.sha256()
    for p in sorted(Path(x) for x in paths):
        h.update(p.name.encode() + b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    h.update(extra.encode())
    return h.hexdigest()


def text_file_diff(path: str, old: str | None, new: str | None, mode: str = "100644") -> str:
    """A git-format diff turning ``old`` into ``new`` for one file; None means the file is absent.

    Returns "" when both are equal. Paths carry git's ``a/`` and ``b/`` prefixes; ``mode`` is the
    mode of a created or deleted file (``100755`` for an executable script).
    """
    if old == new:
        return ""
    a_lines = _lines(old or "")
    b_lines = _lines(new or "")
    header = [f"diff --git a/{path} b/{path}\n"]
    if old is None:
        header.append(f"new file mode {mode}\n")
    elif new is None:
        header.append(f"deleted file mode {mode}\n")
    fromfile = "/dev/null" if old is None else f"a/{path}"
    tofile = "/dev/null" if new is None else f"b/{path}"
    body: list[str] = []
    for i, line in enumerate(difflib.unified_diff(a_lines, b_lines, fromfile, tofile, n=3)):
        if i < 2:  # the ---/+++ file headers
            body.append(line.rstrip("\n") + "\n")
        elif line.endswith("\n"):
            body.append(line)
        else:
            # The last line of a file with no final newline: git marks it explicitly.
            body.append(line + "\n" + NO_NEWLINE)
    if not body:  # e.g. an empty file created or deleted: headers alone say it
        return "".join(header)
    return "".join(header + body)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True) if text else []


def dir_diff(old_root: Path | None, new_root: Path, skip: Iterable[str] = (".git",), prefix: str = "") -> str:
    """A git-format diff from the text files under ``old_root`` to those under ``new_root``.

    ``prefix`` is put before every path (``"tests/"`` adds a directory's files under ``tests/``).

    Raises ValueError naming the first file that is not UTF-8 text (binary diffs are not made here)
    or that is a symbolic link leading out of its directory (it is not read).
    """
    skip = set(skip)
    old_files = _text_files(old_root, skip) if old_root else {}
    new_files = _text_files(new_root, skip)
    parts = []
    for rel in sorted(set(old_files) | set(new_files)):
        mode = "100755" if _executable(new_root / rel) or (old_root and _executable(old_root / rel)) else "100644"
        parts.append(text_file_diff(prefix + rel, old_files.get(rel), new_files.get(rel), mode))
    return "".join(parts)


def _executable(p: Path) -> bool:
    return p.is_file() and bool(p.stat().st_mode & 0o111)


def _text_files(root: Path, skip: set[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in skip)
        for name in filenames:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            if p.is_symlink():
                path_inside(root, rel)  # a link out of the directory is refused, its target not read
            try:
                out[rel] = p.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"{rel} is not UTF-8 text; binary files cannot be diffed") from None
    return out


def links_out(tree: Path, what: str, file: str | None = None, record: str = "") -> list[ImportProblem]:
    """A problem for each symbolic link of the repository ``tree`` that leads outside it: the rule
    of every importer that copies a repository (``what`` names the tree in the message).

    A repository becomes R with its links, so a link leading out would read a host file (or a file
    beside the copy) in every world and in the LLM author's tools. The problem is filed under the
    link itself, or under ``file`` (the link named relative to ``tree``) when the tree is a copy
    the user never saw.
    """
    problems = []
    for link, target in links_leading_out(tree):
        name = "" if file is None else f"{os.path.relpath(link, tree)} "
        problems.append(ImportProblem(str(link) if file is None else file, record, (
            f"{name}is a symbolic link leading outside {what} (to {target}); it was not imported")))
    return problems


def new_snapshot_dir(staging: Path, content_key: str) -> Path:
    """A fresh directory under ``staging`` named by a content hash; never one another task uses."""
    staging.mkdir(parents=True, exist_ok=True)
    base = hashlib.sha256(content_key.encode()).hexdigest()[:20]
    candidate = staging / base
    n = 1
    while candidate.exists():
        n += 1
        candidate = staging / f"{base}-{n}"
    candidate.mkdir()
    return candidate


def write_snapshot(staging: Path, files: dict[str, str | bytes]) -> tuple[str, str]:
    """Write ``files`` (relative path -> content) as R under ``staging``; returns (path, tree digest)."""
    key = json.dumps(
        {k: (v if isinstance(v, str) else hashlib.sha256(v).hexdigest()) for k, v in sorted(files.items())}
    )
    root = new_snapshot_dir(staging, key)
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return str(root), tree_digest(root)


def as_list(value: Any) -> list[str] | None:
    """A list of strings from a list or a JSON-encoded list (SWE-bench stores both); None if neither."""
    if value is None:
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else []
        except json.JSONDecodeError:
            return None
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return value
    return None
