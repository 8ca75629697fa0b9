"""A witness judges a function's answers as T0 does (``authors/offline/comparison.py``).

T0 may ask only for a true or false value, for whether there is an answer at all, for the same
items in any order, or for a number within a tolerance. A witness that asks for more (``== None``
where T0 asks for a false value) would hold a trial to what neither P nor T0 requires.
"""

import pytest

from tests.authors.conftest import audit_humaneval
from testjack_tui.authors.offline.comparison import t0_comparison
from testjack_tui.pysource.signatures import Access
from testjack_tui.authors.offline.witnesses import Spec, render
from testjack_tui.model import Verdict, WitnessStatus


def check(*lines: str) -> str:
    return "def check(candidate):\n" + "".join(f"    {line}\n" for line in lines)


@pytest.mark.parametrize(("t0", "kind", "truth"), [
    (check("assert candidate(1) == 2"), "equal", ""),
    (check("assert candidate(3)", "assert not candidate(4)"), "", "truth"),
    (check("assert candidate(1) == [1]", "assert not candidate(0)"), "equal", "truth"),
    (check("assert (candidate('a') is not None) == True"), "", "none"),
    (check("assert candidate('a') is None"), "", "none"),
    (check("assert set(candidate([1, 1])) == {1}"), "set", ""),
    (check("assert sorted(candidate([2, 1])) == [1, 2]"), "unordered", ""),
    (check("assert abs(candidate(1.0) - 2.0) < 1e-3"), "close", ""),
    (check("assert math.isclose(candidate(1), 2.0, rel_tol=1e-3)"), "close", ""),
    (check("assert candidate(1) == pytest.approx(2.0, abs=0.01)"), "close", ""),
    (check("assert list(candidate(3)) == [0, 1, 2]"), "equal", ""),
    (check("r = candidate(3)", "assert r == 3"), "equal", ""),
    (check("assert candidate(1) in (1, 2)"), "unread", ""),
    (check("r = candidate(3)", "assert len(r) == 3"), "unread", ""),
    (check("s = candidate([1, 2])", "assert abs(poly([1, 2], s)) < 1e-4"), "unread", ""),
    (check("assert candidate(1) == 2", "assert candidate(2) in (3, 4)"), "unread", ""),  # the loosest wins
])
def test_t0s_comparison_is_read_from_its_assertions(t0, kind, truth):
    found = t0_comparison([t0], {"candidate"})
    assert (found.kind, found.truth) == (kind, truth)


def test_a_tolerance_is_kept_and_the_loosest_one_wins():
    found = t0_comparison([check("assert abs(candidate(1) - 2) < 1e-6", "assert abs(candidate(2) - 4) <= 0.01")],
                          {"candidate"})
    assert found.kind == "close" and found.abs == 0.01


ACCESS = Access(("from solution import is_odd",), "is_odd")


def spec(expected: str, t0: str) -> Spec:
    return Spec("is_odd", ACCESS, "4", expected, compare=t0_comparison([t0], {"candidate"}))


def test_a_witness_asks_only_for_what_t0_asks_of_that_kind_of_answer():
    truth = check("assert candidate(3)", "assert not candidate(4)")
    assert "assert not is_odd(4)" in render(spec("None", truth))
    assert "assert is_odd(4)  #" in render(spec("True", truth))
    assert "assert is_odd(4) == [4]" in render(spec("[4]", truth))  # truth speaks for truth values only
    assert "assert is_odd(4) is None" in render(spec("None", check("assert candidate(3) is not None")))
    assert "assert set(is_odd(4)) == set([4, 1])" in render(spec("[4, 1]", check("assert set(candidate(1)) == {1}")))
    assert "pytest.approx(0.5, rel=0.0, abs=0.01)" in render(spec("0.5", check("assert abs(candidate(1) - 1) < 0.01")))


def test_a_comparison_t0_makes_in_a_way_not_read_is_a_doubt():
    unread = spec("4", check("assert candidate(1) in (1, 2)"))
    assert "assert is_odd(4) == 4" in render(unread)  # kept strict ...
    assert "does not read" in unread.doubts  # ... and so it needs the analyst's ruling to refute
    assert not spec("4", check("assert candidate(1) == 1")).doubts


PROBLEM = {
    "task_id": "Cmp/0",
    "entry_point": "is_odd",
    "prompt": 'def is_odd(n: int):\n    """Check whether n is odd.\n    """\n',
    # the reference answers a true value or None: T0 asks only for the truth of the answer
    "canonical_solution": "    if n % 2:\n        return True\n",
    "test": check("assert candidate(3)", "assert candidate(7)", "assert not candidate(4)", "assert not candidate(10)"),
}
SAMPLES = [
    {"id": "as-bool", "task_id": "Cmp/0", "completion": "    return n % 2 == 1\n"},
    {"id": "as-reference", "task_id": "Cmp/0", "completion": "    return True if n % 2 else None\n"},
    # right on T0's inputs, a true value for every even number from 12 on
    {"id": "wrong", "task_id": "Cmp/0", "completion": "    return n % 2 == 1 or n > 11\n"},
]


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    return audit_humaneval(tmp_path_factory.mktemp("cmp"), [PROBLEM], SAMPLES, "per-trial")


def test_a_false_answer_where_the_reference_gives_none_is_not_refuted(audited):
    store, run_id = audited
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts == {"as-bool": Verdict.SOUND, "as-reference": Verdict.SOUND, "wrong": Verdict.REFUTED}
    witnesses = store.list_witnesses(run_id, "Cmp/0", status=str(WitnessStatus.VALIDATED))
    assert witnesses and all("== None" not in w.code and "== False" not in w.code for w in witnesses)


def test_a_witness_from_another_author_stricter_than_t0_needs_ruling(tmp_path):
    import json

    from testjack_tui.store import Store
    from testjack_tui.audit import Audit
    from testjack_tui.audit.engine import AuditOptions
    from testjack_tui.authors.base import Candidate
    from testjack_tui.formats.importing import import_path
    from testjack_tui.model import Classification, RequirementKind
    from tests.audit.scripted import ScriptedAuthor

    (tmp_path / "problems.jsonl").write_text(json.dumps(PROBLEM) + "\n")
    (tmp_path / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    store = Store(tmp_path / "t.db")
    run_id = import_path(store, tmp_path).run_id
    # a model's witness pins the reference's None where T0 asks only for a false value
    pinned = Candidate("is_odd(8) gives None, as the reference does", RequirementKind.EXPLICIT,
                       "from solution import is_odd\n\n\ndef test_eight():\n    assert is_odd(8) == None\n")
    options = AuditOptions(mode="task-analysis", workers=2, evidence=False)
    assert Audit(store, run_id, options, author=ScriptedAuthor(analysis=[pinned])).execute() == "done"
    (w,) = store.list_witnesses(run_id, status=str(WitnessStatus.VALIDATED))
    assert "more strictly" in w.doubt and w.classification == Classification.NEEDS_RULING
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts["as-bool"] == Verdict.UNAUDITED  # awaits a ruling, never refuted on it
