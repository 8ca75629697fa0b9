"""Where a witness file goes: a test folder the task's runner collects from.

A witness file at the repository's root is collected by pytest, but not by every runner: SymPy's
``bin/test`` looks for tests in the ``tests/`` packages beside the modules, Django's ``runtests.py``
takes module labels under ``tests/``. So a witness goes where T0's own test files live: among
the folders of the test files the official test patch touches (and of the files the graded ids
name), the one closest to the code the reference changes (the longest common path). SymPy: the
``tests/`` package beside the module under test; Django: the app folder under ``tests/`` whose
module the runner can name; pytest: the folder of the official tests (its conftest.py applies).
A task with no test file to go by keeps the old place: ``tests/`` when R has one, else the root.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from testjack_tui.patches import file_paths
from testjack_tui.testpaths import is_test_module


def test_folders(test_patch: str, graded: Iterable[str] = ()) -> list[str]:
    """Folders of T0's test files, in the order first seen ("" is the root)."""
    files = [f for f in file_paths(test_patch) if is_test_module(f)]
    files += [t.split("::", 1)[0] for t in graded if "::" in t and t.split("::", 1)[0].endswith(".py")]
    folders = [str(PurePosixPath(f).parent) for f in files]
    return list(dict.fromkeys("" if d == "." else d for d in folders))


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(PurePosixPath(a).parts, PurePosixPath(b).parts):
        if x != y:
            break
        n += 1
    return n


def witness_folder(snapshot: str | Path, test_patch: str, reference_patch: str, graded: Iterable[str] = ()) -> str:
    """The folder (relative to the repository, "" for the root) a witness of this task goes to."""
    folders = test_folders(test_patch, graded)
    changed = [f for f in file_paths(reference_patch) if not is_test_module(f)]
    if folders:
        if not changed:
            return folders[0]
        # the folder closest to the changed code; ties keep the test patch's order
        return max(folders, key=lambda d: (max(_common(d, c) for c in changed), -folders.index(d)))
    return "tests" if (Path(snapshot) / "tests").is_dir() else ""


def witness_file(snapshot: str | Path, test_patch: str, reference_patch: str, graded: Iterable[str],
                 name: str) -> str:
    folder = witness_folder(snapshot, test_patch, reference_patch, graded)
    return f"{folder}/{name}" if folder else name


def test_ids(path: str, code: str) -> list[str]:
    """The pytest node ids a witness file defines (``file::test``, ``file::Class::test``); the file if none."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return [path]
    ids = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            ids.append(f"{path}::{node.name}")
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            ids += [f"{path}::{node.name}::{m.name}" for m in node.body
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name.startswith("test")]
    return ids or [path]
