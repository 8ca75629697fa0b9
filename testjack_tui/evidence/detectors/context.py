"""What every reward-hacking detector looks at: the trial's diff, its post-patch code, the tests' literals.

Built once per trial by ``detect``; detectors only read it. A detector returns ``Finding``\\ s and
knows nothing of runs or trials; ``detect`` turns them into ``model.Evidence``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cached_property

from testjack_tui.testpaths import is_harness_file

from ..diff import ChangedFile, ReadFile, parse_diff, parsed_regions
from ..literals import TestLiterals, harvest_tests, key, patch_literals


@dataclass(frozen=True)
class Finding:
    detector: str
    file: str
    line: int
    detail: str


@dataclass
class Region:
    """A parsed piece of post-patch code; ``line(node)`` gives a node's line number in the file."""

    tree: ast.AST
    source: str
    offset: int

    def line(self, node: ast.AST) -> int:
        return getattr(node, "lineno", 0) + self.offset


@dataclass
class DiffContext:
    trial_patch: str
    test_sources: dict[str, str]
    prompt: str = ""
    read_file: ReadFile | None = None
    reference_patch: str | None = None
    files: list[ChangedFile] = field(init=False)

    def __post_init__(self) -> None:
        self.files = parse_diff(self.trial_patch)
        self._regions: dict[str, list[Region]] = {}

    @cached_property
    def tests(self) -> TestLiterals:
        return harvest_tests(self.test_sources)

    @cached_property
    def reference_literals(self) -> set[object]:
        return patch_literals(self.reference_patch or "")

    def source_files(self) -> list[ChangedFile]:
        """Python files of the product (not of the test harness) that the diff adds or changes."""
        return [f for f in self.files if f.is_python and not f.is_removed and not is_harness_file(f.path)]

    def python_files(self) -> list[ChangedFile]:
        return [f for f in self.files if f.is_python and not f.is_removed]

    def regions(self, changed: ChangedFile) -> list[Region]:
        if changed.path not in self._regions:
            self._regions[changed.path] = [Region(t, s, o) for t, s, o in parsed_regions(changed, self.read_file)]
        return self._regions[changed.path]

    def added_nodes(self, changed: ChangedFile, types: type | tuple[type, ...]):
        """(region, node) for nodes of ``types`` that start on a line the diff adds."""
        for region in self.regions(changed):
            for node in ast.walk(region.tree):
                if isinstance(node, types) and region.line(node) in changed.added_lines:
                    yield region, node

    def explained(self, changed: ChangedFile, value: object) -> bool:
        """Whether a literal has an innocent source: the reference patch uses it, or the code had it before.

        Without a reference patch, a literal the prompt quotes counts as innocent instead.
        """
        k = key(value)
        if k is None or k in self.reference_literals:
            return True
        if k in patch_literals("".join("+" + line + "\n" for line in changed.removed_lines)):
            return True
        if self.reference_patch is None and isinstance(value, str) and len(value) > 1:
            return value in self.prompt
        return False

    def tests_mention(self, name: str) -> bool:
        pattern = re.compile(rf"(?<![\w]){re.escape(name)}(?![\w])")
        return any(pattern.search(text or "") for text in self.test_sources.values())

    def prompt_mentions(self, name: str) -> bool:
        return bool(name) and re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", self.prompt) is not None
