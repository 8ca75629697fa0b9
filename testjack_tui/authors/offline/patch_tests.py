"""The test patch's own tests that the harness does not grade, as candidate witnesses.

A SWE-bench test patch may add tests the harness never grades: SymPy's log parser does not read
the last test of a file, and a dataset may grade some parametrisations of a test and not others.
Such a test states what the task's authors expected of a fix as plainly as a graded one, yet it
showed only inside T0's log. Each one the test patch adds or changes (a line of it is added) and
no graded id names becomes a candidate of the offline author: its test file with every other
test taken out (its imports, helpers, fixtures and the test's own class kept, text unchanged),
written beside the file it came from so its ``conftest.py``, relative imports and runner apply.

It is certified like any witness (the reference 3 of 3, the null world recorded, 2 runs per
trial) and is an implicit requirement, so A.2 classifies it: a test most passing trials fail is a
prompt defect (or needs a ruling with few trials), never a refutation A.2 would not make. A
parametrised test is a candidate unless the graded ids name as many parametrisations as its
decorators list; its graded cases pass on every trial that passes T0, so only the others can fail.

Only harness-graded tasks (``swebench-*`` parsers) get these: their graded ids are the harness's
choice, while a native or function-level task's T0 is the whole test patch.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from testjack_tui.authors.base import AuthorContext, Candidate
from testjack_tui.model import RequirementKind
from testjack_tui.patches import read_patch
from testjack_tui.testpaths import is_test_module
from testjack_tui.worlds.harness_parsers import is_harness_parser
from testjack_tui.worlds.placement import witness_folder

LIMIT = 8  # candidates of this kind per task: each is one more file in every batch


@dataclass(frozen=True)
class PatchTest:
    """One test function (or method of ``cls``) the test patch adds or changes in ``path``."""

    path: str
    cls: str
    name: str
    parametrised: bool
    first: int  # its lines in the file, decorators included
    last: int

    @property
    def node(self) -> str:
        return "::".join(p for p in (self.path, self.cls, self.name) if p)


@dataclass(frozen=True)
class GradedName:
    """A name a graded id gives a test: pytest ids also say the file and class, Django's the class."""

    path: str | None
    cls: str | None
    name: str
    parametrised: bool  # the id names one parametrisation (``test_x[a-b]``, maybe cut at a space)


def graded_name(test_id: str) -> GradedName:
    """How the harness's ids name a test: ``file::Class::test[p``, ``test (module.Class)``, ``test``."""
    if "::" in test_id:
        parts = test_id.split("::")
        last = parts[-1]
        return GradedName(parts[0], parts[1] if len(parts) > 2 else None, last.split("[", 1)[0], "[" in last)
    if " (" in test_id:
        name, _, rest = test_id.partition(" (")
        return GradedName(None, rest.rstrip(")").split(".")[-1] or None, name.strip(), False)
    return GradedName(None, None, test_id.split("[", 1)[0].strip(), "[" in test_id)


def ungraded_tests(test_patch: str, graded: Iterable[str], read: Callable[[str], str | None]) -> list[tuple[PatchTest, str]]:
    """(test, its file's text) for the tests the patch adds or changes that the graded ids leave out."""
    names = [graded_name(g) for g in dict.fromkeys(graded)]
    out: list[tuple[PatchTest, str]] = []
    for diff in read_patch(test_patch):
        if diff.is_removed or not diff.path.endswith(".py") or not is_test_module(diff.path):
            continue
        source = read(diff.path)
        if not source:
            continue
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        added = None if diff.is_added else set(diff.added)
        for test, cases in _tests_in(tree, diff.path):
            touched = added is None or any(test.first <= n <= test.last for n in added)
            if touched and not _graded(test, cases, names):
                out.append((test, source))
    return out


def _tests_in(tree: ast.Module, path: str) -> list[tuple[PatchTest, int | None]]:
    """Each test of the module, with how many cases its parametrize decorators list (None: unknown)."""
    found: list[tuple[PatchTest, int | None]] = []
    for node in tree.body:
        if _is_test_function(node):
            found.append(_test(path, "", node))
        elif isinstance(node, ast.ClassDef):
            found += [_test(path, node.name, m) for m in node.body if _is_test_function(m)]
    return found


def _is_test_function(node: ast.AST) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")


def _test(path: str, cls: str, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[PatchTest, int | None]:
    first = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
    marks = [d for d in fn.decorator_list if isinstance(d, ast.Call) and _dotted_end(d.func) == "parametrize"]
    cases: int | None = 1
    for mark in marks:
        listed = mark.args[1] if len(mark.args) > 1 else None
        cases = cases * len(listed.elts) if cases is not None and isinstance(listed, (ast.List, ast.Tuple)) else None
    return PatchTest(path, cls, fn.name, bool(marks), first, fn.end_lineno or fn.lineno), cases


def _dotted_end(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _graded(test: PatchTest, cases: int | None, names: list[GradedName]) -> bool:
    mine = [g for g in names if g.name == test.name and g.path in (None, test.path) and g.cls in (None, test.cls)]
    if not test.parametrised or any(not g.parametrised for g in mine):
        return bool(mine)
    # every parametrisation graded: as many graded ids (one per case) as the decorators list cases
    return cases is not None and sum(1 for g in mine if g.parametrised) >= cases


def isolated(source: str, test: PatchTest) -> str:
    """The test file with every other test taken out: other test functions, other test methods of
    the test's class, other classes that hold tests (a class the test's class derives from stays)."""
    tree = ast.parse(source)
    drop: list[tuple[int, int]] = []
    for node in tree.body:
        if _is_test_function(node) and not (not test.cls and node.name == test.name):
            drop.append(_span(node))
        elif isinstance(node, ast.ClassDef):
            if node.name == test.cls:
                drop += [_span(m) for m in node.body if _is_test_function(m) and m.name != test.name]
            elif not _is_base_of(node.name, tree, test.cls) and any(_is_test_function(m) for m in node.body):
                drop.append(_span(node))
    lines = source.splitlines(keepends=True)
    gone = {n for first, last in drop for n in range(first, last + 1)}
    return "".join(line for n, line in enumerate(lines, start=1) if n not in gone)


def _span(node: ast.stmt) -> tuple[int, int]:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)]), node.end_lineno or node.lineno


def _is_base_of(name: str, tree: ast.Module, cls: str) -> bool:
    if not cls:
        return False
    target = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
    return target is not None and any(_dotted_end(b) == name for b in target.bases)


def patch_test_candidates(ctx: AuthorContext) -> list[Candidate]:
    """The candidates of a harness-graded task: its test patch's ungraded tests, ``LIMIT`` at most."""
    task = ctx.task
    if not is_harness_parser(task.tests.log_parser) or ctx.read_file is None:
        return []
    read = ctx.read_file
    folder = witness_folder(task.snapshot, task.test_patch, task.reference_patch, task.tests.graded)
    out: list[Candidate] = []
    for test, source in ungraded_tests(task.test_patch, task.tests.graded, lambda path: read("null", path)):
        parent = str(PurePosixPath(test.path).parent)
        if ("" if parent == "." else parent) != folder or len(out) >= LIMIT:
            continue
        cases = "not every parametrisation of it is graded" if test.parametrised else "no graded id names it"
        out.append(Candidate(
            requirement=f"the test patch's own test {test.node}, which the harness does not grade",
            kind=RequirementKind.IMPLICIT, code=isolated(source, test),
            note=(f"from the task's test patch: {test.node} (lines {test.first}-{test.last}), "
                  f"the other tests of its file taken out; {cases}")))
    return out
