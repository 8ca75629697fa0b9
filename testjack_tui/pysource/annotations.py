"""A parameter's annotation, as written in the source, read as a Python type.

Only the builtin containers and ``typing``'s generic names are known; an annotation that names
anything else (the task's own classes) reads as ``None``, "no type known".
"""

from __future__ import annotations

import ast
import typing
from typing import Any


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
