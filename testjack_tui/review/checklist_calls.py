"""The calls and string literals the requirements checklist compares: those T0 and a witness make
(read from their code with ``ast``), and those a sentence of P or a witness's requirement quotes.

A call is kept in one canonical form, ``name(args)`` with its literal arguments unparsed, so the
same call written twice, in P and in a test, is the same string.
"""

from __future__ import annotations

import ast
import re

from testjack_tui.pysource.names import name_of

_CODE = re.compile(r"`([^`]+)`")  # a span a sentence quotes as code
# a Python string literal in running text (not the end of a word, as in P's)
_QUOTED = re.compile(r"""(?<![\w])("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")


def _literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def _calls_in_tree(tree: ast.AST) -> set[str]:
    """``name(args)`` in canonical form for every call with literal arguments."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = name_of(node.func)
            if name and all(_literal(a) for a in node.args) and all(_literal(k.value) for k in node.keywords):
                args = [ast.unparse(a) for a in node.args] + [f"{k.arg}={ast.unparse(k.value)}" for k in node.keywords]
                out.add(f"{name}({', '.join(args)})")
    return out


def calls_in(code: str) -> set[str]:
    """Canonical calls in a snippet (an expression, a statement, or a whole test file)."""
    for mode in ("eval", "exec"):
        try:
            return _calls_in_tree(ast.parse(code, mode=mode))
        except (SyntaxError, ValueError):
            continue
    return set()


def strings_in(code: str) -> set[str]:
    """The string literals a piece of Python code uses."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return set()
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def added_code(patch: str) -> str:
    """The lines a patch adds (the official tests' code), as one text."""
    lines = []
    for line in patch.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            lines.append(line[1:])
    return "\n".join(lines)


def quoted_strings(text: str) -> set[str]:
    """The string literals quoted in a text (a canonical call, a requirement's "returns ...")."""
    out = set()
    for raw in _QUOTED.findall(text):
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, str):
            out.add(value)
    return out


def code_spans(sentence: str) -> tuple[set[str], set[str]]:
    """The calls (with literal arguments) and the string literals a sentence quotes as code.

    A span that is a string literal (`"5x"`) is an input P names; a call's arguments count as
    its call. A signature (`slugify(text, sep="-")`) or a path names no input.
    """
    calls: set[str] = set()
    literals: set[str] = set()
    for span in _CODE.findall(sentence):
        try:
            tree = ast.parse(span.strip(), mode="eval")
        except (SyntaxError, ValueError):
            continue
        if isinstance(tree.body, ast.Constant) and isinstance(tree.body.value, str):
            literals.add(tree.body.value)
        else:
            calls |= _calls_in_tree(tree)
    return calls, literals
