"""Fit text into a fixed width."""


def shorten(text: str, width: int, placeholder: str = "...") -> str:
    """Cut ``text`` to at most ``width`` characters, ending with ``placeholder`` when cut."""
    if len(text) <= width:
        return text
    if width <= len(placeholder):
        return placeholder[:width]
    return text[: width - len(placeholder)].rstrip() + placeholder
