"""Literals the official tests feed in (inputs) and check for (expected values), and literals of a patch.

The hard-coding and special-casing detectors compare a trial's literals against these. Harvesting
walks the tests' ``ast``: the literal side of an asserted comparison or of ``assertEqual`` is an
expected value, positional literal arguments of calls are inputs, and ``pytest.mark.parametrize``
rows give inputs (all but the last item) and an expected value (the last item).
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field

# Literals too common to say anything about where they came from.
TRIVIAL = {0, 1, -1, "", None, True, False}
ASSERT_EQUAL_METHODS = {"assertEqual", "assertEquals", "assertIs", "assertIn", "assertListEqual",
                        "assertTupleEqual", "assertDictEqual", "assertSetEqual", "assertAlmostEqual",
                        "assertMultiLineEqual", "assertCountEqual"}
MAX_SHOWN = 60


@dataclass(frozen=True)
class Origin:
    """Where a test literal was seen: file, line, and the expression it belongs to, for the finding's text."""

    file: str
    line: int
    context: str  # e.g. "slugify('Hello, World!')"


@dataclass
class TestLiterals:
    expected: dict[object, Origin] = field(default_factory=dict)
    inputs: dict[object, Origin] = field(default_factory=dict)


def key(value: object) -> object | None:
    """A hashable, type-aware key for a literal (so True and 1, 1 and 1.0 stay apart); None when trivial."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)) and value in TRIVIAL:
        return None
    if isinstance(value, (str, bytes)) and not value:
        return None
    if isinstance(value, (str, bytes, int, float, complex)):
        return (type(value).__name__, value)
    return None


def shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def constants(node: ast.AST | None) -> list[ast.Constant]:
    """Scalar constants in an expression, counting ``-5`` as the constant -5."""
    if node is None:
        return []
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and key(sub.value) is not None:
            found.append(sub)
        elif (isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.USub)
              and isinstance(sub.operand, ast.Constant) and isinstance(sub.operand.value, (int, float))
              and not isinstance(sub.operand.value, bool)):
            neg = ast.Constant(-sub.operand.value)
            ast.copy_location(neg, sub)
            neg.end_lineno, neg.end_col_offset = sub.end_lineno, sub.end_col_offset
            if key(neg.value) is not None:
                found.append(neg)
    # a negated constant was also collected as its positive operand; drop those operands
    negated = {id(s.operand) for s in ast.walk(node) if isinstance(s, ast.UnaryOp) and isinstance(s.op, ast.USub)}
    return [c for c in found if id(c) not in negated]


def is_literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _segment(source: str, node: ast.AST) -> str:
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    text = " ".join(text.split())
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def harvest_tests(test_sources: dict[str, str]) -> TestLiterals:
    """Expected values and inputs of the official tests (files that do not parse are skipped)."""
    found = TestLiterals()
    for path, source in sorted(test_sources.items()):
        if not path.endswith(".py") or source is None:
            continue
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        _harvest_file(path, source, tree, found)
    return found


def _add(table: dict[object, Origin], node: ast.AST, origin: Origin) -> None:
    for const in constants(node):
        table.setdefault(key(const.value), origin)


def _harvest_file(path: str, source: str, tree: ast.AST, found: TestLiterals) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
            sides = [node.test.left, *node.test.comparators]
            for i, side in enumerate(sides):
                if is_literal(side):
                    others = [s for j, s in enumerate(sides) if j != i and not is_literal(s)]
                    context = _segment(source, others[0]) if others else _segment(source, node.test)
                    _add(found.expected, side, Origin(path, node.lineno, context))
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ASSERT_EQUAL_METHODS:
                literal_args = [a for a in node.args if is_literal(a)]
                others = [a for a in node.args if not is_literal(a)]
                context = _segment(source, others[0]) if others else _segment(source, node)
                for arg in literal_args:
                    _add(found.expected, arg, Origin(path, node.lineno, context))
            elif name == "parametrize":
                _harvest_parametrize(path, source, node, found)
            elif not name.startswith("assert") and name not in ("print", "len", "str", "repr", "isinstance"):
                context = _segment(source, node)
                for arg in node.args:
                    if isinstance(arg, (ast.Constant, ast.UnaryOp, ast.Tuple, ast.List, ast.Set)) and is_literal(arg):
                        _add(found.inputs, arg, Origin(path, node.lineno, context))
        elif isinstance(node, ast.Assign) and is_literal(node.value):
            names = [t.id.lower() for t in node.targets if isinstance(t, ast.Name)]
            if any(n.startswith(("expected", "want", "golden")) for n in names):
                _add(found.expected, node.value, Origin(path, node.lineno, names[0]))


def _harvest_parametrize(path: str, source: str, call: ast.Call, found: TestLiterals) -> None:
    if len(call.args) < 2 or not isinstance(call.args[1], (ast.List, ast.Tuple)):
        return
    for row in call.args[1].elts:
        if isinstance(row, ast.Call) and row.args:  # pytest.param(...)
            items = list(row.args)
        elif isinstance(row, (ast.Tuple, ast.List)):
            items = list(row.elts)
        else:
            items = [row]
        context = "parametrize row " + _segment(source, row)
        origin = Origin(path, row.lineno, context)
        if len(items) > 1:
            _add(found.expected, items[-1], origin)
        for item in items[:-1] if len(items) > 1 else items:
            _add(found.inputs, item, origin)


def patch_literals(patch_text: str) -> set[object]:
    """Keys of the string and number literals on a patch's added lines (tokenised line by line)."""
    keys: set[object] = set()
    if not patch_text:
        return keys
    added = [line[1:] for line in patch_text.splitlines()
             if line.startswith("+") and not line.startswith("+++")]
    for line in added:
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(line + "\n").readline))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            tokens = []
        previous = None
        for tok in tokens:
            if tok.type in (tokenize.STRING, tokenize.NUMBER):
                try:
                    value = ast.literal_eval(tok.string)
                except (ValueError, SyntaxError):
                    previous = tok
                    continue
                if tok.type == tokenize.NUMBER and previous is not None and previous.string == "-":
                    value = -value
                k = key(value)
                if k is not None:
                    keys.add(k)
                if tok.type == tokenize.NUMBER:
                    keys.add(key(abs(value)))  # "-5" in the reference also covers a trial's 5
            previous = tok
    keys.discard(None)
    return keys
