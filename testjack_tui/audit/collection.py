"""A candidate witness the task's runner never collected: ``not_collected``, not "fails on the reference".

A file the runner does not look at (a pytest function under Django's unittest runner, a file
outside the folders SymPy's ``bin/test`` walks, a name the repository's pytest configuration does
not match) reports no outcome at all: every reference run says ``missing``. Such a candidate says
nothing about the reference, so it is neither certified nor counted as failing there.
"""

from __future__ import annotations

from testjack_tui.store import Store
from testjack_tui.model import Outcome, Witness


def not_collected(store: Store, w: Witness) -> bool:
    """Every reference run of ``w`` reported nothing for its file."""
    ref = store.witness_results(w.id).get("reference")
    return ref is not None and bool(ref.runs) and all(str(o) == Outcome.MISSING for o in ref.runs)


def not_collected_reason(w: Witness) -> str:
    return (f"not collected: the task's runner ran no test of {w.path} on the reference world "
            f"(after {w.attempts} attempt(s)); write it in the runner's style or place it where the runner looks")
