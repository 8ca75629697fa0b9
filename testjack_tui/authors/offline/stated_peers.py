"""Functions P names side by side on the same input: ``vpprint(0*A.x), and ... pretty(0*A.x)``.

When P writes two calls with the same argument text, it says both functions are asked of that
input; a graded test that calls one of them can be varied to call the other with the same
arguments (``test_variants.swapped``), and the reference says what that call gives. A peer is
used only where the test file can reach it: a name the test module already has, or one the
top-level package of the code the reference changes exports (its ``__init__.py`` imports it or
lists it in ``__all__``), imported from there. Plain regular expressions over P's text: a call in
prose has no syntax tree, and a misread pair costs a variant the reference then judges, never a
verdict on its own.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

# a call written in P: a name, then one level of parentheses (``f(0*A.x)``, ``g(a, h(b))``)
_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(((?:[^()]|\([^()]*\))+)\)")


@dataclass(frozen=True)
class Peer:
    """``peer`` named by P on the same input as ``callee``; ``imported`` is the import line the test
    needs for it ("" when the test module has the name)."""

    callee: str
    peer: str
    imported: str = ""


def named_pairs(prompt: str) -> list[tuple[str, str]]:
    """(f, g) for every two functions P calls with the same, non-empty argument text, both ways."""
    by_argument: dict[str, list[str]] = {}
    for m in _CALL.finditer(prompt):
        argument = re.sub(r"\s+", "", m.group(2))
        names = by_argument.setdefault(argument, [])
        if m.group(1) not in names:
            names.append(m.group(1))
    return [(f, g) for names in by_argument.values() for f in names for g in names if f != g]


def exported(init_text: str | None) -> set[str]:
    """The names a package's ``__init__.py`` imports or lists in ``__all__``."""
    try:
        tree = ast.parse(init_text or "")
    except SyntaxError:
        return set()
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            out |= {a.asname or a.name for a in node.names if a.name != "*"}
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                out |= {n for n in ast.literal_eval(node.value) if isinstance(n, str)}
            except ValueError:
                pass
    return out


def peers(prompt: str, test_module: ast.Module, changed: list[str], read: Callable[[str], str | None]) -> list[Peer]:
    """The peers a test module can reach, for the functions it may call; ``changed`` are the files the
    reference patch changes (their top-level package is where a peer may be imported from)."""
    pairs = named_pairs(prompt)
    if not pairs:
        return []
    have = {a.asname or a.name.split(".")[0] for n in ast.walk(test_module)
            if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    have |= {n.name for n in test_module.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    packages = list(dict.fromkeys(p.split("/")[0] for p in changed if "/" in p and p.endswith(".py")))
    if packages == ["src"]:
        packages = list(dict.fromkeys(p.split("/")[1] for p in changed if p.count("/") > 1))
    out: list[Peer] = []
    for callee, peer in pairs:
        if peer in have:
            out.append(Peer(callee, peer))
            continue
        source = next((pkg for pkg in packages if peer in exported(read(f"{pkg}/__init__.py")
                                                                  or read(f"src/{pkg}/__init__.py"))), None)
        if source is not None:
            out.append(Peer(callee, peer, f"from {source} import {peer}"))
    return out
