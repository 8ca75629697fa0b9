"""Slowness is not wrongness, also on the offline author's result witnesses.

``power_of(x, n)`` tells whether x is a power of n; T0 never passes n = 1, which the reference
handles in a branch of its own. Task analysis mutates T0's calls into ones with n = 1, and on
those three trials part ways:

- ``power-ok`` answers as the reference does;
- ``power-one`` says every x is a power of 1: a wrong answer, so the witness fails on it;
- ``power-hang`` multiplies by 1 until it passes x, forever: it gives no answer at all.

Giving no answer is not shown to be a wrong answer: the witness skips there, the trial gets a
``slow`` finding instead of a refutation, and it does not count towards the witness's rho (were
it counted, two trials of three would fail the witness and A.2 would call it ambiguous).
"""


import pytest

from tests.authors.conftest import audit_humaneval
from testjack_tui.model import Verdict, WitnessStatus

PROBLEM = {
    "task_id": "Power/0",
    "entry_point": "power_of",
    "prompt": 'def power_of(x: int, n: int) -> bool:\n    """Whether x is a power of n: n ** k == x for some '
              'integer k >= 0.\n    >>> power_of(8, 2)\n    True\n    """\n',
    "canonical_solution": "    if n == 1:\n        return x == 1\n    p = 1\n    while p < x:\n        p *= n\n    return p == x\n",
    "test": "def check(candidate):\n    assert candidate(8, 2) is True\n    assert candidate(9, 2) is False\n"
            "    assert candidate(1, 5) is True\n    assert candidate(16, 4) is True\n",
}

SAMPLES = [
    {"id": "power-ok", "task_id": "Power/0", "completion": PROBLEM["canonical_solution"]},
    {"id": "power-one", "task_id": "Power/0",
     "completion": "    if n == 1:\n        return True\n    p = 1\n    while p < x:\n        p *= n\n    return p == x\n"},
    {"id": "power-hang", "task_id": "Power/0",
     "completion": "    p = 1\n    while p < x:\n        p *= n\n    return p == x\n"},
]


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    return audit_humaneval(tmp_path_factory.mktemp("patience"), [PROBLEM], SAMPLES, "lightweight")


def _on_one(store, run_id):
    """Validated result witnesses with n = 1, the input P admits and T0 never passes."""
    return [w for w in store.list_witnesses(run_id, "Power/0", status=str(WitnessStatus.VALIDATED))
            if "_within(" not in w.code and w.requirement.startswith("power_of(") and ", 1)" in w.requirement]


def test_a_wrong_answer_on_an_amplified_input_refutes(audited):
    store, run_id = audited
    verdicts = store.list_verdicts(run_id)
    assert verdicts["power-one"].verdict == Verdict.REFUTED
    assert verdicts["power-ok"].verdict != Verdict.REFUTED
    refuting = [w for w in _on_one(store, run_id) if w.id in verdicts["power-one"].witnesses]
    assert refuting and all("whenever it answers within 5 s" in w.requirement for w in refuting)
    assert all(w.rho == pytest.approx(1 / 3) for w in refuting)


def test_a_trial_that_gives_no_answer_there_is_slow_not_refuted(audited):
    store, run_id = audited
    assert store.list_verdicts(run_id)["power-hang"].verdict != Verdict.REFUTED
    skipped = [w for w in _on_one(store, run_id)
               if str(store.witness_results(w.id)["power-hang"].outcome) == "skip"]
    assert skipped, "no result witness skips on the trial that never answers"
    slow = [e for e in store.list_evidence(run_id, "power-hang") if str(e.kind) == "slow"]
    assert any(w.id in e.detail and e.detector == "result witness" for e in slow for w in skipped)
    assert not [e for e in store.list_evidence(run_id, "power-ok") if str(e.kind) == "slow"]
