"""Checking one call's arguments against one domain constraint.

A constraint's ``check`` is plain data (it is stored as JSON on the task), read here:

- ``compare``: a chain ``terms[0] ops[0] terms[1] ...``; a term is ``{"num": 3}``,
  ``{"param": "k"}``, ``{"len": "arr"}`` or ``{"each": "arr"}`` (every element of a list);
- ``min_len`` / ``len_eq``: ``{"param", "n"}``; ``same_len``: ``{"params"}``;
- ``charset``: ``{"param", "classes", "chars"}``: every character of the string (or of each
  string in a list) is in one of the classes (``lower``, ``upper``, ``alpha``, ``digit``,
  ``space``) or among ``chars``;
- ``regex``: ``{"param", "pattern"}`` matched in full; ``sorted``: ``{"param"}`` non-decreasing;
- ``shape``: ``{"param", "shapes"}``: the value's type shape is one of those seen (see ``shapes``);
- ``types``: ``{"param", "types"}``: the type names P lists for a parameter (``str``,
  ``os.PathLike``); True for a value of one of them, else unknown (a type name is matched, never
  resolved, so an unknown one rules nothing out); ``admits_path`` says whether a path object is one;
- ``unread``: ``{"envelopes"}``: a sentence of P that constrains inputs in words no reader
  understood; ``holds`` never answers for it (None), ``grounding`` places a call beyond the
  envelopes of the inputs P and T0 show as unplaced (``observed.beyond``).

``holds`` answers True, False, or None when the value is not of a kind the check speaks about
(a ``compare`` on a string): a constraint that does not apply says nothing either way.
"""

from __future__ import annotations

import os
import re
from typing import Any

Bound = dict[str, Any]  # parameter name -> value of one call


def bind(signature: list[str], call: Any) -> Bound:
    """Parameter name -> value for one call (``CallArgs``: positional by order, then keywords)."""
    out = dict(zip(signature, call.args))
    out.update(dict(call.kwargs))
    return out


# the type names that admit a path object (``pathlib``'s classes are ``os.PathLike``)
PATH_TYPES = frozenset({"os.PathLike", "PathLike", "pathlib.PurePath", "PurePath", "pathlib.Path", "Path"})
_PLAIN_TYPES = {"str": str, "bytes": bytes, "int": int, "float": float, "bool": bool, "list": list,
                "tuple": tuple, "dict": dict}


def admits_path(check: dict[str, Any]) -> bool:
    """Whether a ``types`` check names a type a path object (``os.PathLike``) is."""
    return check.get("op") == "types" and bool(PATH_TYPES & set(check.get("types", [])))


def _of_types(check: dict[str, Any], args: Bound) -> bool | None:
    v = args.get(check["param"], _MISSING)
    if v is _MISSING:
        return None
    if isinstance(v, os.PathLike) and admits_path(check):
        return True
    plain = [_PLAIN_TYPES[t] for t in check.get("types", []) if t in _PLAIN_TYPES]
    return True if any(type(v) is t for t in plain) else None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _sized(value: Any) -> bool:
    return isinstance(value, (str, list, tuple, dict, set))


def _term(term: dict[str, Any], args: Bound, element: Any = None) -> Any:
    if "num" in term:
        return term["num"]
    if "param" in term:
        v = args.get(term["param"], _MISSING)
        return v if v is _MISSING or _number(v) else _MISSING
    if "len" in term:
        v = args.get(term["len"], _MISSING)
        return len(v) if v is not _MISSING and _sized(v) else _MISSING
    if "each" in term:
        return element if _number(element) else _MISSING
    return _MISSING


_MISSING = object()
_OPS = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


def _chain(check: dict[str, Any], args: Bound, element: Any = None) -> bool | None:
    values = [_term(t, args, element) for t in check["terms"]]
    if any(v is _MISSING for v in values):
        return None
    return all(_OPS[op](a, b) for op, a, b in zip(check["ops"], values, values[1:]))


def _compare(check: dict[str, Any], args: Bound) -> bool | None:
    each = next((t["each"] for t in check["terms"] if "each" in t), None)
    if each is None:
        return _chain(check, args)
    items = args.get(each, _MISSING)
    if not isinstance(items, (list, tuple)):
        return None
    answers = [_chain(check, args, x) for x in items]
    if any(a is False for a in answers):
        return False
    return True if all(a is True for a in answers) else None


_CLASSES = {
    "lower": str.islower, "upper": str.isupper, "alpha": str.isalpha, "digit": str.isdigit,
    "space": lambda ch: ch == " ",
}


def char_classes(text: str, case: bool = False) -> set[str]:
    """The classes (``alpha``, ``digit``, ``space``) and the other characters a string is made of.

    ``case``: letters count as ``lower`` or ``upper`` instead of ``alpha``.
    """
    out: set[str] = set()
    for ch in text:
        if ch.isalpha() and ch.isascii():
            out.add(("lower" if ch.islower() else "upper") if case else "alpha")
        elif ch.isdigit() and ch.isascii():
            out.add("digit")
        elif ch == " ":
            out.add("space")  # a newline or a tab is a character of its own: P's inputs rarely show one
        else:
            out.add(ch)
    return out


def _strings(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _charset(check: dict[str, Any], args: Bound) -> bool | None:
    texts = _strings(args.get(check["param"], _MISSING))
    if texts is None:
        return None
    allowed = set(check.get("chars", ""))
    tests = [_CLASSES[c] for c in check.get("classes", []) if c in _CLASSES]
    return all(ch in allowed or any(t(ch) for t in tests) for s in texts for ch in s)


def shape(value: Any, depth: int = 0) -> str:
    """A value's type shape: ``int``, ``float``, ``str``, ``bool``, ``None``, ``list[int|str]``...

    Bounded in depth: a value nested deeper than four levels reads ``deep``.
    """
    if depth > 4:
        return "deep"
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float, str)):
        return type(value).__name__
    if isinstance(value, (list, tuple, set)):
        kind = type(value).__name__
        inner = sorted({shape(v, depth + 1) for v in value})
        return f"{kind}[{'|'.join(inner)}]" if inner else f"{kind}[]"
    if isinstance(value, dict):
        keys = sorted({shape(k, depth + 1) for k in value})
        vals = sorted({shape(v, depth + 1) for v in value.values()})
        return f"dict[{'|'.join(keys)}:{'|'.join(vals)}]" if value else "dict[]"
    return type(value).__name__


def shape_fits(value: Any, allowed: dict[str, Any]) -> bool:
    """Whether ``value`` has a shape seen in the seeds (``allowed`` from ``shape_model``).

    An int fits where floats are seen or typed (and an integer-valued float too: ``1.0`` is a
    float); an empty container fits any container of its kind; elements are checked one by one.
    """
    kinds = allowed.get("kinds", [])
    if value is None:
        return "None" in kinds
    if isinstance(value, bool):
        return "bool" in kinds
    if isinstance(value, int):
        return "int" in kinds or "float" in kinds
    if isinstance(value, float):
        return "float" in kinds
    if isinstance(value, str):
        return "str" in kinds
    for kind, typ in (("list", list), ("tuple", tuple), ("set", set)):
        if isinstance(value, typ):
            if kind not in kinds:
                return False
            inner = allowed.get(kind)
            return inner is None or all(shape_fits(v, inner) for v in value)
    if isinstance(value, dict):
        if "dict" not in kinds:
            return False
        inner = allowed.get("dict")
        if inner is None:
            return True
        return all(shape_fits(k, inner["keys"]) and shape_fits(v, inner["values"]) for k, v in value.items())
    return False


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True


_PAIRS = {")": "(", "]": "[", "}": "{", ">": "<"}


def _balanced(text: str) -> bool:
    stack: list[str] = []
    for ch in text:
        if ch in "([{<":
            stack.append(ch)
        elif ch in _PAIRS:
            if not stack or stack.pop() != _PAIRS[ch]:
                return False
    return not stack


def holds(check: dict[str, Any], args: Bound) -> bool | None:
    op = check.get("op")
    if op == "compare":
        return _compare(check, args)
    if op in ("min_len", "len_eq"):
        v = args.get(check["param"], _MISSING)
        if v is _MISSING or not _sized(v):
            return None
        return len(v) >= check["n"] if op == "min_len" else len(v) == check["n"]
    if op == "same_len":
        values = [args.get(p, _MISSING) for p in check["params"]]
        if any(v is _MISSING or not _sized(v) for v in values):
            return None
        return len({len(v) for v in values}) == 1
    if op == "charset":
        return _charset(check, args)
    if op == "regex":
        texts = _strings(args.get(check["param"], _MISSING))
        if texts is None:
            return None
        return all(re.fullmatch(check["pattern"], s) is not None for s in texts)
    if op == "case":
        texts = _strings(args.get(check["param"], _MISSING))
        if texts is None:
            return None
        wrong = str.islower if check["case"] == "upper" else str.isupper
        return not any(wrong(ch) for t in texts for ch in t)
    if op == "trimmed":
        texts = _strings(args.get(check["param"], _MISSING))
        return None if texts is None else all(t == t.strip() for t in texts if t)
    if op == "vocabulary":
        texts = _strings(args.get(check["param"], _MISSING))
        words = set(check.get("words", []))
        return None if texts is None else all(w in words for t in texts if t for w in t.split(" "))
    if op == "sorted":
        v = args.get(check["param"], _MISSING)
        if not isinstance(v, (list, tuple)):
            return None
        try:
            return all(a <= b for a, b in zip(v, v[1:]))
        except TypeError:
            return None
    if op == "prime":
        v = args.get(check["param"], _MISSING)
        if not isinstance(v, int) or isinstance(v, bool) or abs(v) > 10**12:
            return None
        return _is_prime(v) != bool(check.get("negate"))
    if op == "balanced":
        texts = _strings(args.get(check["param"], _MISSING))
        return None if texts is None else all(_balanced(t) for t in texts)
    if op == "shape":
        if check["param"] not in args:
            return None
        return shape_fits(args[check["param"]], check["shapes"])
    if op == "types":
        return _of_types(check, args)
    # ``unread``, a sentence of P no reader understood, never rules a call out (grounding.py makes a
    # call beyond the inputs P and T0 show unplaced instead); nor does an op this reader lacks
    return None
