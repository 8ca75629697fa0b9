"""Amplified tests of a repository task: T0's graded tests varied, their expectations the reference's.

For a harness-graded task (pytest, SymPy's ``bin/test``, Django's ``runtests.py``): the graded tests in the test patch's files that
sit where the task's witnesses go (fail-to-pass first, then the pass-to-pass tests of the same
files) are varied (``test_variants``), at most ``VARIANTS`` in all. Every variant goes, in its
observing form (``observed_tests``), into one file per source test file, beside it (its
``conftest.py`` and fixtures apply), and the files run in one execution per world and run (pytest
with its capture off; SymPy's and Django's runners as for any witness file, ``witness_runs``): the
reference ``REFERENCE_RUNS`` times, the null world once. An observation the reference runs do not
agree on is dropped. A variant becomes a candidate when the reference finished it alike in every
run and it still asserts something; those the null world answers otherwise (they exercise the
change) come first, ``WITNESSES`` at most. A variant drawn from what P states (a path object
where P says ``os.PathLike``, a function P names beside the one the test calls on the same input)
that the reference answers with an exception is dropped: P says the input is accepted, so the
exception is nothing a trial can be held to. One that keeps the graded test's own expectations
is an explicit requirement (``_graded_expectations``). Each candidate is the source file with its
other tests taken out and the variant in place of its test; the engine certifies it as any witness.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import hashlib
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

from testjack_tui.authors.base import AuthorContext, Candidate
from testjack_tui.authors.offline.observed_tests import Rendered, Seen, agreed, checks, helpers, observing, read, render
from testjack_tui.authors.offline.patch_tests import GradedName, graded_name
from testjack_tui.authors.offline.stated_peers import peers
from testjack_tui.authors.offline.test_variants import PathParam, Stated, Variant, variants_of
from testjack_tui.domain.checks import admits_path
from testjack_tui.model import Constraint, RequirementKind
from testjack_tui.patches import file_paths, read_patch
from testjack_tui.pysource.signatures import test_files
from testjack_tui.worlds.harness_parsers import base_parser, is_harness_parser
from testjack_tui.worlds.placement import witness_folder
from testjack_tui.worlds.request import STATUS_OK
from testjack_tui.worlds.task_environment import in_task_environment

VARIANTS = 40  # variants per task, over all its tests
PER_TEST = 12  # variants of one test
TESTS = 8  # tests varied per task
REFERENCE_RUNS = 2  # observing runs on the reference; observations must agree across them
WITNESSES = 6  # candidates per task
MAX_OUTPUT = 4 * 1024 * 1024


@dataclass(frozen=True)
class Source:
    """A graded test to vary: its file, class ("" for a function) and function node."""

    path: str
    cls: str
    fn: ast.FunctionDef
    failing_first: bool  # a fail-to-pass test


def amplified_candidates(ctx: AuthorContext) -> list[Candidate]:
    task = ctx.task
    parser = task.tests.log_parser
    if not is_harness_parser(parser) or ctx.read_file is None or ctx.execute is None or ctx.world_request is None:
        return []
    folder = witness_folder(task.snapshot, task.test_patch, task.reference_patch, task.tests.graded)
    sources = _sources(ctx, folder)
    planned: list[tuple[Source, Variant]] = []
    told = {path: _stated(ctx, path) for path in dict.fromkeys(s.path for s in sources)}
    for source in sources:
        room = VARIANTS - len(planned)
        planned += [(source, v) for v in variants_of(source.fn, min(PER_TEST, room), told[source.path])]
        if len(planned) >= VARIANTS:
            break
    if not planned:
        return []
    runs, null = _observe(ctx, folder, planned)
    stable = agreed(runs)
    return _chosen(ctx, planned, stable, null)


def path_params(domain: list[Constraint]) -> tuple[PathParam, ...]:
    """The parameters P says take a path object (a ``types`` constraint it states naming ``os.PathLike``)."""
    out = []
    for c in domain:
        check = c.check
        if c.stated and admits_path(check) and check.get("param") in check.get("signature", []):
            out.append(PathParam(str(check.get("function", "")), check["signature"].index(check["param"]), check["param"]))
    return tuple(dict.fromkeys(out))


def _stated(ctx: AuthorContext, path: str) -> Stated:
    """What P states that the variants of the tests of ``path`` draw on (``test_variants.Stated``)."""
    task = ctx.task
    tree = _parsed(ctx.read_file("null", path) if ctx.read_file else None) or ast.Module([], [])
    added = frozenset(n for d in read_patch(task.test_patch) if d.path == path for n in d.added)
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("test")}
    reach = peers(task.prompt, tree, file_paths(task.reference_patch),
                  lambda p: ctx.read_file("reference", p) if ctx.read_file else None)
    return Stated(path_params(task.domain), tuple(reach), helpers, added)


def _sources(ctx: AuthorContext, folder: str) -> list[Source]:
    """Graded tests (fail-to-pass first) in the test patch's files of ``folder``, then the
    pass-to-pass tests of the same files; module functions and class methods, not parametrised.
    SymPy's and Django's ids name no file: a name is looked for in each of those files."""
    task = ctx.task
    graded = [(graded_name(g), True) for g in task.tests.fail_to_pass]
    graded += [(graded_name(g), False) for g in task.tests.pass_to_pass]
    files = [f for f in test_files(task.test_patch) if _in(f, folder)]
    files += [g.path for g, _ in graded if g.path and _in(g.path, folder) and g.path not in files]
    trees = {path: _parsed(ctx.read_file("null", path) if ctx.read_file else None) for path in files}
    out: list[Source] = []
    seen: set[tuple[str, str, str]] = set()
    for failing in (True, False):
        for g, f in graded:
            for path, tree in trees.items():
                if f != failing or g.path not in (None, path) or tree is None:
                    continue
                fn, cls = _function(tree, g)
                if fn is not None and (path, cls, g.name) not in seen:
                    seen.add((path, cls, g.name))
                    out.append(Source(path, cls, fn, failing))
    # a pass-to-pass test only from a file a fail-to-pass test came from, when there is one
    failing_files = {s.path for s in out if s.failing_first}
    return [s for s in out if s.failing_first or not failing_files or s.path in failing_files][:TESTS]


def _in(path: str, folder: str) -> bool:
    parent = str(PurePosixPath(path).parent)
    return ("" if parent == "." else parent) == folder


def _parsed(text: str | None) -> ast.Module | None:
    try:
        return ast.parse(text) if text else None
    except SyntaxError:
        return None


def _function(tree: ast.Module, g: GradedName) -> tuple[ast.FunctionDef | None, str]:
    """The test function (or method) a graded name gives, and its class ("" for none)."""
    scopes = [("", tree.body)] + [(n.name, n.body) for n in tree.body if isinstance(n, ast.ClassDef)
                                   and g.cls in (None, n.name)]
    for cls, scope in scopes:
        if g.cls and not cls:
            continue
        fn = next((n for n in scope if isinstance(n, ast.FunctionDef) and n.name == g.name), None)
        if fn is not None and not any("parametrize" in ast.unparse(d) for d in fn.decorator_list):
            return fn, cls
    return None, ""


def _observer(ctx: AuthorContext, path: str, planned: list[tuple[Source, Variant]]) -> str:
    """One file of observing variants of the tests of ``path``: its other tests taken out."""
    tree = _parsed(ctx.read_file("null", path) if ctx.read_file else None)
    assert tree is not None
    placed = [(i, s, v) for i, (s, v) in enumerate(planned) if s.path == path]
    needed = [ast.parse(line).body[0] for line in dict.fromkeys(x for _, _, v in placed for x in v.imports)]
    return _module(tree, [(s.cls, observing(v.fn, i)) for i, s, v in placed], [*helpers(), *needed])


def _module(tree: ast.Module, fns: list[tuple[str, ast.FunctionDef]], extra: list[ast.stmt]) -> str:
    """``tree`` without its tests, with ``fns`` (module functions, or methods of their class) added."""
    module = _without_tests(tree)
    classes = {n.name: n for n in module.body if isinstance(n, ast.ClassDef)}
    for cls, fn in fns:
        if cls and cls in classes:
            body = classes[cls].body
            body[:] = [*(n for n in body if not isinstance(n, ast.Pass)), fn]
        elif not cls:
            module.body.append(fn)
    at = next((i for i, n in enumerate(module.body) if not _header(n)), len(module.body))
    # pytest only where the test says ``pytest.`` (raises, approx): a Django or SymPy environment may lack it
    said = [m for m in ("pytest", "pathlib") if any(f"{m}." in ast.unparse(fn) for _, fn in fns)]
    module.body[at:at] = [*(ast.parse(f"import {m}").body[0] for m in said), *extra]
    return ast.unparse(ast.fix_missing_locations(module)) + "\n"


def _header(node: ast.stmt) -> bool:
    """A module docstring or a ``from __future__`` import: they must stay first."""
    docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    return docstring or (isinstance(node, ast.ImportFrom) and node.module == "__future__")


def _without_tests(tree: ast.Module) -> ast.Module:
    module = ast.Module([], [])
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            continue
        if isinstance(node, ast.ClassDef):
            node = copy.deepcopy(node)
            node.body = [m for m in node.body if not (isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                                                       and m.name.startswith("test"))] or [ast.Pass()]
        module.body.append(node)
    return module


def _file_name(folder: str, code: str) -> str:
    name = f"test_{hashlib.sha256(code.encode()).hexdigest()[:12]}.py"
    return f"{folder}/{name}" if folder else name


def _observe(ctx: AuthorContext, folder: str, planned: list[tuple[Source, Variant]]
             ) -> tuple[list[dict[int, Seen]], dict[int, Seen]]:
    """Run every observing file on the reference ``REFERENCE_RUNS`` times and on the null world once."""
    files = []
    for path in dict.fromkeys(s.path for s, _ in planned):
        code = _observer(ctx, path, planned)
        files.append((_file_name(folder, code), code))
    line = "-m pytest -p no:cacheprovider -q -s " + " ".join(shlex.quote(p) for p, _ in files)
    pytest = base_parser(ctx.task.tests.log_parser) == "pytest-log"
    worlds = [("reference", i) for i in range(REFERENCE_RUNS)] + [("null", 0)]
    requests = []
    for world, attempt in worlds:
        label = f"amplified tests of {ctx.task.id} on {world} #{attempt + 1} ({len(planned)} variants)"
        if pytest:  # pytest itself, its capture off, in the task's environment
            req = ctx.world_request(world, extra_files=files, test_ids=(), attempt=attempt, label=label)
            req = dataclasses.replace(req, command=in_task_environment(req.command, req.log_parser, line))
        else:  # SymPy's and Django's runners print what a test prints: run the files as witnesses
            req = ctx.world_request(world, extra_files=files, test_ids=tuple(p for p, _ in files),
                                    attempt=attempt, label=label)
        requests.append(dataclasses.replace(req, max_output=MAX_OUTPUT))
    results = ctx.execute(requests)
    seen = [read(r.stdout or "") if r.status == STATUS_OK else {} for r in results]
    return seen[:REFERENCE_RUNS], seen[REFERENCE_RUNS]


def _chosen(ctx: AuthorContext, planned: list[tuple[Source, Variant]], stable: dict[int, Seen],
            null: dict[int, Seen]) -> list[Candidate]:
    """The candidates, ``WITNESSES`` at most: what exercises the change first (the null world answers
    otherwise), then, in turn, each test's answers and exceptions (neither crowds out the other: a
    mutated setting that only raises says little, a refused input much)."""
    made: list[tuple[tuple[bool, bool, int, int], str, Candidate]] = []
    texts: set[str] = set()
    for i, (source, variant) in enumerate(planned):
        seen = stable.get(i)
        shown = render(variant.fn, seen) if seen is not None else None
        if seen is None or shown is None or (not shown.asserted and not shown.raises):
            continue
        if variant.stated and shown.raises:
            continue  # P says the input is accepted: an exception there is no expectation to hold
        shown.fn.name = f"{source.fn.name}_amplified_{i}"
        candidate = _candidate(ctx, source, variant, shown, seen)
        if candidate.code in texts:
            continue
        texts.add(candidate.code)
        other = null.get(i)
        differs = other is None or other.raised != seen.raised or any(
            other.values.get(k) != v for k, v in seen.values.items())
        group = f"{_node(source)}:{bool(shown.raises)}"
        rank = sum(1 for m in made if m[1] == group)
        made.append(((not differs, rank, bool(shown.raises), len(made)), group, candidate))
    made.sort(key=lambda m: m[0])
    return [m[2] for m in made[:WITNESSES]]


def _node(source: Source) -> str:
    return "::".join(p for p in (source.path, source.cls, source.fn.name) if p)


def _candidate(ctx: AuthorContext, source: Source, variant: Variant, shown: Rendered, seen: Seen) -> Candidate:
    tree = _parsed(ctx.read_file("null", source.path) if ctx.read_file else None)
    assert tree is not None
    imports = [ast.parse(line).body[0] for line in dict.fromkeys((*shown.imports, *variant.imports))]
    code = _module(tree, [(source.cls, shown.fn)], imports)
    node = _node(source)
    what = f"raises {shown.raises}" if shown.raises else f"{shown.asserted} assertion(s) from the reference"
    explicit = _graded_expectations(variant, seen)
    return Candidate(
        requirement=f"{node} amplified ({variant.change}): {what}" + (
            ", the graded test's own" if explicit else ""),
        kind=RequirementKind.EXPLICIT if explicit else RequirementKind.IMPLICIT, code=code,
        note=(f"an amplified variant of the graded test {node}: {variant.change}; its expectations are what "
              f"the reference gave in {REFERENCE_RUNS} runs (observations that differed were dropped)"
              + ("; every check of the graded test held on it as written, and P states the input (a type "
                 "it names, or a function it names beside the one the test calls): an explicit requirement"
                 if explicit else "")))


def _graded_expectations(variant: Variant, seen: Seen) -> bool:
    """Whether a variant drawn from a type P states keeps the graded test's own expectations: every
    check the test makes ran and held as the test wrote it, in every reference run, and nothing
    raised. The harness grades that expectation and P says the function takes the type, so the
    requirement is explicit (A.2: a trial failing it is refuted, whatever the others do).

    A peer (another function P names on the same input) is never explicit: that P means the two
    to agree is a reading of its English, which TestJack does not claim; such a witness asks the
    analyst (A.2 decides among implicit ones)."""
    made = checks(variant.fn)
    return (variant.stated and not variant.peer and seen.raised is None and made > 0
            and len(seen.held) == made and all(seen.held.values()))
