"""Read and write durations and clock times."""

from timeparse.clock import parse_clock
from timeparse.fmt import format_duration

__all__ = ["format_duration", "parse_clock"]
