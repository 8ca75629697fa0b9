"""A.2's classification from rho and the number of passing trials behind it (``model.classify``)."""

from __future__ import annotations

import pytest

from testjack_tui.model import Classification, RequirementKind, classify

I, A, N = Classification.IMPLICIT, Classification.AMBIGUOUS, Classification.NEEDS_RULING


@pytest.mark.parametrize(("failing", "passing", "expected"), [
    (0, 1, I), (1, 1, N),  # one trial per task: rho is 0 or 1 by construction
    (1, 2, N), (2, 2, A),  # a tie of two is no majority; both failing is A.2's prompt defect
    (1, 3, I), (2, 3, N), (3, 3, A),
    (2, 4, N), (3, 4, A),  # rho 1/2 is a tie: one trial decides it
    (2, 5, I), (3, 5, N), (10, 20, N), (9, 20, I), (11, 20, A),
])
def test_an_implicit_witness_refutes_only_where_no_single_trial_decides_the_majority(failing, passing, expected):
    assert classify(RequirementKind.IMPLICIT, failing / passing, passing) == expected


def test_what_p_states_refutes_however_many_trials_fail_it():
    assert classify(RequirementKind.EXPLICIT, 1.0, 1) == Classification.EXPLICIT


@pytest.mark.parametrize(("policy", "failing", "passing", "expected"), [
    ("ambiguous", 1, 1, A), ("ambiguous", 1, 2, I), ("ambiguous", 2, 3, A),  # A.2's letter alone
    ("refute", 1, 1, I), ("refute", 2, 2, I), ("refute", 2, 3, N),  # the opt-in, below three trials only
])
def test_the_other_policies_are_opt_in(policy, failing, passing, expected):
    assert classify(RequirementKind.IMPLICIT, failing / passing, passing, policy) == expected
