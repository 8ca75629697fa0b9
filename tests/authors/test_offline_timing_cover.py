"""A timing witness shows no wrong answer, and a float's rounding of a huge integer is none.

``sum_to_n(n)`` sums 1..n; the reference uses the closed formula. Four trials, audited one by one
(per trial), in id order:

- ``sum-float`` computes the formula through a float: exact up to 2**53, rounded past it;
- ``sum-loop`` adds the numbers one by one: right, but no answer in time for n = 10**9 + 7, so
  its audit leaves a timing witness that every later audit sees;
- ``sum-ok`` is the reference;
- ``sum-recursive`` recurses once per number: a RecursionError from n = 1000 on, a wrong answer
  where the reference answers at once.

The timing witness on the loop's huge input passes on the recursive trial (an exception within
the limit is an answer in time), so it must not stand in for the recursive trial's own witness.
And the float trial's answer past 2**53 is the reference's as far as a float can hold it: no
mutation of T0's small numbers makes that a refutation.
"""

import pytest

from tests.authors.conftest import audit_humaneval
from testjack_tui.model import Verdict

pytestmark = pytest.mark.slow

PROBLEM = {
    "task_id": "Sum/0",
    "entry_point": "sum_to_n",
    "prompt": 'def sum_to_n(n: int) -> int:\n    """The sum of the numbers from 1 to n.\n    >>> sum_to_n(5)\n'
              '    15\n    """\n',
    "canonical_solution": "    return n * (n + 1) // 2\n",
    "test": "def check(candidate):\n    assert candidate(1) == 1\n    assert candidate(6) == 21\n"
            "    assert candidate(11) == 66\n    assert candidate(30) == 465\n    assert candidate(100) == 5050\n",
}

SAMPLES = [
    {"id": "sum-float", "task_id": "Sum/0", "completion": "    return int(n * (n + 1) / 2)\n"},
    {"id": "sum-loop", "task_id": "Sum/0", "completion": "    return sum(range(n + 1))\n"},
    {"id": "sum-ok", "task_id": "Sum/0", "completion": PROBLEM["canonical_solution"]},
    {"id": "sum-recursive", "task_id": "Sum/0",
     "completion": "    if n == 1:\n        return 1\n    return n + sum_to_n(n - 1)\n"},
]


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    return audit_humaneval(tmp_path_factory.mktemp("timing-cover"), [PROBLEM], SAMPLES, "per-trial")


def test_the_slow_trial_leaves_a_timing_witness_and_is_not_refuted(audited):
    store, run_id = audited
    assert store.list_verdicts(run_id)["sum-loop"].verdict != Verdict.REFUTED
    assert [e for e in store.list_evidence(run_id, "sum-loop") if str(e.kind) == "slow"]
    timing = [w for w in store.list_witnesses(run_id, "Sum/0") if "_within(" in w.code]
    assert timing and str(store.witness_results(timing[0].id)["sum-recursive"].outcome) == "pass"


def test_a_recursion_error_is_refuted_despite_the_timing_witness(audited):
    store, run_id = audited
    verdict = store.list_verdicts(run_id)["sum-recursive"]
    assert verdict.verdict == Verdict.REFUTED
    refuting = [store.get_witness(w) for w in verdict.witnesses]
    assert refuting and all("_within(" not in w.code for w in refuting)


def test_a_float_rounding_past_2_53_refutes_nothing(audited):
    store, run_id = audited
    verdicts = store.list_verdicts(run_id)
    assert verdicts["sum-float"].verdict != Verdict.REFUTED
    assert verdicts["sum-ok"].verdict != Verdict.REFUTED
