"""Size-scaled inputs from task analysis's mutations: which ones time every trial, which one
states a result.

Task analysis has no trial to compare with, so the reference's speed and the size of T0's
mutated inputs alone choose them: timing witnesses on the largest input the reference answers at
once and on the largest one a recursion per unit can reach (``stress_inputs``), and a result
witness on the largest one whose numbers a float still holds exactly (``sized_input``).
"""

from __future__ import annotations

from testjack_tui.pysource.calls import CallArgs
from testjack_tui.authors.offline.probe import CALL_LIMIT_S, LINE_CAP, SLOW_FACTOR, Outcome

# Python's default recursion limit is 1000 frames; a quarter of it leaves room for the test
# runner's own frames and for a trial that recurses twice per step
DEPTH_SAFE = 250


def _bounded(value: object, numbers: float, lengths: float) -> bool:
    """Whether no number in ``value`` exceeds ``numbers`` in size and no length ``lengths``."""
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, (int, float)):
        return abs(value) <= numbers
    if isinstance(value, (str, bytes)):
        return len(value) <= lengths
    if isinstance(value, dict):
        return len(value) <= lengths and all(_bounded(k, numbers, lengths) and _bounded(v, numbers, lengths)
                                             for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return len(value) <= lengths and all(_bounded(v, numbers, lengths) for v in value)
    return True


def within_depth(value: object) -> bool:
    """Whether no number in ``value`` and no length of it exceeds ``DEPTH_SAFE``: an input a trial
    that recurses once per unit can answer without hitting the interpreter's recursion limit."""
    return _bounded(value, DEPTH_SAFE, DEPTH_SAFE)


# floats hold integers exactly up to 2**53: below 2**26 the product of two input numbers still fits
FLOAT_EXACT = 2**26


def larger(seeds: list[CallArgs], calls: list[CallArgs]) -> list[int]:
    """Which of ``calls`` are larger than every seed: the candidates here, whose lines the
    reference's probe counts (``probe.LINE_CAP``)."""
    largest = max((s.size for s in seeds), default=0)
    return [k for k, c in enumerate(calls) if c.size > largest]


def _at_once(r: Outcome) -> bool:
    """The reference answered within 1/SLOW_FACTOR of the call limit and, where its lines were
    counted, within ``LINE_CAP`` lines. The count decides for Python code whatever the machine's
    load (a call near the time line would otherwise be chosen in one run and not in the next); the
    time still rules out work done in C, which executes few lines."""
    return (r.status == "ok" and r.seconds is not None and r.seconds * SLOW_FACTOR <= CALL_LIMIT_S
            and (r.lines is None or r.lines <= LINE_CAP))


def _larger_and_fast(seeds: list[CallArgs], outcomes: list[tuple[CallArgs, Outcome]],
                     taken: set[str]) -> list[tuple[CallArgs, Outcome]]:
    """The mutated calls larger than every seed that the reference answers at once (a literal
    result), largest first. Size, not the reference's measured time, orders them: times of a few
    microseconds are noise."""
    big = set(larger(seeds, [c for c, _ in outcomes]))
    fast = [(c, r) for k, (c, r) in enumerate(outcomes) if k in big and c.key not in taken and _at_once(r)]
    return sorted(fast, key=lambda cr: (cr[0].size, cr[0].key), reverse=True)


def stress_inputs(seeds: list[CallArgs], outcomes: list[tuple[CallArgs, Outcome]],
                  taken: set[str]) -> list[tuple[CallArgs, Outcome]]:
    """The inputs for a task's stress (timing) witnesses: the largest mutated call, larger than
    every seed, that the reference still answers at once, and the largest such call
    ``within_depth``, when that is another one.

    Task analysis has no trial to time against, so size scaling and the reference's speed pick
    the input on which a far slower trial (exponential, or a quadratic loop on a long list) shows;
    every trial of the task then runs it, and each that gives no answer within the limit is ``slow``.
    On the largest input a trial that recurses once per unit stops at once with a RecursionError, which
    is an answer in time (wrong or not is for the value witnesses to say): the second input is
    small enough for it to run, so an exponential recursion shows there as slowness.
    """
    fast = _larger_and_fast(seeds, outcomes, taken)
    if not fast:
        return []
    chosen = fast[:1]
    shallow = next((cr for cr in fast if all(within_depth(v) for v in cr[0].values)), None)
    if shallow is not None and shallow[0].key != chosen[0][0].key:
        chosen.append(shallow)
    return chosen


def sized_input(seeds: list[CallArgs], outcomes: list[tuple[CallArgs, Outcome]],
                taken: set[str]) -> tuple[CallArgs, Outcome] | None:
    """The input for the result witness on a size-scaled input: the largest call larger than every
    seed that the reference answers at once and whose numbers stay below ``FLOAT_EXACT``.

    Deep enough for a recursion per unit to stop (3000 is three times Python's recursion limit),
    long enough for a list to matter; but a trial that computes through floats (``n * (n + 1) / 2``)
    is exact only while its products fit a float's 53 bits, and a prompt that states no magnitude
    does not ask for exactness past that: such a witness would refute work its benchmark accepts.
    """
    return next((cr for cr in _larger_and_fast(seeds, outcomes, taken)
                 if all(_bounded(v, FLOAT_EXACT, float("inf")) for v in cr[0].values)), None)
