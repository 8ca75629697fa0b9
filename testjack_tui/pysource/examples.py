"""Examples that the prompt P states: a call of a task function and the result P promises.

P states examples in a few shapes, all read here:

- doctest: ``>>> f(x)`` then the result on the next line(s), or a ``Traceback`` ending in
  ``ValueError: ...`` (the call must raise);
- equations: ``f(x) == y`` (in backticks, in code fences or on a line of their own), and the
  arrows HumanEval-style prompts use (``f(x) ➞ y``, ``f(x) => y``, ``f(x) -> y``);
- tables: ``| f(x) | y |`` rows whose first cell is a call.

Each example is kept only when its call parses as Python, calls a name the task defines, and its
result is a Python literal (``ast.literal_eval``), so a witness can state it exactly. These are
requirements P states outright: explicit (paper A.2).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

_ARROWS = ("==>", "==", "➞", "=>", "->", "→", "⇒", "# returns", "# =>")
_EQUATION = re.compile(r"^(?P<call>[A-Za-z_][\w.]*\s*\(.*\))\s*(?:==>|==|➞|=>|->|→|⇒|\#\s*returns|\#\s*=>)\s*(?P<result>.+?)\s*$")
_EXCEPTION_LINE = re.compile(r"^(?:[\w.]+\.)?(?P<exc>[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning))\b")
_INLINE_CODE = re.compile(r"`([^`\n]+)`")


@dataclass(frozen=True)
class Example:
    """``call`` (Python source, as P writes it) gives ``expected`` (a literal's source) or raises ``raises``."""

    function: str  # the task function called (last part of a dotted name)
    call: str  # source of the call expression, e.g. 'slugify("Hello, World!")'
    expected: str | None = None  # canonical repr of the promised result
    raises: str | None = None  # exception class name when P says the call raises

    @property
    def args_source(self) -> str:
        """The call's argument list as source (what goes between the parentheses)."""
        node = ast.parse(self.call, mode="eval").body
        assert isinstance(node, ast.Call)
        parts = [ast.unparse(a) for a in node.args]
        parts += [f"{k.arg}={ast.unparse(k.value)}" if k.arg else f"**{ast.unparse(k.value)}" for k in node.keywords]
        return ", ".join(parts)


def _called_function(call: str, names: set[str]) -> str | None:
    try:
        node = ast.parse(call.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name is None or (names and name not in names):
        return None
    # only literal arguments: a call on names from elsewhere cannot be rebuilt in a test
    try:
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            ast.literal_eval(arg)
    except (ValueError, SyntaxError, TypeError):
        return None
    return name


def _literal(text: str) -> str | None:
    """The canonical repr of ``text`` when it is a Python literal, else None."""
    text = text.strip().rstrip(".,;")
    if text.startswith("`") and text.endswith("`"):
        text = text[1:-1]
    text = {"true": "True", "false": "False", "none": "None"}.get(text.lower(), text)  # prose spelling of P
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if isinstance(value, float) and value != value:  # nan never equals itself
        return None
    return repr(value)


def _doctests(lines: list[str], names: set[str]) -> list[Example]:
    found: list[Example] = []
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped.startswith(">>> "):
            i += 1
            continue
        source = stripped[4:]
        i += 1
        while i < len(lines) and lines[i].strip().startswith("... "):  # continuation lines
            source += " " + lines[i].strip()[4:]
            i += 1
        result: list[str] = []
        while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith((">>>", "```", '"""', "'''")):
            result.append(lines[i].strip())
            i += 1
        name = _called_function(source, names)
        if name is None or not result:
            continue
        if result[0].startswith("Traceback"):
            exc = next((m.group("exc") for r in reversed(result) if (m := _EXCEPTION_LINE.match(r))), None)
            if exc:
                found.append(Example(name, source.strip(), raises=exc))
            continue
        expected = _literal(" ".join(result))
        if expected is None:  # prose or another example may follow the result line
            expected = _literal(result[0])
        if expected is not None:
            found.append(Example(name, source.strip(), expected=expected))
    return found


def _equations(text: str, names: set[str]) -> list[Example]:
    candidates: list[str] = [m.group(1) for m in _INLINE_CODE.finditer(text)]
    candidates += [line.strip() for line in text.splitlines()]
    for row in text.splitlines():  # table rows: | call | result |
        cells = [c.strip().strip("`") for c in row.strip().strip("|").split("|")]
        if row.strip().startswith("|") and len(cells) >= 2:
            candidates.append(f"{cells[0]} == {cells[1]}")
    found: list[Example] = []
    for cand in candidates:
        cand = cand.strip().lstrip(">").strip()
        match = _EQUATION.match(cand)
        if not match:
            continue
        call, result = match.group("call"), match.group("result")
        # split at the *last* arrow whose left side is a whole call (arguments may hold arrows)
        for arrow in _ARROWS:
            pos = cand.rfind(f" {arrow} ")
            if pos > 0 and _called_function(cand[:pos].strip(), names):
                call, result = cand[:pos].strip(), cand[pos + len(arrow) + 2 :]
                break
        name = _called_function(call, names)
        expected = _literal(result)
        if name and expected is not None:
            found.append(Example(name, call.strip(), expected=expected))
    return found


def extract_examples(prompt: str, names: set[str] | None = None) -> list[Example]:
    """Every example P states for a function in ``names`` (any called name when empty), in P's order, once each."""
    names = set(names or ())
    lines = prompt.splitlines()
    seen: dict[str, Example] = {}
    for ex in [*_doctests(lines, names), *_equations(prompt, names)]:
        key = _normal_call(ex.call)
        if key not in seen:
            seen[key] = ex
    return list(seen.values())


def _normal_call(call: str) -> str:
    try:
        return ast.unparse(ast.parse(call, mode="eval"))
    except SyntaxError:
        return call


def prompt_mentions(prompt: str, value: object) -> bool:
    """Whether P writes ``value`` down (a string as itself or quoted, a number as a word of its own)."""
    if isinstance(value, str):
        if not value.strip():
            return f'"{value}"' in prompt or f"'{value}'" in prompt
        return f'"{value}"' in prompt or f"'{value}'" in prompt or f"`{value}`" in prompt
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        return re.search(rf"(?<![\w.]){re.escape(repr(value))}(?![\w.])", prompt) is not None
    return repr(value) in prompt
