"""Task analysis's choice of amplified inputs: results that look new, and for a predicate one new
input per answer (T0 already shows both, so no result of a predicate looks new)."""

from testjack_tui.authors.offline.amplify import select
from testjack_tui.authors.offline.calls import CallArgs
from testjack_tui.authors.offline.probe import Outcome


def _ok(text: str) -> Outcome:
    return Outcome("ok", text, type(eval(text)).__name__, seconds=0.001)


def test_a_predicate_gets_its_smallest_new_input_for_each_answer():
    seeds = [(CallArgs(([1, 3, -2, 1],)), _ok("True")), (CallArgs(([1, 2, 3],)), _ok("False"))]
    mutated = [(CallArgs(([1, 3, -2],)), _ok("False")), (CallArgs(([1],)), _ok("False")),
               (CallArgs(([3, -2, 1, 1, 0],)), _ok("True")), (CallArgs(([3, -2, 1, 1],)), _ok("True"))]
    assert [(c.args, o.repr) for c, o in select(seeds, mutated, "")] == [
        (([1],), "False"), (([3, -2, 1, 1],), "True")]


def test_other_functions_keep_only_results_of_a_new_shape():
    seeds = [(CallArgs((3,)), _ok("6")), (CallArgs((5,)), _ok("10"))]
    mutated = [(CallArgs((4,)), _ok("8")), (CallArgs((0,)), _ok("0")), (CallArgs((-1,)), _ok("-2"))]
    assert [c.args for c, _ in select(seeds, mutated, "")] == [(0,), (-1,)]
    # a predicate whose answers are not all bools (one seed raises) is not a predicate here
    seeds = [(CallArgs((3,)), _ok("True")), (CallArgs((-3,)), Outcome("raise", None, "ValueError"))]
    assert select(seeds, [(CallArgs((4,)), _ok("True"))], "") == []
