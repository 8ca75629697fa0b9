"""Inputs for differential probes: seeds from P and T0, their mutations, and generated values.

Seeds are the calls P's examples and T0's tests make. Each seed is then mutated one argument at a
time the way EvalPlus grows HumanEval's inputs (type-aware): numbers move to 0, 1, -1, their
neighbours, their negation and double; strings become empty, one character, other case, reversed,
repeated, padded with spaces; collections grow, shrink, empty, reverse, sort, and (when the type
admits it) take edge elements such as ``True`` or ``None``. Finally values are generated from the
parameters' annotations with hypothesis strategies.

Determinism: hypothesis is used only to *generate* values. ``draw`` runs a ``@given`` function
with ``@seed(n)`` (n derived from the task and trial ids), no example database and the generate
phase only, so the same task, trial and seed give the same inputs; ``random.Random`` seeded the
same way orders nothing here (mutations are enumerated, not sampled). Hypothesis also mixes in
constants it reads from the source of every "local" module loaded in the process (not the
standard library, not site-packages): which modules those are depends on what the process
imported before (the CLI, the console, a test run) and on whether TestJack is installed editable,
so ``draw`` has hypothesis draw constants from its built-in set only (``seeded_provider``).
"""

from __future__ import annotations

import typing
from typing import Any

from testjack_tui.authors.offline.bounds import Domain, _plain_int, below_floor, seed_floors
from testjack_tui.pysource.calls import (
    MAX_REPR, CallArgs, aliases_in_tests, calls_in_source, literal_ok, seed_number,
)
from testjack_tui.authors.offline.mutation import mutate_value, mutations
from testjack_tui.pysource.annotations import resolve_annotation
from testjack_tui.pysource.signatures import Target

# the seeds, bounds and mutations live in calls.py, bounds.py and mutation.py; importers of this
# module (the author, the domain builder) keep one place to ask for inputs
__all__ = [
    "MAX_REPR", "CallArgs", "Domain", "aliases_in_tests", "below_floor", "calls_in_source", "draw", "generated",
    "is_any_list", "literal_ok", "mutate_value", "mutations", "plan_inputs", "resolve_annotation", "seed_floors",
    "seed_number", "strategy_for",
]


def is_any_list(annotation: str) -> bool:
    """``List[Any]``, bare ``list``: P leaves the element type open, so edge elements of any type fit."""
    t = resolve_annotation(annotation)
    if t in (list, typing.List):
        return True
    return typing.get_origin(t) in (list, tuple) and typing.get_args(t)[:1] == (typing.Any,)


def strategy_for(tp: Any, seeds: list[Any], domain: Domain, depth: int = 0):
    """A bounded hypothesis strategy for an annotation (or for the seeds' type), or None."""
    from hypothesis import strategies as st

    if depth > 3:
        return None
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is None:
        # no annotation: the seeds' type, when it has one (a dict or an object has none here)
        seen = _type_of(seeds[0]) if seeds else None
        return strategy_for(seen, seeds, domain, depth + 1) if seen is not None else None
    if tp is bool:
        return st.booleans()
    if tp is int:
        hi = max([100, *(abs(s) * 2 for s in seeds if isinstance(s, int) and not isinstance(s, bool))])
        lo = domain.int_min if domain.int_min is not None else -20
        return st.integers(min_value=lo, max_value=min(hi, 10**6))
    if tp is float:
        return st.floats(-100, 100, allow_nan=False, allow_infinity=False).map(lambda x: round(x, 2))
    if tp is str:
        # only characters P's examples and T0 use: a stray "-" in a string of parentheses says
        # nothing about the task; without any seed, lower-case words
        chars = "".join(sorted({c for s in seeds if isinstance(s, str) for c in s})) or "abcdexyz "
        return st.text(alphabet=chars, max_size=12)
    if tp is typing.Any:
        return st.one_of(st.integers(-5, 50), st.text("abc", max_size=3), st.none(), st.booleans())
    if origin in (list, typing.List) or tp in (list, typing.List):
        inner = [e for s in seeds if isinstance(s, list) for e in s]
        elem = strategy_for(args[0] if args else (_type_of(inner[0]) if inner else None), inner, domain, depth + 1)
        return st.lists(elem, max_size=8) if elem is not None else None
    if origin is tuple and args and args[-1] is not Ellipsis:
        parts = [strategy_for(a, [], domain, depth + 1) for a in args]
        return st.tuples(*parts) if all(p is not None for p in parts) else None
    if origin is dict and len(args) == 2:
        k, v = strategy_for(args[0], [], domain, depth + 1), strategy_for(args[1], [], domain, depth + 1)
        return st.dictionaries(k, v, max_size=4) if k is not None and v is not None else None
    if origin is typing.Union:
        parts = [st.none() if a is type(None) else strategy_for(a, seeds, domain, depth + 1) for a in args]
        return st.one_of(*parts) if all(p is not None for p in parts) else None
    return None


def _type_of(value: Any) -> Any:
    if isinstance(value, list):
        return list[_type_of(value[0])] if value else list[int]
    return type(value) if isinstance(value, (bool, int, float, str)) else None


def draw(strategy, count: int, seed: int) -> list[Any]:
    """``count`` values from ``strategy``, the same ones for the same ``seed`` in any process."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from testjack_tui.authors.offline.seeded_provider import install
    install()

    drawn: list[Any] = []

    @hseed(seed)
    @settings(max_examples=count, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck), derandomize=False, print_blob=False)
    @given(strategy)
    def collect(value: Any) -> None:
        drawn.append(value)

    try:
        collect()
    except Exception:  # a strategy hypothesis cannot satisfy: no generated inputs
        return drawn
    return drawn


def generated(target: Target, seeds: list[CallArgs], domain: Domain, count: int, seed: int) -> list[CallArgs]:
    """Calls of ``target`` with generated positional arguments (type-aware, bounded sizes)."""
    from hypothesis import strategies as st

    params = list(target.required)
    if not params or target.variadic:
        return []  # a variadic constructor: which arguments it takes is not in its signature
    parts = []
    for i, p in enumerate(params):
        values = [s.args[i] for s in seeds if len(s.args) > i]
        strat = strategy_for(resolve_annotation(p.annotation), values, domain)
        if strat is None:
            return []
        parts.append(strat)
    return [CallArgs(tuple(v)) for v in draw(st.tuples(*parts), count, seed)]


# ---------------------------------------------------------------------------------------- the plan


def plan_inputs(
    target: Target,
    seeds: list[CallArgs],
    domain: Domain,
    seed: int,
    budget: int = 120,
    generate: int = 30,
    keep: "typing.Callable[[CallArgs], bool] | None" = None,
    found: "list[CallArgs] | None" = None,
) -> list[CallArgs]:
    """Seeds, then ``found`` (the symbolic search's inputs), then the seeds' mutations, then
    generated calls: unique, literal, in P's domain, at most ``budget``.

    What P says about numbers (``positive``) always holds. The range of P's and T0's integers
    holds inside collections; a top-level integer argument may go below it (to 0, 1, -1, -n),
    and ``below_floor`` marks those calls so their divergences can be weighed separately.
    """
    any_type = {i for i, p in enumerate(target.params) if is_any_list(p.annotation)}
    stated = domain
    domain = domain.narrowed_by(seeds)
    names = [p.name for p in target.params]
    arity = (len(target.required), 10**6 if target.variadic else len(target.params))
    out: dict[str, CallArgs] = {}

    def add(call: CallArgs, limit: int = budget) -> None:
        if len(out) >= limit or call.key in out:
            return
        if not (arity[0] <= len(call.args) + len(call.kwargs) <= arity[1]):
            return
        values = call.values
        if not all(literal_ok(v) for v in values):
            return
        if all(stated.admits(v) if _plain_int(v) else domain.admits(v) for v in call.args) and all(
            domain.admits(v) for _, v in call.kwargs
        ) and stated.admits_call(call, names) and (keep is None or keep(call)):
            out[call.key] = call

    for s in [*seeds, *(found or ())]:
        add(s)
    mutated = sorted({m.key: m for s in seeds for m in mutations(s, any_type)}.values(), key=lambda c: (c.size, c.key))
    # small first: they make short witnesses; but a share of the slots goes to the largest
    # mutations, so size scaling is probed even when small inputs are many
    room = max(0, budget - generate - len(out))
    for m in mutated:
        if len(out) >= budget - generate - room // 4:
            break
        add(m, budget - generate - room // 4)
    for m in reversed(mutated):
        add(m, budget - generate)
    for g in generated(target, seeds, domain, generate, seed):
        add(g)
    return list(out.values())
