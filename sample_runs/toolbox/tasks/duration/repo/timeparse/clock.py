"""24-hour clock times."""


def parse_clock(text: str) -> int:
    """Minutes after midnight for a time written "HH:MM" (24-hour clock)."""
    hours, colon, minutes = text.partition(":")
    if not colon or not (hours.isdigit() and minutes.isdigit()) or len(minutes) != 2:
        raise ValueError(f"not a clock time: {text!r}")
    h, m = int(hours), int(minutes)
    if h > 23 or m > 59:
        raise ValueError(f"not a clock time: {text!r}")
    return h * 60 + m
