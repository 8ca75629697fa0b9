"""Flatten nested lists."""


def flatten(items: list) -> list:
    """All non-list elements of ``items``, depth first, in order."""
    out = []
    for item in items:
        if isinstance(item, list):
            out.extend(flatten(item))
        else:
            out.append(item)
    return out
