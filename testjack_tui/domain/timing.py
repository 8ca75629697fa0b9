"""Slowness is not wrongness: whether P bounds how long an answer may take.

A trial that gives the reference's answer far more slowly, or none within a probe's limit, is a
``slow`` finding; a witness that states a time limit refutes only where P itself states a bound
(a complexity, "in linear time", a time limit in seconds) or asks in so many words for an
efficient answer ("write a function to efficiently compute"). There a trial that gives no answer
within the witness's limit, where the reference answers at once, fails a stated requirement.
"""

from __future__ import annotations

import re

_TIME_BOUND = re.compile(
    r"\bO\(\s*[\w\s^*+/-]*\)|\b(?:linear|logarithmic|constant|polynomial) time\b"
    r"|\bwithin \d+(?:\.\d+)?\s*(?:ms|milliseconds?|s|seconds?)\b|\btime limit\b"
    r"|\befficiently\b|\bbe efficient\b|\befficient (?:function|algorithm|solution|implementation|code|program)\b",
    re.I)

TIMING_MARK = "_within("  # how the offline author's witnesses state a time limit
PATIENT_MARK = "_answer("  # a result witness that waits only so long for an answer


def states_time_bound(prompt: str) -> bool:
    """Whether P states how fast an answer must come (then a timeout fails a stated requirement)."""
    return _TIME_BOUND.search(prompt) is not None


def is_timing_witness(code: str) -> bool:
    return TIMING_MARK in code


def is_patient_witness(code: str) -> bool:
    """A result witness on an input of the offline author's own: a trial that gives no answer in
    time skips it (slowness), so only a failed assertion counts against the trial, never a skip nor
    a run that ran out of time or broke off (a loop inside a C function holds off the witness's own
    alarm until the run's limit). Such a run is no result either: the trial is not ``sound`` on it
    (``audit.verdicts.gives_no_result``); only the skip is a ``slow`` finding."""
    return PATIENT_MARK in code and TIMING_MARK not in code


def no_answer_in_time(code: str, outcome: str) -> bool:
    """Whether a witness's ``outcome`` on a trial says the trial gave no answer in time: a timing
    witness's failure (it fails for want of time alone), or a patient witness's skip."""
    if is_timing_witness(code):
        return outcome in ("fail", "timeout")
    return is_patient_witness(code) and outcome == "skip"
