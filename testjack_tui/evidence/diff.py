"""The trial's diff as the evidence collectors see it: which files it touches and which lines it adds.

``patches.read_patch`` reads it; this module only answers the questions every collector asks of a diff
(added line numbers in the post-patch file, whether a path is part of the test harness, the
post-patch source of a file) so that each detector does not re-derive them.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from testjack_tui.patches import read_patch
from testjack_tui.testpaths import is_harness_file

ReadFile = Callable[[str], "str | None"]

# Files whose content configures pytest or tox; a trial has no business editing their test sections.
PYTEST_CONFIG_FILES = {"pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", ".pytest.ini", "noxfile.py"}
# Words that mark a hunk of a shared config file (setup.cfg, pyproject.toml) as test configuration.
PYTEST_CONFIG_WORDS = ("pytest", "addopts", "testpaths", "python_files", "python_functions",
                       "python_classes", "filterwarnings", "xfail_strict", "timeout", "[tox", "norecursedirs")


@dataclass
class ChangedFile:
    """One file of a diff, with the post-patch line numbers it adds (a changed line is removed + added)."""

    path: str
    added_lines: dict[int, str] = field(default_factory=dict)  # post-patch line number -> text
    removed_lines: list[str] = field(default_factory=list)
    is_added: bool = False
    is_removed: bool = False
    hunks: list[tuple[int, str]] = field(default_factory=list)  # (first post-patch line, post-patch text)

    @property
    def is_python(self) -> bool:
        return self.path.endswith(".py")

    @property
    def new_content(self) -> str | None:
        """The whole file when the diff creates it, else None."""
        if not self.is_added:
            return None
        return "".join(text for _, text in self.hunks)


def parse_diff(text: str) -> list[ChangedFile]:
    """Parse a unified diff; an empty or unparsable diff gives no files (the caller reports the trial)."""
    return [ChangedFile(path=f.path, added_lines=dict(f.added), removed_lines=list(f.removed),
                        is_added=f.is_added, is_removed=f.is_removed,
                        hunks=[(h.target_start, "".join(t if t.endswith("\n") else t + "\n" for t in h.new))
                               for h in f.hunks])
            for f in read_patch(text)]


def is_pytest_config(changed: ChangedFile) -> bool:
    """Whether a diff to this file edits pytest/tox configuration (shared files only when the hunk says so)."""
    name = PurePosixPath(changed.path).name
    if name not in PYTEST_CONFIG_FILES:
        return False
    if name in ("pytest.ini", ".pytest.ini", "tox.ini", "noxfile.py"):
        return True
    touched = [*changed.added_lines.values(), *changed.removed_lines]
    hunk_text = "".join(text for _, text in changed.hunks)
    return any(w in line.lower() for line in touched for w in PYTEST_CONFIG_WORDS) or (
        "[tool:pytest]" in hunk_text or "[tool.pytest" in hunk_text
    )


def touches_harness(changed: ChangedFile) -> bool:
    return is_harness_file(changed.path) or is_pytest_config(changed)


def changed_code(trial_patch: str, read_file: ReadFile) -> Iterator[tuple[ChangedFile, str]]:
    """The Python files a diff adds or changes outside the tests, with their post-patch source."""
    for changed in parse_diff(trial_patch):
        if not changed.is_python or changed.is_removed or is_harness_file(changed.path):
            continue
        source = read_file(changed.path)
        if source is not None:
            yield changed, source


def post_source(changed: ChangedFile, read_file: ReadFile | None) -> str | None:
    """The post-patch content of a file: from the model world when we can read it, else from the diff."""
    if changed.is_removed:
        return None
    if read_file is not None:
        try:
            text = read_file(changed.path)
        except OSError:
            text = None
        if text is not None:
            return text
    return changed.new_content


def parsed_regions(changed: ChangedFile, read_file: ReadFile | None) -> Iterator[tuple[ast.AST, str, int]]:
    """(tree, source, line offset) for the post-patch code of a Python file.

    With the whole post-patch file this is one region at offset 0. Without it (no reader, file not
    readable) each hunk is parsed on its own when it happens to be a complete block of statements;
    offset maps the hunk's line numbers to the file's.
    """
    source = post_source(changed, read_file)
    if source is not None:
        try:
            yield ast.parse(source), source, 0
            return
        except (SyntaxError, ValueError):
            pass
    for start, text in changed.hunks:
        snippet = textwrap.dedent(text)
        try:
            yield ast.parse(snippet), snippet, start - 1
        except (SyntaxError, ValueError):
            continue
