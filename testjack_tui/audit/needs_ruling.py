"""The analyst's queue: witnesses the evidence could not classify, and what a ruling on each would change.

A witness is ``needs_ruling`` when one trial would decide rho's majority (A.2 read from too few
trials), or when its author doubts that its expectation binds a trial (``Witness.doubt``). It
refutes nothing until an analyst rules it necessary (then it refutes the trials it fails) or
ambiguous. The report's ``needs_ruling`` list, the summary's counts and the console's rulings
queue all read this one function, so they agree.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from testjack_tui.store import Store
from testjack_tui.pysource.names import name_of
from testjack_tui.audit.verdicts import fails_on, passing_trials, undecided_because
from testjack_tui.model import Classification, Verdict, Witness, WitnessStatus


@dataclass
class Undecided:
    witness: Witness
    because: str  # why the evidence could not classify it
    would_refute: list[str] = field(default_factory=list)  # passing trials it fails: refuted if ruled necessary
    newly_refuted: list[str] = field(default_factory=list)  # ... of which nothing else refutes yet
    passing_seen: int = 0  # passing trials it ran on


def undecided(store: Store, run_id: str) -> list[Undecided]:
    """The run's ``needs_ruling`` witnesses, most trials at stake first."""
    trials = store.list_trial_objects(run_id)
    passing = {t.id for t in passing_trials(trials)}
    verdicts = store.list_verdicts(run_id)
    refuted = {tid for tid, v in verdicts.items() if v.verdict in (Verdict.REFUTED, Verdict.REWARD_HACK)}
    results = store.witness_results_for_run(run_id)
    domains = {t.id: t.domain for t in store.list_tasks(run_id)}
    out = []
    for w in store.list_witnesses(run_id, status=str(WitnessStatus.VALIDATED)):
        if w.classification != Classification.NEEDS_RULING:
            continue
        res = {k: v for k, v in results.get(w.id, {}).items() if k in passing}
        fails = sorted(k for k, v in res.items() if fails_on(w, v))
        out.append(Undecided(w, undecided_because(w, len(res), domains.get(w.task_id)), fails,
                             [t for t in fails if t not in refuted], len(res)))
    return sorted(out, key=lambda u: (-len(u.newly_refuted), -len(u.would_refute), u.witness.task_id, u.witness.id))


# calls a witness makes that are not the task's: pytest's helpers, builtins, the timing helpers
_NOT_THE_CALL = {"raises", "approx", "warns", "_within", "_answer", "signal", "setitimer", "Late", "islice",
                 "list", "tuple", "set", "dict", "frozenset", "sorted", "len", "repr", "str", "int", "float",
                 "bool", "range", "isinstance", "type", "iter", "next", "all", "any", "sum", "abs", "round",
                 "print", "getattr", "hasattr", "id", "zip", "enumerate", "map", "filter", "reversed"}


def witness_call(code: str) -> tuple[str, str]:
    """(the call a witness makes of the task's code, what it expects of it), as written; "" when unread.

    The first call in its first test that is not a helper or a builtin is its input; what it
    expects is the other side of an ``assert call == value``, or ``raises E`` inside
    ``pytest.raises(E)``; anything else is ``""`` (the analyst reads the code).
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return "", ""
    tests = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")]
    for test in tests[:1]:
        for stmt in ast.walk(test):
            if isinstance(stmt, ast.Assert):
                found = _call_in(stmt.test)
                if found is None:
                    continue
                t = stmt.test
                if isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], (ast.Eq, ast.Is)):
                    left = any(n is found for n in ast.walk(t.left))
                    return ast.unparse(found), ast.unparse(t.comparators[0] if left else t.left)
                return ast.unparse(found), ast.unparse(t)
            if isinstance(stmt, ast.With):
                raised = [i.context_expr for i in stmt.items if isinstance(i.context_expr, ast.Call)
                          and name_of(i.context_expr.func) == "raises" and i.context_expr.args]
                found = next((c for s in stmt.body for c in [_call_in(s)] if c is not None), None)
                if raised and found is not None:
                    return ast.unparse(found), f"raises {ast.unparse(raised[0].args[0])}"
        for stmt in test.body:
            found = _call_in(stmt)
            if found is not None:
                return ast.unparse(found), ""
    return "", ""


def _call_in(node: ast.AST) -> ast.Call | None:
    """The outermost call in ``node``, in source order, that is not a helper's or a builtin's."""
    if isinstance(node, ast.Call) and name_of(node.func) not in _NOT_THE_CALL and name_of(node.func) is not None:
        return node
    for child in ast.iter_child_nodes(node):
        found = _call_in(child)
        if found is not None:
            return found
    return None
