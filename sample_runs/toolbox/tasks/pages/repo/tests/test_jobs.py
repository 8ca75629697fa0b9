from printq import PrintJob


def test_copies_default_to_one():
    assert PrintJob("report.pdf", pages=3).sheets() == 3


def test_duplex_sheets():
    assert PrintJob("report.pdf", pages=5, copies=2, duplex=True).sheets() == 6
