import pytest

from timeparse import parse_clock


def test_parse_clock():
    assert parse_clock("00:00") == 0
    assert parse_clock("09:30") == 570
    assert parse_clock("23:59") == 1439


def test_parse_clock_rejects_bad_times():
    for text in ["24:00", "9:5", "12:60", "noon", "12-30"]:
        with pytest.raises(ValueError):
            parse_clock(text)
