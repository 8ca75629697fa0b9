"""What the inputs P's examples and T0 pass say about the domain: type shapes and characters.

These constraints are observed, not stated: a parameter P's examples and T0 always pass a list
of integers to is not probed with a list of strings, and a string parameter whose inputs only
ever hold letters and spaces is not probed with ``'#'``. Classes are kept wide on purpose
(letters of either case, any digit): upper case where the inputs show lower case is a case the
task is about; a character of a kind the inputs never show (a newline where they show spaces, a
``'#'``) is not. Strings none of which starts or ends with a space keep that shape too.

Two sequence parameters whose inputs always have the same length, over lengths that vary, are
paired (two bit strings combined position by position, two vectors): a pair of unequal lengths is outside what the inputs
show, and the reference's answer on it is an accident (``zip`` stops at the shorter one), not
something P asks for.

A string parameter whose inputs are words drawn again and again from a few (a notation of notes,
of moves, of number names) has a closed vocabulary: its inputs never show a word outside it, and
the reference's answer on such a word is an accident of its parsing, not something P asks for.
A vocabulary is closed only when its words recur (many more uses than words), so free text, where
nearly every word is new, never has one.

A parameter's *envelope* (``envelope``) is what its inputs span: shapes, magnitudes, lengths, signs,
empties and characters. A task with an unread sentence of P places no call beyond it (``beyond``).
"""

from __future__ import annotations

import typing
from typing import Any

from testjack_tui.domain.checks import char_classes, shape_fits

ANY = None  # a model that admits every value
MIN_STRINGS = 2  # fewer non-empty seed strings than this say nothing about the alphabet
MAX_WORDS = 12  # a closed vocabulary is small ...
MIN_REUSE = 3  # ... and each of its words is used this many times on average


def shape_model(values: list[Any], depth: int = 0) -> dict[str, Any] | None:
    """The union of the values' shapes, as ``checks.shape_fits`` reads it; None: no values."""
    if not values or depth > 4:
        return ANY
    kinds: set[str] = set()
    inner: dict[str, list[Any]] = {}
    keys: list[Any] = []
    vals: list[Any] = []
    for v in values:
        if v is None:
            kinds.add("None")
        elif isinstance(v, bool):
            kinds.add("bool")
        elif isinstance(v, (int, float, str)):
            kinds.add(type(v).__name__)
        elif isinstance(v, (list, tuple, set)):
            kind = type(v).__name__
            kinds.add(kind)
            inner.setdefault(kind, []).extend(v)
        elif isinstance(v, dict):
            kinds.add("dict")
            keys.extend(v.keys())
            vals.extend(v.values())
        else:
            return ANY  # an object P or T0 builds: nothing to say about its shape
    model: dict[str, Any] = {"kinds": sorted(kinds)}
    for kind, elems in inner.items():
        model[kind] = shape_model(elems, depth + 1)
    if "dict" in kinds:
        k, v = shape_model(keys, depth + 1), shape_model(vals, depth + 1)
        model["dict"] = None if k is None or v is None else {"keys": k, "values": v}
    return model


def annotation_model(tp: Any, depth: int = 0) -> dict[str, Any] | None | bool:
    """The shape an annotation allows; None for ``Any`` (or unknown); False when absent."""
    if tp is None:
        return False
    if depth > 4 or tp is typing.Any:
        return ANY
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    for simple in (bool, int, float, str):
        if tp is simple:
            return {"kinds": [simple.__name__]}
    if tp is type(None):
        return {"kinds": ["None"]}
    containers = {list: "list", tuple: "tuple", set: "set"}
    if tp in containers:
        return {"kinds": [containers[tp]], containers[tp]: ANY}
    if origin in containers:
        kind = containers[origin]
        elems = [a for a in args if a is not Ellipsis]
        if not elems:
            return {"kinds": [kind], kind: ANY}
        parts = [annotation_model(a, depth + 1) for a in elems]
        if any(p is ANY or p is False for p in parts):
            return {"kinds": [kind], kind: ANY}
        return {"kinds": [kind], kind: merge(*parts)}
    if tp is dict or origin is dict:
        if len(args) == 2:
            k, v = annotation_model(args[0], depth + 1), annotation_model(args[1], depth + 1)
            if k not in (ANY, False) and v not in (ANY, False):
                return {"kinds": ["dict"], "dict": {"keys": k, "values": v}}
        return {"kinds": ["dict"], "dict": ANY}
    if origin is typing.Union:
        parts = [annotation_model(a, depth + 1) for a in args]
        if any(p is ANY or p is False for p in parts):
            return ANY
        return merge(*parts)
    return ANY


def merge(*models: dict[str, Any] | None) -> dict[str, Any] | None:
    """The union of shape models; ANY when any of them is ANY."""
    if any(m is ANY for m in models):
        return ANY
    kinds = sorted({k for m in models for k in m["kinds"]})
    out: dict[str, Any] = {"kinds": kinds}
    for kind in ("list", "tuple", "set"):
        parts = [m[kind] for m in models if kind in m["kinds"]]
        if parts:
            out[kind] = ANY if any(p is ANY for p in parts) else merge(*parts)
    parts = [m["dict"] for m in models if "dict" in m["kinds"]]
    if parts:
        out["dict"] = ANY if any(p is ANY for p in parts) else {
            "keys": merge(*(p["keys"] for p in parts)), "values": merge(*(p["values"] for p in parts))}
    return out


def alphabet(values: list[Any]) -> set[str] | None:
    """The character classes of the seed strings (and strings in seed lists); None: too few."""
    texts: list[str] = []
    for v in values:
        if isinstance(v, str):
            texts.append(v)
        elif isinstance(v, (list, tuple)):
            texts += [x for x in v if isinstance(x, str)]
    texts = [t for t in texts if t]
    if len(texts) < MIN_STRINGS:
        return None
    out: set[str] = set()
    for t in texts:
        out |= char_classes(t)
    return out


def trimmed(values: list[Any]) -> bool:
    """Whether the seed strings (enough of them, non-blank) never start or end with whitespace."""
    texts = [t for t in _texts(values) if t.strip()]
    return len(texts) >= MIN_STRINGS and all(t == t.strip() for t in texts)


def _texts(values: list[Any]) -> list[str]:
    texts = [v for v in values if isinstance(v, str)]
    texts += [x for v in values if isinstance(v, (list, tuple)) for x in v if isinstance(x, str)]
    return texts


def vocabulary(values: list[Any]) -> list[str] | None:
    """The few space-separated words the seed strings are all made of; None: not a closed set."""
    texts = [t for t in _texts(values) if t.strip()]
    if len(texts) < MIN_STRINGS:
        return None
    # split at each single space: a doubled space is an empty word, in the notation only where
    # an input shows one
    words = [w for t in texts for w in t.split(" ")]
    distinct = set(words)
    if len(distinct) < 2 or len(distinct) > MAX_WORDS or len(words) < MIN_REUSE * len(distinct):
        return None
    if not any(len(t.split(" ")) > 1 for t in texts):
        return None  # no input is a sequence of words: there is no notation to speak of
    return sorted(distinct)


MIN_PAIRS = 3  # fewer seeds than this, or one length throughout, say nothing about a pairing


def equal_lengths(pairs: list[tuple[Any, Any]]) -> bool:
    """Whether two parameters' values (strings, lists or tuples) always have one length between
    them, over at least ``MIN_PAIRS`` seeds of at least two different lengths."""
    sized = [(a, b) for a, b in pairs if isinstance(a, (str, list, tuple)) and isinstance(b, (str, list, tuple))]
    if len(sized) < MIN_PAIRS or len(sized) != len(pairs):
        return False
    return all(len(a) == len(b) for a, b in sized) and len({len(a) for a, _ in sized}) >= 2


def envelope(values: list[Any]) -> dict[str, Any]:
    """What the inputs P and T0 pass to one parameter span (plain data, stored as JSON).

    ``shapes`` (the types and nesting, ``shape_model``), the largest magnitude of any number in
    them and whether a negative or a zero is among those numbers, the longest string and the
    longest sequence (list, tuple, set or dict) at any depth, whether an empty string or an empty
    sequence is among them, and the character classes of every string (``char_classes`` with the
    case of letters told apart). ``seen`` False: no input passes the parameter at all.
    """
    out: dict[str, Any] = {"seen": bool(values), "shapes": shape_model(values) if values else ANY,
                           "max_abs": None, "negative": False, "zero": False, "max_str": None,
                           "max_seq": None, "empty": [], "chars": []}
    chars: set[str] = set()
    empty: set[str] = set()

    def top(key: str, v: float) -> None:
        out[key] = v if out[key] is None else max(out[key], v)

    def walk(v: Any, depth: int) -> None:
        if depth > 4:
            return
        if isinstance(v, bool) or v is None:
            return
        if isinstance(v, (int, float)):
            if v == v and abs(v) != float("inf"):  # nan and infinities: no magnitude to speak of
                top("max_abs", abs(v))
            out["negative"] = out["negative"] or v < 0
            out["zero"] = out["zero"] or v == 0
        elif isinstance(v, str):
            top("max_str", len(v))
            chars.update(char_classes(v, case=True))
            if not v:
                empty.add("str")
        elif isinstance(v, (list, tuple, set, dict)):
            top("max_seq", len(v))
            if not v:
                empty.add("seq")
            for x in (list(v.keys()) + list(v.values()) if isinstance(v, dict) else v):
                walk(x, depth + 1)

    for v in values:
        walk(v, 0)
    out["chars"], out["empty"] = sorted(chars), sorted(empty)
    return out


def beyond(value: Any, env: dict[str, Any]) -> str | None:
    """How ``value`` goes beyond an ``envelope`` (a reason in words), or None when it stays inside.

    Beyond: a parameter no input passes, a type or nesting not seen, a number larger in magnitude
    than any seen (or not finite), a negative where none is seen, a zero where every number seen
    is positive, a string or a sequence longer than any seen, an empty one where none is seen, a
    character of a class (lower, upper, digit, space, or the character itself) no string shows.
    """
    if not env.get("seen"):
        return "no input P or T0 shows passes this parameter"
    shapes = env.get("shapes")
    if shapes is not ANY and not shape_fits(value, shapes):
        return "a type or nesting its inputs never have"
    chars = set(env.get("chars", []))
    empty = set(env.get("empty", []))

    def walk(v: Any, depth: int) -> str | None:
        if depth > 4:
            return "nested deeper than its inputs"
        if isinstance(v, bool) or v is None:
            return None
        if isinstance(v, (int, float)):
            if v != v or abs(v) == float("inf") or env.get("max_abs") is None or abs(v) > env["max_abs"]:
                return f"{v!r} is larger in magnitude than any number its inputs hold"
            if v < 0 and not env.get("negative"):
                return f"{v!r} is negative where its inputs hold no negative number"
            if v == 0 and not env.get("zero") and not env.get("negative"):
                return "a zero where every number its inputs hold is positive"
            return None
        if isinstance(v, str):
            if env.get("max_str") is None or len(v) > env["max_str"]:
                return f"a string of length {len(v)}, longer than any its inputs hold"
            if not v and "str" not in empty:
                return "an empty string where its inputs hold none"
            extra = char_classes(v, case=True) - chars
            return f"characters its inputs never show ({', '.join(sorted(extra))})" if extra else None
        if isinstance(v, (list, tuple, set, dict)):
            if env.get("max_seq") is None or len(v) > env["max_seq"]:
                return f"a sequence of length {len(v)}, longer than any its inputs hold"
            if not v and "seq" not in empty:
                return "an empty sequence where its inputs hold none"
            for x in (list(v.keys()) + list(v.values()) if isinstance(v, dict) else v):
                why = walk(x, depth + 1)
                if why:
                    return why
            return None
        return "a value of a kind its inputs never have"

    return walk(value, 0)
