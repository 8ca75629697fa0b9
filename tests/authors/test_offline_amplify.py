"""Task analysis's choice of amplified inputs: results that look new, for a predicate one new
input per answer (T0 already shows both, so no result of a predicate looks new), mutations
whose answer differs from their seed's (one per input feature they add, and a few spread over
the seeds), and mutations that reach
reference code no T0 input runs."""

from testjack_tui.authors.offline.amplify import ghosts, select, sensitive, spread
from testjack_tui.pysource.calls import CallArgs
from testjack_tui.authors.offline.features import added, features
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


def test_a_mutation_that_changes_the_answer_is_kept_once_per_feature_it_adds():
    seed = CallArgs(("aba",))
    seeds = [(seed, _ok("True"))]
    parent = {}
    mutated = []
    for text, answer in [("ABA", "True"),   # adds upper case, same answer: says nothing
                         ("Aba", "False"),  # adds upper case and the answer changes: kept
                         ("AbA", "False"),  # the same feature again: one is enough
                         ("ab", "False"),   # answer changes, but no feature added
                         ("ab a", "False")]:  # a space
        call = CallArgs((text,))
        parent[call.key] = seed
        mutated.append((call, _ok(answer)))
    picked = sensitive(seeds, mutated, parent, "", taken=set())
    assert [(c.args, sorted(new)) for c, _, new in picked] == [
        (("AbA",), ["0: upper"]), (("ab a",), ["0: space"])]
    # what select already took is not taken twice, and the cap holds
    assert [c.args for c, _, _ in sensitive(seeds, mutated, parent, "", taken={"'AbA'"})] == [
        ("Aba",), ("ab a",)]
    assert len(sensitive(seeds, mutated, parent, "", taken=set(), cap=1)) == 1


def test_features_name_the_argument_and_look_inside_containers():
    assert features(CallArgs(([1, -2, 1], 2.0))) == {
        "0: duplicate", "0: item negative", "1: integer-valued float"}
    assert added(CallArgs(("a\tb", [])), CallArgs(("ab", [3]))) == {"0: whitespace", "1: empty"}
    # a nested or huge input is read to a bounded depth and length, never raising
    deep: list = []
    for _ in range(200):
        deep = [deep]
    assert features(CallArgs((deep,))) == {
        "0: one item", "0: item one item", "0: item item one item", "0: item item item one item"}
    assert features(CallArgs(("x" * 10**6,))) == {"0: lower"}


def test_a_mutation_reaching_code_t0_never_runs_is_kept_smallest_first_once_per_new_path():
    def traced(text: str, *arcs: str) -> Outcome:
        return Outcome("ok", text, type(eval(text)).__name__, seconds=0.001, arcs=frozenset(arcs))

    stated = {"ref.py:0:2", "ref.py:2:3", "ref.py:3:-"}  # the loop T0's inputs take
    mutated = [
        (CallArgs(([1, 2, 3, 4],)), traced("10", "ref.py:0:2", "ref.py:2:3", "ref.py:3:-")),  # nothing new
        (CallArgs(([],)), traced("None", "ref.py:0:1", "ref.py:1:-")),  # the empty case's own branch
        (CallArgs(([7, 7],)), traced("7", "ref.py:0:2", "ref.py:2:4", "ref.py:4:-")),  # a tie branch
        (CallArgs(([1, 7, 7],)), traced("7", "ref.py:0:2", "ref.py:2:4", "ref.py:4:-")),  # same branch again
        (CallArgs(([0],)), Outcome("ok", "0", "int", seconds=0.001)),  # paths unknown: passed over
        (CallArgs(([-1],)), Outcome("raise", None, "ValueError", arcs=frozenset({"ref.py:0:5"}))),  # P names no error
    ]
    assert [c.args for c, _ in ghosts(mutated, stated, "", taken=set())] == [([],), ([7, 7],)]
    # a pick another rule made is not repeated, and the cap holds
    assert [c.args for c, _ in ghosts(mutated, stated, "", taken={"[]"})] == [([7, 7],)]
    assert len(ghosts(mutated, stated, "", taken=set(), cap=1)) == 1


def test_answer_changing_mutations_are_spread_over_the_seeds_smallest_first():
    short, long = CallArgs(([1, 2],)), CallArgs(([5, 6, 7, 8],))
    seeds = [(short, _ok("3")), (long, _ok("26"))]
    parent, mutated = {}, []
    for seed, items, answer in [(short, [1], "1"), (short, [2], "2"), (short, [1, 3], "4"),
                                (short, [2, 1], "3"),  # the seed's own answer: says nothing new
                                (long, [5, 6, 7], "18"), (long, [6, 7, 8], "21")]:
        call = CallArgs((items,))
        parent[call.key] = seed
        mutated.append((call, _ok(answer)))
    # each seed's smallest, then each seed's next: the long seed is not crowded out by the short one
    assert [c.args for c, _ in spread(seeds, mutated, parent, "", taken=set(), cap=3)] == [
        ([1],), ([5, 6, 7],), ([2],)]
    assert [c.args for c, _ in spread(seeds, mutated, parent, "", taken={"[1]"}, cap=2)] == [
        ([2],), ([5, 6, 7],)]

    # the same literal written into the same argument of another seed is taken once
    one, two = CallArgs((16, 2)), CallArgs((9, 3))
    seeds = [(one, _ok("True")), (two, _ok("True"))]
    parent, mutated = {}, []
    for seed, args in [(one, (16, 1)), (two, (9, 1)), (two, (9, 4))]:
        call = CallArgs(args)
        parent[call.key] = seed
        mutated.append((call, _ok("False")))
    assert [c.args for c, _ in spread(seeds, mutated, parent, "", taken=set())] == [(9, 1), (9, 4)]
