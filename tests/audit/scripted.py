"""An author that hands in fixed candidate tests: the engine is judged on what it does with them."""

from __future__ import annotations

from testjack_tui.authors.base import AuthorContext, Candidate
from testjack_tui.model import AuthorKind, RequirementKind

EMPTY = Candidate(
    requirement="An empty list gives no chunks at all",
    kind=RequirementKind.EXPLICIT,
    code="from listkit import chunk\n\n\ndef test_empty_list_gives_no_chunks():\n    assert chunk([], 3) == []\n",
)
REMAINDER = Candidate(
    requirement="The last list may be shorter (any length, not only the example)",
    kind=RequirementKind.EXPLICIT,
    code=(
        "from listkit import chunk\n\n\ndef test_short_last_piece():\n"
        "    assert chunk([1, 2, 3, 4, 5, 6, 7], 3) == [[1, 2, 3], [4, 5, 6], [7]]\n"
    ),
)
WRONG = Candidate(
    requirement="(a wrong expectation: the reference disagrees)",
    kind=RequirementKind.EXPLICIT,
    code="from listkit import chunk\n\n\ndef test_wrong():\n    assert chunk([1], 1) == [1]\n",
)
FIXED = Candidate(
    requirement="(the wrong expectation, refined)",
    kind=RequirementKind.EXPLICIT,
    code="from listkit import chunk\n\n\ndef test_wrong():\n    assert chunk([1], 1) == [[1]]\n",
)
# Implicit, and skipped by two of the three passing trials: rho 2/3 > 1/2, ambiguous by A.2's letter;
# without either of the two rho is 1/2, so one trial decides it: needs ruling by default.
IMPLICIT_MOSTLY_SKIPPED = Candidate(
    requirement="Small inputs behave like the examples (implicit)",
    kind=RequirementKind.IMPLICIT,
    code=(
        "from listkit import chunk\n\n\ndef test_small_inputs():\n"
        "    assert chunk([], 3) == []\n    assert chunk([1, 2, 3], 2) == [[1, 2], [3]]\n"
    ),
)


def flaky_candidate(counter_dir: str) -> Candidate:
    """Passes on the reference; on trial chunk-t1 exactly one of its runs fails: the run that
    creates a marker file outside the world first (atomic, so it holds when runs are parallel)."""
    code = f'''import os

MARKER = os.path.join({counter_dir!r}, "first")


def test_fails_once_on_one_trial():
    source = open("listkit/chunk.py").read()
    if "pieces.append" not in source:  # the reference, and every trial but chunk-t1
        return
    try:
        os.close(os.open(MARKER, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return  # a later run passes
    raise AssertionError("the first run on this trial fails")
'''
    return Candidate(requirement="(flaky on one trial)", kind=RequirementKind.EXPLICIT, code=code)


class ScriptedAuthor:
    kind = AuthorKind.ANALYST

    def __init__(self, analysis=(), audits=None, refinements=None):
        self.analysis = list(analysis)
        self.audits = audits or {}  # trial id -> candidates
        self.refinements = refinements or {}  # code -> refined candidate
        self.refine_calls: list[str] = []

    def requirements(self, ctx: AuthorContext):
        return []

    def analyse_task(self, ctx: AuthorContext):
        return list(self.analysis)

    def audit_trial(self, ctx: AuthorContext):
        return list(self.audits.get(ctx.trial.id, []))

    def refine(self, ctx: AuthorContext, candidate: Candidate, output: str):
        self.refine_calls.append(output)
        return self.refinements.get(candidate.code)
