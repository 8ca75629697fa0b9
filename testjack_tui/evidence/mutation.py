"""Mutation testing of the lines a trial's diff adds or changes (paper §3.2 step 3 iii).

Why our own small mutator rather than a library: we checked mutmut 3.8 and cosmic-ray 8.7.
mutmut rewrites whole functions into "trampolines" and runs pytest in-process under its own
runner (state in a ``mutants/`` tree, selected by an environment variable), so a mutant is not a
self-contained change we could hand to our executor, and it pulls in libcst and textual. cosmic-ray
can mutate a module by (operator, occurrence), but has no notion of "only these lines", keeps its
work in its own SQLite session, and needs a dozen runtime dependencies (sqlalchemy, aiohttp,
gitpython, stevedore...). What we need is small: one-token mutants of given lines, each expressed as
a unified diff (``worlds.request.Patch``) applied on top of the trial patch, so that every mutant is
an ordinary ``ExecRequest`` that shares the model world's cached set-up. The mutator edits the source
text at the node's exact columns (``ast`` positions), so a mutant's diff changes one line and
nothing else.

Operators: ``operator`` (arithmetic, comparison and boolean operators swapped), ``constant``
(numbers nudged, strings emptied, booleans flipped), ``condition`` (an ``if``/``while``/ternary test
negated) and ``return`` (a returned expression replaced by ``None``).
"""

from __future__ import annotations

import ast
import difflib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from ..model import Evidence, EvidenceKind
from ..worlds.request import ExecRequest, ExecResult, Patch
from .diff import ReadFile, changed_code

BINARY_SWAPS = {ast.Add: ("+", "-"), ast.Sub: ("-", "+"), ast.Mult: ("*", "/"), ast.Div: ("/", "*"),
                ast.FloorDiv: ("//", "/"), ast.Mod: ("%", "*"), ast.Pow: ("**", "*"),
                ast.LShift: ("<<", ">>"), ast.RShift: (">>", "<<"), ast.BitAnd: ("&", "|"), ast.BitOr: ("|", "&")}
COMPARE_SWAPS = {ast.Lt: ("<", "<="), ast.LtE: ("<=", "<"), ast.Gt: (">", ">="), ast.GtE: (">=", ">"),
                 ast.Eq: ("==", "!="), ast.NotEq: ("!=", "=="), ast.In: ("in", "not in"),
                 ast.NotIn: ("not in", "in"), ast.Is: ("is", "is not"), ast.IsNot: ("is not", "is")}
BOOL_SWAPS = {ast.And: ("and", "or"), ast.Or: ("or", "and")}

Execute = Callable[[list[ExecRequest]], Iterable[tuple[ExecRequest, ExecResult]]]


@dataclass(frozen=True)
class Mutant:
    description: str  # e.g. "`<` -> `<=` in `if n < 0:`"
    file: str
    line: int
    operator: str  # operator | constant | condition | return
    patch: Patch  # applied on top of the trial patch in the model world


@dataclass(frozen=True)
class _Edit:
    line: int
    col: int
    end_col: int
    new: str
    operator: str
    what: str


def generate_mutants(trial_patch: str, read_file: ReadFile, limit: int = 40) -> list[Mutant]:
    """Single-edit mutants of the product code lines the trial adds or changes, at most ``limit``.

    When there are more candidates than ``limit``, lines take turns (round robin) so that every
    changed line gets a mutant before any line gets a second one. Deterministic for a given input.
    """
    per_line: dict[tuple[str, int], list[Mutant]] = {}
    for changed, source in changed_code(trial_patch, read_file):
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        lines = source.splitlines(keepends=True)
        for edit in _edits(tree, lines, set(changed.added_lines)):
            mutated = _apply(lines, edit)
            if mutated is None:
                continue
            code = lines[edit.line - 1].strip()
            description = f"{edit.what} in `{code[:60]}`"
            patch_text = _unified_diff(changed.path, source, mutated)
            per_line.setdefault((changed.path, edit.line), []).append(
                Mutant(description, changed.path, edit.line, edit.operator, Patch("mutant", patch_text)))
    ordered: list[Mutant] = []
    queues = [per_line[k] for k in sorted(per_line)]
    depth = 0
    while len(ordered) < limit and any(depth < len(q) for q in queues):
        for queue in queues:
            if depth < len(queue) and len(ordered) < limit:
                ordered.append(queue[depth])
        depth += 1
    return [replace(m, patch=Patch(f"mutant:{i}", m.patch.text)) for i, m in enumerate(ordered)]


def _edits(tree: ast.AST, lines: list[str], added: set[int]) -> list[_Edit]:
    edits: list[_Edit] = []

    def on_added(node: ast.AST) -> bool:
        return getattr(node, "lineno", None) in added and node.lineno == node.end_lineno

    # Constants whose mutants only make noise: docstrings, exception messages, f-string pieces.
    quiet: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            quiet.add(id(node.value))
        elif isinstance(node, (ast.Raise, ast.JoinedStr)) or (
                isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                and "__all__" in ast.unparse(getattr(node, "targets", [getattr(node, "target", node)])[0])):
            quiet.update(id(sub) for sub in ast.walk(node) if isinstance(sub, ast.Constant))

    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and type(node.op) in BINARY_SWAPS and on_added(node):
            old, new = BINARY_SWAPS[type(node.op)]
            edits += _token_edit(lines, node.left, node.right, old, new, "operator")
        elif isinstance(node, ast.Compare) and on_added(node):
            operands = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                if type(op) in COMPARE_SWAPS:
                    old, new = COMPARE_SWAPS[type(op)]
                    edits += _token_edit(lines, operands[i], operands[i + 1], old, new, "operator")
        elif isinstance(node, ast.BoolOp) and on_added(node):
            old, new = BOOL_SWAPS[type(node.op)]
            edits += _token_edit(lines, node.values[0], node.values[1], old, new, "operator")
        elif isinstance(node, (ast.If, ast.While, ast.IfExp)) and on_added(node.test):
            segment = _segment(lines, node.test)
            if segment is not None:
                edits.append(_Edit(node.test.lineno, node.test.col_offset, node.test.end_col_offset,
                                   f"not ({segment})", "condition", f"condition `{segment}` negated"))
        elif isinstance(node, ast.Return) and node.value is not None and on_added(node.value) \
                and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            segment = _segment(lines, node.value)
            if segment is not None:
                edits.append(_Edit(node.value.lineno, node.value.col_offset, node.value.end_col_offset,
                                   "None", "return", "return value -> `None`"))
        elif isinstance(node, ast.Constant) and on_added(node) and id(node) not in quiet \
                and not isinstance(node.value, bytes):
            new = _mutated_constant(node.value)
            if new is not None and _segment(lines, node) is not None:
                edits.append(_Edit(node.lineno, node.col_offset, node.end_col_offset, new, "constant",
                                   f"constant {_segment(lines, node)[:30]} -> {new[:30]}"))
    # per line: behaviour-changing kinds first, constants last (they are the likeliest to be equivalent)
    rank = {"operator": 0, "condition": 1, "return": 2, "constant": 3}
    return sorted(set(edits), key=lambda e: (e.line, rank[e.operator], e.col, e.new))


def _mutated_constant(value: object) -> str | None:
    if isinstance(value, bool):
        return repr(not value)
    if isinstance(value, int):
        return repr(value + 1)
    if isinstance(value, float):
        return repr(value + 1.0)
    if isinstance(value, str):
        return '""' if value else '"XX"'
    return None


def _segment(lines: list[str], node: ast.AST) -> str | None:
    if node.lineno != node.end_lineno:
        return None
    line = lines[node.lineno - 1].encode()
    return line[node.col_offset:node.end_col_offset].decode(errors="replace")


def _token_edit(lines: list[str], left: ast.AST, right: ast.AST, old: str, new: str, operator: str) -> list[_Edit]:
    """Replace the operator token between two operands on the same line (ast gives no position for it)."""
    if left.end_lineno != right.lineno:
        return []
    line = lines[left.end_lineno - 1].encode()
    gap = line[left.end_col_offset:right.col_offset].decode(errors="replace")
    # The gap holds only the operator, spaces and closing/opening parentheses.
    at = gap.find(old)
    if at < 0 or gap[:at].strip(" )") or gap[at + len(old):].strip(" ("):
        return []
    start = left.end_col_offset + len(gap[:at].encode())
    return [_Edit(left.end_lineno, start, start + len(old.encode()), new, operator, f"`{old}` -> `{new}`")]


def _apply(lines: list[str], edit: _Edit) -> str | None:
    line = lines[edit.line - 1].encode()
    mutated_line = (line[:edit.col] + edit.new.encode() + line[edit.end_col:]).decode()
    mutated = lines[:edit.line - 1] + [mutated_line] + lines[edit.line:]
    text = "".join(mutated)
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    return text if text != "".join(lines) else None


def _unified_diff(path: str, before: str, after: str) -> str:
    out = []
    for line in difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                     f"a/{path}", f"b/{path}", n=3):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def mutant_request(base_request: ExecRequest, mutant: Mutant) -> ExecRequest:
    """The model world's T0 request with the mutant's patch applied last; coverage is not needed."""
    return replace(base_request, patches=(*base_request.patches, mutant.patch), coverage=False,
                   label=f"{mutant.patch.name} {mutant.file}:{mutant.line}")


def survivors(mutants: list[Mutant], base_request: ExecRequest, execute: Execute, budget_s: float = 120.0, *,
              run_id: str = "", trial_id: str = "", batch_size: int = 4,
              passes: Callable[[ExecResult], bool] | None = None) -> list[Evidence]:
    """Run each mutant's T0 through ``execute``; a mutant T0 still passes survives and becomes Evidence.

    Batches go to ``execute`` until ``budget_s`` seconds have passed (a batch already started
    finishes). A mutant whose patch did not apply, that timed out or errored, counts as killed.
    """
    started = time.monotonic()
    test_ids = base_request.test_ids
    found: list[Evidence] = []
    for first in range(0, len(mutants), max(1, batch_size)):
        if time.monotonic() - started >= budget_s:
            break
        batch = mutants[first:first + batch_size]
        by_key = {mutant_request(base_request, m).key(): m for m in batch}
        for request, result in execute([mutant_request(base_request, m) for m in batch]):
            mutant = by_key.get(request.key())
            if mutant is not None and (passes(result) if passes else result.passed(test_ids)):
                found.append(Evidence(run_id=run_id, trial_id=trial_id, kind=EvidenceKind.MUTANT,
                                      detail=f"mutant survives T0: {mutant.description}",
                                      file=mutant.file, line=mutant.line, detector=mutant.operator))
    return found
