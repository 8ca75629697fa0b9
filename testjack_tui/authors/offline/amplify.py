"""Test amplification: T0's own calls with their literals mutated, expectations from the reference.

Task analysis has no trial to compare with, so the reference alone decides the expectation: the
mutated calls are run in the reference world (one probe), and a few are kept per function, the
ones whose results look least like what T0 already checks (a new exception, an empty result, a
different size or sign), smallest first. A predicate, whose both answers T0 already shows, gets
its smallest new input for each answer instead. Then a few more: mutations whose answer differs
from their seed's (``sensitive``, one per input feature added; ``spread``, seed by seed), and
mutations that reach reference code T0 never runs (``ghosts``). The engine then certifies each on
the reference as usual.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from testjack_tui.pysource.calls import CallArgs
from testjack_tui.authors.offline.features import added
from testjack_tui.authors.offline.probe import Outcome, diverges

CAP_PER_FUNCTION = 3
SENSITIVE_CAP = 6  # per function, mutations kept for the feature they add (see ``sensitive``)
SPREAD_CAP = 6  # per function, mutations kept for changing their seed's answer (see ``spread``)
GHOST_CAP = 3  # per function, mutations kept for reaching code T0 never runs (see ``ghosts``)


@dataclass(frozen=True)
class Pick:
    """One amplified input task analysis keeps, and the rule that kept it."""

    call: CallArgs
    outcome: Outcome
    rule: str  # select | sensitive | spread | ghost
    adds: frozenset[str] = frozenset()  # sensitive: the input features the mutation added


def picks(
    seeds: list[tuple[CallArgs, Outcome]],
    mutated: list[tuple[CallArgs, Outcome]],
    parent: dict[str, CallArgs],
    prompt: str,
    stated_paths: set[str],
    cap: int = CAP_PER_FUNCTION,
) -> list[Pick]:
    """Every input one function keeps, rule by rule, none twice: ``select`` (up to ``cap``), then
    ``sensitive``, ``spread`` and ``ghosts``, each passing over what the ones before it took."""
    out = [Pick(c, o, "select") for c, o in select(seeds, mutated, prompt, cap=cap)]
    taken = {p.call.key for p in out}
    for call, res, new in sensitive(seeds, mutated, parent, prompt, taken):
        out.append(Pick(call, res, "sensitive", new))
        taken.add(call.key)
    for call, res in spread(seeds, mutated, parent, prompt, taken):
        out.append(Pick(call, res, "spread"))
        taken.add(call.key)
    out += [Pick(call, res, "ghost") for call, res in ghosts(mutated, stated_paths, prompt, taken)]
    return out


def signature(outcome: Outcome) -> tuple:
    """A coarse shape of a result: which exception, or the type with its size or sign."""
    if outcome.raised:
        return ("raise", outcome.type_name)
    ok, value = outcome.value()
    if not ok:
        return ("ok", outcome.type_name)
    if isinstance(value, bool):
        return ("ok", "bool", value)
    if isinstance(value, (int, float)):
        return ("ok", type(value).__name__, (value > 0) - (value < 0))
    if isinstance(value, (str, list, tuple, dict, set)):
        return ("ok", type(value).__name__, min(len(value), 4))
    return ("ok", type(value).__name__)


def usable(outcome: Outcome, prompt: str) -> bool:
    """An expectation a witness can state: a literal result, or an exception P names."""
    if outcome.raised:
        return bool(outcome.type_name) and outcome.type_name in prompt
    return outcome.returned and outcome.value()[0]


def select(
    seeds: list[tuple[CallArgs, Outcome]],
    mutated: list[tuple[CallArgs, Outcome]],
    prompt: str,
    cap: int = CAP_PER_FUNCTION,
) -> list[tuple[CallArgs, Outcome]]:
    """Up to ``cap`` mutated calls, each giving a result shape T0's calls never give (smallest first)."""
    seen = {signature(o) for _, o in seeds if o.status in ("ok", "raise")}
    candidates = sorted(
        [(c, o) for c, o in mutated if usable(o, prompt)], key=lambda co: (co[0].size, co[0].key)
    )
    chosen: list[tuple[CallArgs, Outcome]] = []
    for call, out in candidates:
        sig = signature(out)
        if len(chosen) < cap and sig not in seen:
            seen.add(sig)
            chosen.append((call, out))
    if not chosen and _all_bool(seeds):
        # a predicate: T0 shows both answers already, so no result looks new and the rule above
        # keeps nothing; one new input per answer, smallest first, still checks the decision
        for answer in ("False", "True"):
            pick = next(((c, o) for c, o in candidates if o.returned and o.repr == answer), None)
            if pick is not None and len(chosen) < cap:
                chosen.append(pick)
    return chosen


def sensitive(
    seeds: list[tuple[CallArgs, Outcome]],
    mutated: list[tuple[CallArgs, Outcome]],
    parent: dict[str, CallArgs],
    prompt: str,
    taken: set[str],
    cap: int = SENSITIVE_CAP,
) -> list[tuple[CallArgs, Outcome, frozenset[str]]]:
    """Up to ``cap`` mutated calls on which the reference answers otherwise than on the seed they
    were mutated from, one for each set of input features the mutation added (smallest first).

    The reference's answer then depends on that feature (an upper-case letter in a palindrome, a
    duplicate in a list, whitespace in a word): a trial that ignores it answers as for the seed.
    ``select`` keeps results that look new; this keeps inputs whose difference matters, which
    a predicate (two possible answers) needs most.
    """
    kept: set[frozenset[str]] = set()
    chosen: list[tuple[CallArgs, Outcome, frozenset[str]]] = []
    for call, out, seed in _changing(seeds, mutated, parent, prompt, taken):
        if len(chosen) >= cap:
            break
        new = added(call, seed)
        if new and new not in kept:
            kept.add(new)
            chosen.append((call, out, new))
    return chosen


def _changing(
    seeds: list[tuple[CallArgs, Outcome]],
    mutated: list[tuple[CallArgs, Outcome]],
    parent: dict[str, CallArgs],
    prompt: str,
    taken: set[str],
) -> Iterator[tuple[CallArgs, Outcome, CallArgs]]:
    """The mutated calls not yet taken on which the reference answers, usably, otherwise than on
    the seed each was mutated from, smallest first, each with that seed."""
    answers = {c.key: o for c, o in seeds}
    for call, out in sorted(mutated, key=lambda co: (co[0].size, co[0].key)):
        seed = parent.get(call.key)
        before = answers.get(seed.key) if seed is not None else None
        if (call.key in taken or before is None or before.status not in ("ok", "raise")
                or not usable(out, prompt) or diverges(before, out) is not True):
            continue
        yield call, out, seed


def spread(
    seeds: list[tuple[CallArgs, Outcome]],
    mutated: list[tuple[CallArgs, Outcome]],
    parent: dict[str, CallArgs],
    prompt: str,
    taken: set[str],
    cap: int = SPREAD_CAP,
) -> list[tuple[CallArgs, Outcome]]:
    """Up to ``cap`` mutated calls on which the reference answers otherwise than on the seed they
    were mutated from, taken in turn from each seed: every seed's smallest such mutation, then
    every seed's next one.

    ``sensitive`` keeps an answer-changing mutation only when it adds an input feature; most do
    not (a number moved by one, an item dropped), and the smallest of them all tend to come from
    one short seed. Taking them seed by seed spreads the witnesses over the cases T0 states.
    """
    queues: dict[str, list[tuple[CallArgs, Outcome, CallArgs]]] = {}
    for call, out, seed in _changing(seeds, mutated, parent, prompt, taken):
        queues.setdefault(seed.key, []).append((call, out, seed))
    chosen: list[tuple[CallArgs, Outcome]] = []
    # the same literal written into the same argument of another seed (n -> 1 in every seed)
    # mostly fails the same trials again: once is enough
    written: set[tuple] = set()
    turn = 0
    while len(chosen) < cap and any(len(q) > turn for q in queues.values()):
        for queue in queues.values():
            if len(queue) > turn and len(chosen) < cap:
                call, out, seed = queue[turn]
                change = _written(call, seed)
                if change not in written:
                    written.add(change)
                    chosen.append((call, out))
        turn += 1
    return chosen


def _written(call: CallArgs, seed: CallArgs) -> tuple:
    """What a mutation wrote: each argument it changed, by position, with its new value."""
    mine, theirs = call.values, seed.values
    return tuple((i, repr(v)) for i, v in enumerate(mine) if i >= len(theirs) or repr(v) != repr(theirs[i]))


def ghosts(
    mutated: list[tuple[CallArgs, Outcome]],
    stated_paths: set[str],
    prompt: str,
    taken: set[str],
    cap: int = GHOST_CAP,
) -> list[tuple[CallArgs, Outcome]]:
    """Up to ``cap`` mutated calls on which the reference runs code that none of T0's calls run
    (a ghost branch: an arc of its code paths no T0 input takes), smallest first, each reaching
    an arc the ones before it did not.

    The reference's author wrote that code for a case T0 never checks, which is where a trial that
    passes T0 is free to do otherwise. Calls whose paths are unknown (not traced, or too long to
    trace) are passed over.
    """
    covered = set(stated_paths)
    chosen: list[tuple[CallArgs, Outcome]] = []
    for call, out in sorted(mutated, key=lambda co: (co[0].size, co[0].key)):
        if len(chosen) >= cap:
            break
        if call.key in taken or out.arcs is None or not usable(out, prompt):
            continue
        if out.arcs - covered:
            covered |= out.arcs
            chosen.append((call, out))
    return chosen


def _all_bool(seeds: list[tuple[CallArgs, Outcome]]) -> bool:
    answers = [o for _, o in seeds if o.status in ("ok", "raise")]
    return bool(answers) and all(o.returned and o.repr in ("True", "False") for o in answers)
