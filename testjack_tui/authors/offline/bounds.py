"""What P's words and its inputs say about integer arguments: stated bounds and seed floors.

``Domain`` reads the bounds P states in prose ("positive", ``n >= 2``, "at most ten") for the
input planner; ``seed_floors``/``below_floor`` mark *frontier* calls, below every integer P and
T0 pass at a position. (The task-level input domain with sentences and grounding is
``testjack_tui.domain``; this is the planner's narrower, faster view of integers.)
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Iterable

from testjack_tui.pysource.calls import CallArgs

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


FILLED = -1  # a position's "floor" when every seed passes a non-empty string or collection there
MIN_FILLED_SEEDS = 2  # one seed showing a non-empty value says nothing about empties


def seed_floors(seeds: list["CallArgs"]) -> dict[int, int]:
    """Per positional argument, the smallest plain integer P's examples and T0 pass there.

    An argument P or T0 already gives a negative number has no floor: negatives are in play, and
    a larger one (``iscube(-64)`` next to ``iscube(-1)``) is no new kind of input. A position where
    every seed (two or more) passes a non-empty string, list or tuple has the floor ``FILLED``:
    the empty value is below everything they show there.
    """
    floors: dict[int, int] = {}
    sized: dict[int, list[Any]] = {}
    for s in seeds:
        for i, v in enumerate(s.args):
            if _plain_int(v):
                floors[i] = min(v, floors.get(i, v))
            elif isinstance(v, (str, list, tuple)):
                sized.setdefault(i, []).append(v)
    out = {i: v for i, v in floors.items() if v >= 0}
    for i, values in sized.items():
        if i not in floors and len(values) >= MIN_FILLED_SEEDS and len(values) == len(seeds) and all(values):
            out[i] = FILLED
    return out


def below_floor(call: "CallArgs", floors: dict[int, int]) -> bool:
    """Whether ``call`` passes an integer argument smaller than any P or T0 passes there, or an
    empty string or collection where they only ever pass non-empty ones.

    Such *frontier* inputs (``fib(0)`` when P and T0 start at 1, a search for ``''``) may be
    outside what the task is about (``largest_divisor(1)``), or a case the reference handles on
    purpose and nobody tests. The author tells them apart by the reference's own code paths (see
    ``author.py``).
    """
    return frontier_args(call, floors) > 0


def frontier_args(call: "CallArgs", floors: dict[int, int]) -> int:
    """How many of ``call``'s arguments are below what P and T0 pass there (see ``below_floor``)."""
    below = 0
    for i, v in enumerate(call.args):
        floor = floors.get(i)
        if floor is None:
            continue
        if floor == FILLED:
            below += _empty_where_filled(v, floor)
        elif _plain_int(v) and v < floor:
            below += 1
    return below


def empties(call: "CallArgs", floors: dict[int, int]) -> bool:
    """Whether ``call`` passes an empty string or collection where P and T0 only pass filled ones."""
    return any(_empty_where_filled(v, floors.get(i)) for i, v in enumerate(call.args))


def _empty_where_filled(value: Any, floor: int | None) -> bool:
    """An empty string or collection where P and T0 only pass filled ones (``floor`` is FILLED)."""
    return floor == FILLED and isinstance(value, (str, list, tuple)) and not value


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


def empty_input(call: "CallArgs", floors: dict[int, int]) -> bool:
    """Whether ``call`` is an empty input where P and T0 only pass filled ones: every string and
    collection argument empty, at least one of them always filled in P and T0.

    Emptying one of two sequences and keeping the other (a pattern but not its text, one of two
    strings to combine) asks how the two relate there, which P does not say: a correct trial may
    well raise on an empty pattern. An input empty as a whole only asks for an answer.
    """
    sequences = [v for v in call.args if isinstance(v, (str, list, tuple))]
    return empties(call, floors) and all(not v for v in sequences)
