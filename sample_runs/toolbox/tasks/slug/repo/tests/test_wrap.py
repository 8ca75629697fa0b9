from textkit import shorten


def test_shorten_keeps_short_text():
    assert shorten("short", 10) == "short"


def test_shorten_cuts_long_text():
    assert shorten("a rather long sentence", 12) == "a rather..."
    assert shorten("abcdef", 2) == ".."
