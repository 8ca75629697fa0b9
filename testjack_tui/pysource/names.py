"""What an expression is called: ``os.environ.get`` from its ``ast`` chain of attributes.

One reading for the authors, the domain and the detectors, so a call is known by the same name
everywhere. ``dotted_name`` is the whole name when the chain starts at a plain name; asked for
(``rooted=False``), the attributes after whatever it starts at (``Path(p).write_text`` is
``write_text``), which is how a detector still recognises a method called on a fresh object.
``name_of`` is the last name alone, what a call of ``f`` or ``obj.f`` is known by.
"""

from __future__ import annotations

import ast


def dotted_name(node: ast.AST, *, rooted: bool = True) -> str:
    """``a.b.c`` for that chain of attributes; "" when it does not start at a name (``rooted``),
    else the attributes after the start ("" for anything but a name or an attribute)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif rooted:
        return ""
    return ".".join(reversed(parts))


def name_of(node: ast.AST) -> str | None:
    """The last name of ``f`` or ``obj.f``: what a call of it is known by; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None
