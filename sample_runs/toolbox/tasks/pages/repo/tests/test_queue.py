import pytest

from printq import JobQueue, PrintJob


def test_priority_then_arrival():
    queue = JobQueue()
    first, second, urgent = PrintJob("a", 1), PrintJob("b", 1), PrintJob("c", 1)
    queue.add(first)
    queue.add(second)
    queue.add(urgent, priority=5)
    assert [queue.next() for _ in range(3)] == [urgent, first, second]


def test_empty_queue():
    with pytest.raises(LookupError):
        JobQueue().next()
