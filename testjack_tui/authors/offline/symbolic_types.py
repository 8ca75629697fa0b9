"""The types a symbolic search gives a function's parameters, as type expressions it can read.

CrossHair makes symbolic values from a function's annotations. A task's function often has none
(HumanEval's ``def f(l):``), so each parameter's type is read from its annotation when that names
only types CrossHair searches (ints, floats, strings, bools, ``None``, lists, tuples, dicts and
their nesting, ``Optional``), and otherwise from the values P's examples and T0's calls pass
there: an int where one call passes an int and another a float reads as ``float``, an argument
that is sometimes ``None`` as ``Optional``. A parameter neither tells (an object of the task's
own classes, ``Any``, values of mixed kinds) makes the function one the search skips, with the
reason.
"""

from __future__ import annotations

import typing
from typing import Any

from testjack_tui.pysource.annotations import resolve_annotation
from testjack_tui.pysource.calls import CallArgs
from testjack_tui.pysource.signatures import Target

_PLAIN = {bool: "bool", int: "int", float: "float", str: "str", type(None): "None"}
_DEPTH = 4  # nesting deeper than this is not searched


class Unsearchable(Exception):
    """A parameter whose type the search cannot read; the message says which and why."""


def annotation_text(tp: Any, depth: int = 0) -> str | None:
    """A resolved annotation as a type expression (``typing.List[int]``), or None when unsupported."""
    if depth > _DEPTH:
        return None
    if tp in _PLAIN:
        return _PLAIN[tp]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    inner = [annotation_text(a, depth + 1) for a in args]
    if None in inner or (origin is None and tp not in (list, tuple, dict)):
        return None
    if origin is list and len(inner) == 1:
        return f"typing.List[{inner[0]}]"
    if origin is tuple and args and args[-1] is Ellipsis:
        return f"typing.Tuple[{inner[0]}, ...]" if len(args) == 2 else None
    if origin is tuple and inner:
        return f"typing.Tuple[{', '.join(inner)}]"
    if origin is dict and len(inner) == 2:
        return f"typing.Dict[{inner[0]}, {inner[1]}]"
    if origin is typing.Union:
        return f"typing.Union[{', '.join(inner)}]"
    return None  # a bare list or dict says nothing of its items: the values may


def value_text(values: list[Any], depth: int = 0) -> str | None:
    """The type expression every one of ``values`` fits (ints widen to float), or None."""
    if depth > _DEPTH or not values:
        return None
    present = [v for v in values if v is not None]
    if not present:
        return None
    kinds = {type(v) for v in present}
    if kinds <= {int, float} and float in kinds:
        text = "float"
    elif len(kinds) != 1:
        return None
    else:
        text = _one_kind(kinds.pop(), present, depth)
    if text is None:
        return None
    return f"typing.Optional[{text}]" if len(present) < len(values) else text


def _one_kind(kind: type, values: list[Any], depth: int) -> str | None:
    if kind in _PLAIN:
        return _PLAIN[kind]
    if kind is list:
        items = [x for v in values for x in v]
        inner = value_text(items, depth + 1) if items else "int"
        return f"typing.List[{inner}]" if inner else None
    if kind is tuple:
        if len({len(v) for v in values}) != 1 or not values[0]:
            return None
        parts = [value_text([v[i] for v in values], depth + 1) for i in range(len(values[0]))]
        return f"typing.Tuple[{', '.join(parts)}]" if None not in parts else None
    if kind is dict:
        keys = [k for v in values for k in v]
        if not keys:
            return None
        k, v = value_text(keys, depth + 1), value_text([x for d in values for x in d.values()], depth + 1)
        return f"typing.Dict[{k}, {v}]" if k and v else None
    return None


def parameter_types(target: Target, seeds: list[CallArgs]) -> list[str]:
    """One type expression per required parameter of ``target``; ``Unsearchable`` says why not."""
    if target.variadic:
        raise Unsearchable("it takes *args or **kwargs")
    if len(target.required) != len(target.params):
        raise Unsearchable("it has parameters with defaults (which of them a call leaves out is open)")
    out = []
    for i, p in enumerate(target.params):
        text = annotation_text(resolve_annotation(p.annotation)) if p.annotation else None
        if text is None:
            text = value_text([s.args[i] for s in seeds if len(s.args) > i])
        if text is None:
            why = f"annotated {p.annotation!r}" if p.annotation else "unannotated, and no call of P or T0 shows one kind of value"
            raise Unsearchable(f"parameter {p.name} is {why}")
        out.append(text)
    return out
