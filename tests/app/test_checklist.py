"""The checklist built from a task's prompt (testjack_tui.review.checklist), without the console."""

from __future__ import annotations

from testjack_tui import model
from testjack_tui.review.checklist import build_checklist, requirement_sentences, same_clause
from testjack_tui.model import (
    AuthorKind, Classification, Constraint, Origin, Requirement, RequirementKind, Task, Witness,
    WitnessStatus,
)

PROMPT = """# Add `parse_duration()`

We keep parsing durations by hand. Please add `parse_duration(text)` that returns seconds.

Rules:

- A string of digits alone is a number of seconds: `parse_duration("90") == 90`.
- Anything else raises `ValueError`: an empty string or an unknown unit (`"5x"`).
- A `text` longer than 100 characters is never given.

Examples:

```
>>> parse_duration("1h30m")
5400
>>> parse_duration("1d")
86400
```
"""

T0 = """diff --git a/tests/test_parse.py b/tests/test_parse.py
--- /dev/null
+++ b/tests/test_parse.py
@@ -0,0 +1,6 @@
+import timeparse
+def test_combined():
+    assert timeparse.parse_duration("1h30m") == 5400
+def test_invalid():
+    for text in ["5x", "h"]:
+        timeparse.parse_duration(text)
"""


def task() -> Task:
    limit = Constraint(id="c-len", kind="length", text="text has at most 100 characters",
                       source="A `text` longer than 100 characters is never given.", params=["text"])
    return Task(run_id="r", id="duration", title="", prompt=PROMPT, snapshot="", snapshot_digest="",
                reference_patch="", test_patch=T0, tests=model.TestSpec(command="true"), domain=[limit])


def witness(wid: str, requirement: str, call: str, kind=RequirementKind.EXPLICIT, cls=None) -> Witness:
    code = f"import timeparse\n\ndef test_it():\n    assert timeparse.{call}\n"
    return Witness(id=wid, run_id="r", task_id="duration", requirement=requirement, requirement_kind=kind,
                   origin=Origin.TASK_ANALYSIS, author=AuthorKind.OFFLINE, code=code, path="t.py",
                   status=WitnessStatus.VALIDATED, classification=cls or Classification(str(kind)))


def example(rid: str, call: str, result: str, covered: bool) -> Requirement:
    return Requirement("r", "duration", rid, f"P's example: {call} returns {result}", RequirementKind.EXPLICIT,
                       covered, trial_id="t9")


def test_sentences_that_ask_for_something():
    assert requirement_sentences(PROMPT) == [
        "Please add `parse_duration(text)` that returns seconds.",
        "A string of digits alone is a number of seconds: `parse_duration(\"90\") == 90`.",
        "Anything else raises `ValueError`: an empty string or an unknown unit (`\"5x\"`).",
        "A `text` longer than 100 characters is never given.",
    ]


def test_two_examples_are_never_the_same_clause_by_their_words():
    assert not same_clause("P's example: f('!!!') returns ''", "P's example: f(\"Hello, World!\") returns 'hello'")
    assert same_clause("a size below 1 raises ValueError", "A `size` below 1 raises `ValueError`.")


def test_rows_their_witnesses_t0_and_this_trial():
    witnesses = [
        witness("w-90", "P's example: parse_duration('90') returns 90", "parse_duration('90') == 90"),
        witness("w-empty", "parse_duration('') raises ValueError, as the reference does",
                "parse_duration('') is None", RequirementKind.IMPLICIT),
        witness("w-1d", "P's example: parse_duration('1d') returns 86400", "parse_duration('1d') == 86400"),
        witness("w-upper", "parse_duration('1D') returns 86400, as the reference does",
                "parse_duration('1D') == 86400", RequirementKind.IMPLICIT, Classification.AMBIGUOUS),
    ]
    results = {
        "w-90": {"reference": "pass", "t1": "fail", "t2": "pass"},
        "w-empty": {"reference": "pass", "t1": "pass", "t2": "pass"},
        "w-1d": {"reference": "pass", "t1": "pass", "t2": "pass"},
        "w-upper": {"reference": "pass", "t1": "fail", "t2": "fail"},
    }
    reqs = [example("r1", 'parse_duration("1h30m")', "5400", True), example("r2", 'parse_duration("1d")', "86400", False),
            example("r2b", 'parse_duration("1d")', "86400", False)]  # found again on another trial: one row
    rows = build_checklist(task(), reqs, witnesses, results, "t1", ["t1", "t2"], refuting=["w-90"])
    by = {r.text: r for r in rows}
    assert [r.kind for r in rows] == ["stated", "stated", "stated", "input", "example", "example", "not in P"]
    digits = by["A string of digits alone is a number of seconds: `parse_duration(\"90\") == 90`."]
    assert digits.witnesses == ["w-90"]  # the call the sentence quotes
    assert (digits.t0, digits.trial, digits.trial_state) == ("no", "✗ refuted", "fail")
    assert digits.t0_why == "t1 passes T0 but fails a witness of it"
    invalid = by["Anything else raises `ValueError`: an empty string or an unknown unit (`\"5x\"`)."]
    assert invalid.witnesses == ["w-empty"]  # its words: ValueError, an empty string
    assert (invalid.t0, invalid.t0_why, invalid.trial) == ("yes", "T0 passes '5x'", "✓ passes")
    assert by["A `text` longer than 100 characters is never given."].constraints == ["c-len"]
    assert by["P's example: parse_duration(\"1h30m\") returns 5400"].t0 == "yes"
    one_day = by["P's example: parse_duration(\"1d\") returns 86400"]
    assert one_day.witnesses == ["w-1d"] and one_day.t0 == "untested"
    upper = by["parse_duration('1D') returns 86400, as the reference does"]
    assert (upper.t0, upper.trial, upper.trial_state) == ("no", "✗ fails (ambiguous)", "fail-no-refute")
    assert by["Please add `parse_duration(text)` that returns seconds."].t0 == "?"


def test_a_trial_that_gives_a_patient_witness_no_answer_is_slow_not_failing():
    patient = witness("w-big", "parse_duration('9' * 90) returns 9999 whenever it answers within 5 s, as the "
                      "reference does", "parse_duration('9' * 90) == 9999", RequirementKind.IMPLICIT)
    patient.code = patient.code.replace("timeparse.parse_duration('9' * 90)",
                                        "_answer(5, lambda: timeparse.parse_duration('9' * 90))")
    results = {"w-big": {"reference": "pass", "t1": "skip", "t2": "pass"}}
    rows = build_checklist(task(), [], [patient], results, "t1", ["t1", "t2"], refuting=[])
    row = next(r for r in rows if "w-big" in r.witnesses)
    assert (row.trial, row.trial_state) == ("… slow", "slow")
    assert "no answer in time on w-big" in row.trial_detail
    assert row.t0 != "no"  # no answer is no gap in T0: nothing fails
