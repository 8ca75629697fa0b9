"""Which functions a patch adds or changes, their parameters, and how a test reaches them.

A function is *changed* by a patch when one of the lines the patch adds lies inside it in the
post-patch source (a new file changes all of its functions). Only public module-level functions
are probed: methods need an object built first, and private helpers are the implementation's own
business, not something P asks for. unidiff reads the diffs; ``ast`` reads the sources.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

ReadFile = Callable[[str, str], "str | None"]


@dataclass(frozen=True)
class Param:
    name: str
    annotation: str = ""  # source of the annotation, "" when absent
    default: str | None = None  # source of the default, None when required
    keyword_only: bool = False


@dataclass(frozen=True)
class Target:
    """A public module-level function a patch adds or changes."""

    name: str
    path: str  # file, relative to the repository root
    params: tuple[Param, ...] = ()
    returns: str = ""

    @property
    def module(self) -> str:
        return module_of(self.path)

    @property
    def required(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.default is None and not p.keyword_only)


@dataclass(frozen=True)
class Access:
    """How a test reaches a function: the import lines and the expression naming it."""

    imports: tuple[str, ...]
    expr: str


def module_of(path: str) -> str:
    mod = path[:-3] if path.endswith(".py") else path
    if mod.startswith("src/"):
        mod = mod[4:]
    mod = mod.replace("/", ".")
    return mod[: -len(".__init__")] if mod.endswith(".__init__") else mod


def is_test_path(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (
        name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
        or "/tests/" in f"/{path}" or "/test/" in f"/{path}"
    )


def _added_lines(patch: str) -> dict[str, set[int] | None]:
    """File -> added target line numbers (None: a new file, every line counts)."""
    try:
        ps = PatchSet(patch)
    except UnidiffParseError:
        return {}
    out: dict[str, set[int] | None] = {}
    for f in ps:
        if f.is_removed_file:
            continue
        path = f.target_file[2:] if f.target_file.startswith("b/") else f.target_file
        if not path.endswith(".py") or is_test_path(path):
            continue
        if f.is_added_file:
            out[path] = None
            continue
        out[path] = {line.target_line_no for hunk in f for line in hunk if line.is_added}
    return out


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[Param, ...]:
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out = [
        Param(p.arg, ast.unparse(p.annotation) if p.annotation else "", ast.unparse(d) if d is not None else None)
        for p, d in zip(positional, defaults)
    ]
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append(Param(p.arg, ast.unparse(p.annotation) if p.annotation else "",
                         ast.unparse(d) if d is not None else None, keyword_only=True))
    return tuple(out)


def functions_in(source: str, path: str, lines: set[int] | None = None) -> dict[str, Target]:
    """Public module-level functions of ``source`` (those touching ``lines`` when given)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, Target] = {}
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name.startswith("_"):
            continue
        if isinstance(node, ast.AsyncFunctionDef):
            continue  # a coroutine needs an event loop to probe; left to other authors
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        if lines is not None and not any(start <= n <= (node.end_lineno or node.lineno) for n in lines):
            continue
        if a := node.args:
            if a.vararg or a.kwarg:
                continue  # *args/**kwargs: no signature to generate inputs for
        found[node.name] = Target(node.name, path, _params(node), ast.unparse(node.returns) if node.returns else "")
    return found


def changed_functions(patch: str, read_file: ReadFile, world: str) -> dict[str, Target]:
    """Functions ``patch`` adds or changes, read from ``world``'s post-patch sources."""
    found: dict[str, Target] = {}
    for path, lines in sorted(_added_lines(patch).items()):
        source = read_file(world, path)
        if source is None:
            continue
        for name, target in functions_in(source, path, lines).items():
            found.setdefault(name, target)
    return found


def shared_targets(reference_patch: str, trial_patch: str, read_file: ReadFile) -> list[Target]:
    """Functions both the reference and the trial add or change, with the reference's signature.

    Matched by name and by the number of required parameters, so the same call is meaningful in
    both worlds; ordered by name for determinism.
    """
    ref = changed_functions(reference_patch, read_file, "reference")
    mine = changed_functions(trial_patch, read_file, "model")
    out = []
    for name in sorted(set(ref) & set(mine)):
        if len(ref[name].required) == len(mine[name].required):
            out.append(ref[name])
    return out


def test_files(test_patch: str) -> list[str]:
    """Python test files T0's test patch adds or changes."""
    try:
        ps = PatchSet(test_patch)
    except UnidiffParseError:
        return []
    out = []
    for f in ps:
        if f.is_removed_file:
            continue
        path = f.target_file[2:] if f.target_file.startswith("b/") else f.target_file
        if path.endswith(".py"):
            out.append(path)
    return out


def access_for(target: Target, test_sources: list[str]) -> Access:
    """Reach ``target`` the way T0's tests do (``import pkg`` + ``pkg.f`` or ``from m import f``).

    A test written like T0's reads naturally to the analyst and exercises the same public entry
    point the prompt names; without a hint the function's own module is imported.
    """
    for source in test_sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    if alias.name == target.name:
                        local = alias.asname or alias.name
                        line = f"from {node.module} import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                        return Access((line,), local)
        used = {f"{ast.unparse(n.value)}" for n in ast.walk(tree)
                if isinstance(n, ast.Attribute) and n.attr == target.name and isinstance(n.value, (ast.Name, ast.Attribute))}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name
                    if local in used:
                        line = f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                        return Access((line,), f"{local}.{target.name}")
    return module_access(target)


def module_access(target: Target) -> Access:
    return Access((f"from {target.module} import {target.name}",), target.name)


def safe_identifier(text: str) -> str:
    return re.sub(r"\W+", "_", text).strip("_") or "call"
