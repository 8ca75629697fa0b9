"""A tiny print queue: jobs, priorities and sheet counts."""

from printq.jobs import PrintJob
from printq.queue import JobQueue

__all__ = ["JobQueue", "PrintJob"]
