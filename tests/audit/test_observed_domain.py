"""An LLM witness outside the domain by observed constraints alone needs a ruling (issue 39, item 6):
it is not set aside silently, a stated constraint still rules its input out, and other authors'
witnesses are placed as before."""

from __future__ import annotations

import pytest

from testjack_tui.audit.verdicts import beyond_observed, undecided_because
from testjack_tui.model import (AuthorKind, Classification, Constraint, Grounding, Origin, RequirementKind, Ruling,
                                Witness)

OBSERVED = Constraint("c-sep", "charset", "sep is made of '_' (as its inputs are)", "P's examples and T0's inputs",
                      ["sep"], stated=False)
STATED = Constraint("c-len", "length", "len(text) <= 80", "text has at most 80 characters", ["text"])
DOMAIN = [OBSERVED, STATED]


def witness(author: AuthorKind, breaks: list[str]) -> Witness:
    return Witness("w1", "r", "slug", "any sep joins the words", RequirementKind.EXPLICIT, Origin.TASK_ANALYSIS,
                   author, "def test_plus():\n    assert slugify('a b', sep='+') == 'a+b'\n", "tests/test_w.py",
                   breaks=breaks)


def place(w: Witness, ruling: Ruling | None = None, rho: float | None = 0.25):
    return beyond_observed(w, ruling, rho, Grounding.OUTSIDE_DOMAIN, w.breaks, DOMAIN, Classification.EXPLICIT)


def test_an_llm_witness_beyond_observed_shapes_needs_a_ruling_that_names_the_constraint():
    w = witness(AuthorKind.LLM, ["c-sep"])
    cls, grounding = place(w)
    assert (cls, grounding) == (Classification.NEEDS_RULING, Grounding.OUTSIDE_DOMAIN)
    w.classification, w.grounding = cls, grounding
    assert undecided_because(w, 4, DOMAIN) == (
        "its input breaks only constraints observed in P's examples, which P does not state: "
        "c-sep (sep is made of '_' (as its inputs are)); rule it necessary if P allows the input, ambiguous if not")


def test_ruling_it_necessary_accepts_its_input_and_ambiguous_sets_it_aside():
    w = witness(AuthorKind.LLM, ["c-sep"])
    necessary = Ruling("r", "witness", "w1", "necessary", "", "P allows any sep", "ana")
    ambiguous = Ruling("r", "witness", "w1", "ambiguous", "", "P means '-' or '_'", "ana")
    assert place(w, necessary)[1] == Grounding.IN_DOMAIN
    assert place(w, ambiguous)[1] == Grounding.OUTSIDE_DOMAIN


@pytest.mark.parametrize("author, breaks", [
    (AuthorKind.LLM, ["c-sep", "c-len"]),  # a stated constraint keeps its force
    (AuthorKind.LLM, ["c-len"]),
    (AuthorKind.OFFLINE, ["c-sep"]),  # the offline author's witnesses are placed as before
    (AuthorKind.ANALYST, ["c-sep"]),
])
def test_stated_constraints_and_other_authors_keep_the_witness_outside(author, breaks):
    assert place(witness(author, breaks)) == (Classification.EXPLICIT, Grounding.OUTSIDE_DOMAIN)


def test_a_witness_that_fails_no_passing_trial_asks_for_no_ruling():
    assert place(witness(AuthorKind.LLM, ["c-sep"]), rho=0.0)[0] == Classification.EXPLICIT
