"""No import circles in the product code (``testjack_tui``, with ``store/`` and ``themes/`` inside it).

Imports are read with ``ast``, never executed. Every import counts: at module level, inside a
function (a lazy import still means the two modules know each other), and under ``TYPE_CHECKING``
(a type named from the other module is a dependency too). ``from a.b import c`` points at the module
``a.b.c`` when there is one, else at ``a.b``. Importing ``a.b.c`` is not counted as importing the
packages ``a`` and ``a.b``: Python runs their ``__init__`` first, but counting it would make every
package that re-exports a child's names circular with that child, the ordinary layout.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# folder of the repository -> the import package it installs as (pyproject's package-dir)
PACKAGES = {"testjack_tui": "testjack_tui", "store": "testjack_tui.store", "themes": "testjack_tui.themes"}


def product_modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the product packages."""
    found = {}
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = [package, *path.relative_to(ROOT / folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The product modules ``name`` (at ``path``) imports, anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()

    def add(target: str) -> None:
        # the most specific product module the dotted name reaches
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            out.add(target)

    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}" if base else alias.name
                add(full if full in modules else base)
    return out


def import_graph() -> dict[str, set[str]]:
    modules = product_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def a_loop(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """The shortest circle through the component's first module, for the message: a -> b -> ... -> a."""
    members, start = set(component), component[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:  # breadth first, inside the component, until an edge leads back to start
        step = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if w not in came_from:
                    came_from[w] = v
                    step.append(w)
        frontier = step
    return component  # not reached: every component of two or more modules has a circle


def test_the_finder_sees_a_circle():
    graph = {"a": {"b", "d"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"b"}, "f": {"a"}}
    assert cycles(graph) == [["a", "b", "c", "d", "e"]]
    assert a_loop(graph, ["a", "b", "c", "d", "e"]) == ["a", "b", "c", "a"]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_function_level_and_type_checking_imports_count(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "one.py").write_text("def f():\n    from pkg.two import g\n")
    (pkg / "two.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import one\n")
    modules = {"pkg": pkg / "__init__.py", "pkg.one": pkg / "one.py", "pkg.two": pkg / "two.py"}
    graph = {name: imports_of(name, path, modules) for name, path in modules.items()}
    assert graph["pkg.one"] == {"pkg.two"} and graph["pkg.two"] == {"pkg.one"}
    assert cycles(graph) == [["pkg.one", "pkg.two"]]


def test_product_code_has_no_import_circle():
    graph = import_graph()
    assert "testjack_tui.store.db" in graph and "testjack_tui.audit.engine" in graph  # the walk found the code
    found = cycles(graph)
    message = "\n".join(" -> ".join(a_loop(graph, c)) + f"   (all of: {', '.join(c)})" for c in found)
    assert not found, "import circles in the product code:\n" + message


def test_store_and_themes_are_imported_only_inside_testjack_tui():
    """A bare ``import store`` works from a checkout (the repository root is on ``sys.path``) but
    not once installed, and would pick up any other package of that name."""
    bare = []
    for name, path in product_modules().items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and not node.level and node.module else [])
            bare += [f"{name}: {n}" for n in names if n.split(".")[0] in ("store", "themes")]
    assert not bare, "imports of the bare store/themes packages:\n" + "\n".join(bare)


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {name for name, path in product_modules().items() if path.name == "__init__.py"}
    assert listed == folders, f"not installed: {sorted(folders - listed)}; listed but absent: {sorted(listed - folders)}"
