from numerals import ordinal


def test_ordinal_suffixes():
    assert [ordinal(n) for n in (1, 2, 3, 4, 21, 102)] == ["1st", "2nd", "3rd", "4th", "21st", "102nd"]


def test_ordinal_teens():
    assert [ordinal(n) for n in (11, 12, 13, 111)] == ["11th", "12th", "13th", "111th"]
