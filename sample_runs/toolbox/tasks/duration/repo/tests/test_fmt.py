import pytest

from timeparse import format_duration


def test_format_mixed():
    assert format_duration(5400) == "1h 30m"
    assert format_duration(93784) == "1d 2h 3m 4s"


def test_format_zero_and_negative():
    assert format_duration(0) == "0s"
    with pytest.raises(ValueError):
        format_duration(-1)
