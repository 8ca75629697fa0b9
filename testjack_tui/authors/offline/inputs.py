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
same way orders nothing here (mutations are enumerated, not sampled).
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import re
import typing
from dataclasses import dataclass
from typing import Any, Iterable

from testjack_tui.authors.offline.signatures import Target

MAX_REPR = 1200  # longer inputs make unreadable witnesses (size scaling stays under it)
_EDGE_ANY = (True, False, None, 0, -1, 1.5, "", "a", [], {})


@dataclass(frozen=True)
class CallArgs:
    """The arguments of one call, as plain Python literals."""

    args: tuple
    kwargs: tuple[tuple[str, Any], ...] = ()

    def source(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        return ", ".join(parts)

    @property
    def key(self) -> str:
        return self.source()

    @property
    def size(self) -> int:
        return len(self.source())


def seed_number(*parts: object) -> int:
    digest = hashlib.sha256("\0".join(str(p) for p in parts).encode()).hexdigest()
    return int(digest[:8], 16)


def literal_ok(value: Any) -> bool:
    """Whether ``repr(value)`` reads back as an equal literal (what a witness file needs)."""
    try:
        text = repr(value)
        if len(text) > MAX_REPR:
            return False
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return back == value and type(back) is type(value) and "nan" not in text and "inf" not in text


# ---------------------------------------------------------------------------------------- seeds


def calls_in_source(source: str, name: str, aliases: Iterable[str] = ()) -> list[CallArgs]:
    """Literal-argument calls of ``name`` (or of an alias such as HumanEval's ``candidate``)."""
    names = {name, *aliases}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out: list[CallArgs] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if called not in names or any(isinstance(a, ast.Starred) for a in node.args):
            continue
        try:
            args = tuple(ast.literal_eval(a) for a in node.args)
            kwargs = tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords if k.arg)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if len(kwargs) != len(node.keywords):
            continue
        out.append(CallArgs(args, kwargs))
    return out


def aliases_in_tests(source: str, name: str) -> list[str]:
    """Parameters a test helper receives ``name`` through: ``check(candidate)`` called as ``check(f)``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers:
            fn = helpers[node.func.id]
            for i, arg in enumerate(node.args):
                if isinstance(arg, ast.Name) and arg.id == name and i < len(fn.args.args):
                    out.append(fn.args.args[i].arg)
    return out


# ---------------------------------------------------------------------------------------- domain


_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10}
_INT = r"(-?\d+|zero|one|two|three|four|five|ten)(?!\.\d|\d)"  # a whole number, not 0.5


def _number(text: str) -> int:
    return _WORDS[text] if text in _WORDS else int(text)


@dataclass(frozen=True)
class Domain:
    """What P says about the inputs.

    ``int_min`` is 1 for "positive", 0 for "non-negative" (every integer). ``bounds`` are the
    limits P states for one parameter (``n > 1``, ``1 <= k <= 100``, "base numbers are less than
    10"), and ``min_length`` the length it states for a list ("of length at least two"). Inputs
    outside them are not the task's: a witness there would check what P never asked.
    """

    int_min: int | None = None
    bounds: tuple[tuple[str, int | None, int | None], ...] = ()  # (parameter, lowest, highest)
    min_length: int | None = None

    @classmethod
    def from_prompt(cls, prompt: str, params: Iterable[str] = ()) -> "Domain":
        low = prompt.lower()
        int_min = None
        if re.search(r"\bnon-?negative\b", low):
            int_min = 0
        elif re.search(r"\bpositive (?:integer|number|int|whole)", low) and "negative" not in low.replace("positive", ""):
            int_min = 1
        bounds = tuple(b for b in (_stated_bounds(low, p.lower(), p) for p in params) if b[1] is not None or b[2] is not None)
        length = re.search(r"length (?:of )?at least " + _INT, low) or re.search(
            r"at least " + _INT + r" (?:elements|numbers|items|values|entries)", low)
        return cls(int_min, bounds, _number(length.group(1)) if length else None)

    def admits_call(self, call: "CallArgs", names: list[str]) -> bool:
        """Whether the call's top-level arguments keep to the limits P states for their parameters."""
        named = list(zip(names, call.args)) + list(call.kwargs)
        limits = {p: (lo, hi) for p, lo, hi in self.bounds}
        for name, value in named:
            if _plain_int(value) and name in limits:
                lo, hi = limits[name]
                if (lo is not None and value < lo) or (hi is not None and value > hi):
                    return False
            if self.min_length is not None and isinstance(value, (list, tuple)) and len(value) < self.min_length:
                return False
        return True

    def narrowed_by(self, seeds: list["CallArgs"]) -> "Domain":
        """Keep to the integers P's examples and T0 use: no zero or negatives unless they appear.

        Like EvalPlus's input contracts, this keeps probes inside the inputs the task is about:
        ``largest_divisor(0)`` or ``circular_shift(-5, 1)`` tell nothing about a trial when neither
        P nor T0 ever passes such a number.
        """
        ints = [v for s in seeds for v in _flat([*s.args, *(x for _, x in s.kwargs)])
                if isinstance(v, int) and not isinstance(v, bool)]
        if not ints or min(ints) < 0:
            return self
        floor = 0 if min(ints) == 0 else 1
        return dataclasses.replace(self, int_min=floor if self.int_min is None else max(floor, self.int_min))

    def admits(self, value: Any) -> bool:
        if self.int_min is None:
            return True
        if isinstance(value, bool):
            return True
        if isinstance(value, int):
            return value >= self.int_min
        if isinstance(value, (list, tuple, set)):
            return all(self.admits(v) for v in value)
        if isinstance(value, dict):
            return all(self.admits(v) for v in value.values())
        return True


def _stated_bounds(low: str, name: str, original: str) -> tuple[str, int | None, int | None]:
    """The lowest and highest integer P allows for parameter ``name`` (None: it says nothing)."""
    lo: int | None = None
    hi: int | None = None
    n = re.escape(name)

    def raise_lo(v: int) -> None:
        nonlocal lo
        lo = v if lo is None else max(lo, v)

    def lower_hi(v: int) -> None:
        nonlocal hi
        hi = v if hi is None else min(hi, v)

    for op, k in re.findall(rf"(?<![\w.]){n}\s*(>=|>|<=|<|≥|≤)\s*{_INT}", low):
        v = _number(k)
        {">": lambda: raise_lo(v + 1), ">=": lambda: raise_lo(v), "≥": lambda: raise_lo(v),
         "<": lambda: lower_hi(v - 1), "<=": lambda: lower_hi(v), "≤": lambda: lower_hi(v)}[op]()
    for k, op in re.findall(rf"{_INT}\s*(<=|<|≤)\s*{n}(?![\w(])", low):
        v = _number(k)
        raise_lo(v + 1 if op == "<" else v)
    phrase = rf"(?<![\w.]){n}\b[^.;:\n]{{0,25}}?\b(?:is|are|be)\s+"
    for k in re.findall(phrase + rf"(?:less|smaller|lower) than\s+{_INT}", low):
        lower_hi(_number(k) - 1)
    for k in re.findall(phrase + rf"(?:greater|larger|bigger|more) than\s+{_INT}", low):
        raise_lo(_number(k) + 1)
    for k in re.findall(phrase + rf"at least\s+{_INT}", low):
        raise_lo(_number(k))
    for k in re.findall(phrase + rf"at most\s+{_INT}", low):
        lower_hi(_number(k))
    return original, lo, hi


def seed_floors(seeds: list["CallArgs"]) -> dict[int, int]:
    """Per positional argument, the smallest plain integer P's examples and T0 pass there.

    An argument P or T0 already gives a negative number has no floor: negatives are in play, and
    a larger one (``iscube(-64)`` next to ``iscube(-1)``) is no new kind of input.
    """
    floors: dict[int, int] = {}
    for s in seeds:
        for i, v in enumerate(s.args):
            if _plain_int(v):
                floors[i] = min(v, floors.get(i, v))
    return {i: v for i, v in floors.items() if v >= 0}


def below_floor(call: "CallArgs", floors: dict[int, int]) -> bool:
    """Whether ``call`` passes an integer argument smaller than any P or T0 passes there.

    Such *frontier* inputs (``fib(0)`` when P and T0 start at 1) may be outside what the task is
    about (``largest_divisor(1)``), or a case the reference handles on purpose and nobody tests.
    The author tells them apart by the reference's own code paths (see ``author.py``).
    """
    return any(_plain_int(v) and i in floors and v < floors[i] for i, v in enumerate(call.args))


def _plain_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _flat(values: Iterable[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if isinstance(v, (list, tuple, set)):
            out += _flat(v)
        elif isinstance(v, dict):
            out += _flat(v.values())
        else:
            out.append(v)
    return out


# ---------------------------------------------------------------------------------------- mutation


# size scaling (EvalPlus grows inputs the same way): numbers deep enough to exhaust a recursion
# and large enough to expose a quadratic loop; the domain keeps them inside stated bounds
_LARGE_INTS = (1000, 3000, 10**6 + 3, 10**9 + 7)


def _mutate_int(n: int) -> list[Any]:
    return [0, 1, -1, n + 1, n - 1, -n, 2 * n, n // 2, n * 10 + 1, n * 100, *_LARGE_INTS, float(n)]


def _mutate_float(x: float) -> list[float]:
    # integer-valued floats, and pairs whose sum or product is not exact in binary
    return [0.0, -x, x + 0.5, x * 2, float(round(x)), x / 3, x + 0.1, x * 3 / 7, float(int(x) + 1)]


def _mutate_str(s: str) -> list[str]:
    out = ["", s[:1], s[:-1], s[1:], s.upper(), s.lower(), s.swapcase(), s.capitalize(), s[::-1],
           s + s, f" {s} ", s + " " + s, s.replace(" ", ""), s.replace(" ", "  "),
           s.replace(" ", "\n"), s.replace(" ", "\t"), s + "\n", s * 20]
    if s:
        out.append(s + s[-1])
        out.append(s[0] + s)
    return out


def _element_edges(items: list, any_type: bool) -> list:
    if any_type:
        return list(_EDGE_ANY)
    if not items:
        return []
    sample = items[0]
    if isinstance(sample, bool):
        return [True, False]
    if isinstance(sample, int):
        return [0, -1, 1, max(items) + 1, min(items)]
    if isinstance(sample, float):
        return [0.0, -1.5, 1.5]
    if isinstance(sample, str):
        return ["", sample.upper(), sample + sample]
    return []


def _mutate_list(items: list, any_type: bool) -> list[list]:
    out: list[list] = [[], items[:1], items[:-1], items[1:], items[::-1], items + items[-1:], items + items,
                       items * 10, items * 50]
    numbers = [x for x in items if isinstance(x, (int, float)) and not isinstance(x, bool)]
    if numbers and len(numbers) == len(items):
        out.append([-x for x in items])  # negatives inside the container
        out.append([float(x) for x in items])  # integer-valued floats, where floats fit
        out.append(list(range(len(items) * 100)))  # a long list of distinct values
    try:
        out.append(sorted(items))
        out.append(sorted(items, reverse=True))
    except TypeError:
        pass
    for edge in _element_edges(items, any_type):
        out.append(items + [edge])
        out.append([edge] + items)
    if items:
        out += [[m] + items[1:] for m in mutate_value(items[0], any_type)[:6]]
        out += [items[:-1] + [m] for m in mutate_value(items[-1], any_type)[:6]]
    return out


def mutate_value(value: Any, any_type: bool = False) -> list[Any]:
    """Neighbours of one value, of the same type (EvalPlus-style type-aware mutation)."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return _mutate_int(value)
    if isinstance(value, float):
        return _mutate_float(value)
    if isinstance(value, str):
        return _mutate_str(value)
    if isinstance(value, list):
        return _mutate_list(value, any_type)
    if isinstance(value, tuple):
        return [tuple(v) for v in _mutate_list(list(value), any_type)]
    if isinstance(value, dict):
        out: list[Any] = [{}]
        keys = list(value)
        if keys:
            out.append({k: value[k] for k in keys[1:]})
            out.append({k: value[k] for k in keys[:1]})
        return out
    return []


def mutations(seed: CallArgs, any_type: set[int] = frozenset()) -> list[CallArgs]:
    """Every call that differs from ``seed`` in one argument, mutated."""
    out: list[CallArgs] = []
    for i, value in enumerate(seed.args):
        for m in mutate_value(value, i in any_type):
            out.append(CallArgs(seed.args[:i] + (m,) + seed.args[i + 1 :], seed.kwargs))
    for j, (k, value) in enumerate(seed.kwargs):
        for m in mutate_value(value):
            out.append(CallArgs(seed.args, seed.kwargs[:j] + ((k, m),) + seed.kwargs[j + 1 :]))
    return out


# ---------------------------------------------------------------------------------------- generation


def _namespace() -> dict[str, Any]:
    ns: dict[str, Any] = {n: getattr(typing, n) for n in ("List", "Dict", "Tuple", "Optional", "Union", "Any",
                                                            "Set", "Sequence", "Iterable", "Mapping")}
    ns.update(list=list, dict=dict, tuple=tuple, set=set, int=int, str=str, float=float, bool=bool)
    return ns


def resolve_annotation(annotation: str) -> Any:
    if not annotation:
        return None
    try:
        return eval(compile(ast.parse(annotation, mode="eval"), "<annotation>", "eval"), {"__builtins__": {}}, _namespace())
    except Exception:  # an annotation naming the task's own classes: no strategy for it
        return None


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
    """``count`` values from ``strategy``, the same ones for the same ``seed``."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

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
    if not params:
        return []
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
) -> list[CallArgs]:
    """Seeds, then their mutations, then generated calls: unique, literal, in P's domain, at most ``budget``.

    What P says about numbers (``positive``) always holds. The range of P's and T0's integers
    holds inside collections; a top-level integer argument may go below it (to 0, 1, -1, -n),
    and ``below_floor`` marks those calls so their divergences can be weighed separately.
    """
    any_type = {i for i, p in enumerate(target.params) if is_any_list(p.annotation)}
    stated = domain
    domain = domain.narrowed_by(seeds)
    names = [p.name for p in target.params]
    arity = (len(target.required), len(target.params))
    out: dict[str, CallArgs] = {}

    def add(call: CallArgs, limit: int = budget) -> None:
        if len(out) >= limit or call.key in out:
            return
        if not (arity[0] <= len(call.args) + len(call.kwargs) <= arity[1]):
            return
        values = [*call.args, *(v for _, v in call.kwargs)]
        if not all(literal_ok(v) for v in values):
            return
        if all(stated.admits(v) if _plain_int(v) else domain.admits(v) for v in call.args) and all(
            domain.admits(v) for _, v in call.kwargs
        ) and stated.admits_call(call, names) and (keep is None or keep(call)):
            out[call.key] = call

    for s in seeds:
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
