"""Convert identifiers between naming styles."""

import re

# An optional capital followed by lower-case letters or digits ("Server", "id2"), or a run of
# capitals that is not the start of a capitalised word ("HTTP" in "HTTPServer").
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def words(name: str) -> list[str]:
    """Split an identifier written in any common style into lower-case words."""
    return [w.lower() for w in _WORD.findall(name)]


def snake_case(name: str) -> str:
    return "_".join(words(name))


def camel_case(name: str) -> str:
    parts = words(name)
    if not parts:
        return ""
    return parts[0] + "".join(p.capitalize() for p in parts[1:])
