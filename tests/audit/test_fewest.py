"""Fewest witnesses: of the witnesses that fail the same trials alike, the analyst reads one."""

from testjack_tui.audit.fewest import twins
from testjack_tui.model import AuthorKind, Classification, Origin, RequirementKind, Witness, WitnessStatus


def witness(wid: str, code: str, cls=Classification.AMBIGUOUS, **fields) -> Witness:
    base = dict(run_id="r", task_id="t", requirement=wid, requirement_kind=RequirementKind.IMPLICIT,
                origin=Origin.AUDIT, author=AuthorKind.OFFLINE, code=code, path=f"test_{wid}.py",
                status=WitnessStatus.VALIDATED, classification=cls)
    base.update(fields)
    return Witness(id=wid, **base)


def test_the_simplest_of_witnesses_failing_the_same_trials_is_kept():
    short = witness("w1", "assert f([True]) == []")
    longer = witness("w2", "assert f([1.5, True]) == []")
    other_trials = witness("w3", "assert f('Aba') is False")
    other_class = witness("w4", "assert f([True, 2]) == [2]", cls=Classification.IMPLICIT)
    passing_all = witness("w5", "assert f([]) == []")
    passing_too = witness("w6", "assert f([1]) == [1]")
    results = {
        "w1": {"reference": "pass", "null": "fail", "t1": "fail", "t2": "fail"},
        "w2": {"reference": "pass", "null": "fail", "t1": "fail", "t2": "fail"},
        "w3": {"reference": "pass", "null": "fail", "t1": "fail", "t2": "pass"},
        "w4": {"reference": "pass", "null": "fail", "t1": "fail", "t2": "fail"},
        "w5": {"reference": "pass", "null": "fail", "t1": "pass", "t2": "pass"},
        "w6": {"reference": "pass", "null": "fail", "t1": "pass", "t2": "pass"},
    }
    assert twins([longer, short, other_trials, other_class, passing_all, passing_too], results) == {"w2": "w1"}


def test_flaky_manual_and_harness_witnesses_are_never_set_aside():
    results = {w: {"reference": "pass", "t1": "fail"} for w in ("w1", "w2", "w3", "h1")}
    kept = witness("w1", "assert f(1) == 1")
    flaky = witness("w2", "assert f(2) == 2", flaky=True)
    manual = witness("w3", "assert f(3) == 3", origin=Origin.MANUAL)
    harness = witness("h1", "# T0 with the harness restored", path="")
    assert twins([kept, flaky, manual, harness], results) == {}
