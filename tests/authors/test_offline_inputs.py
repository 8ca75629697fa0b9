"""Probe inputs: seeds from T0, EvalPlus-style mutation, seeded generation, P's domain."""

from testjack_tui.authors.offline.inputs import (
    CallArgs,
    Domain,
    aliases_in_tests,
    calls_in_source,
    mutate_value,
    plan_inputs,
    seed_floors,
    below_floor,
)
from testjack_tui.authors.offline.bounds import empty_input, frontier_args
from testjack_tui.pysource.signatures import Param, Target, access_for, changed_functions

CHUNK = Target("chunk", "listkit/chunk.py", (Param("items", "list[int]"), Param("size", "int")))


def test_calls_in_tests_include_humaneval_candidate_alias():
    source = (
        "def check(candidate):\n    assert candidate([1, 2], 3) == 0\n    assert candidate(x, 1)\n\n"
        "def test_check():\n    check(chunk)\n"
    )
    aliases = aliases_in_tests(source, "chunk")
    assert aliases == ["candidate"]
    assert calls_in_source(source, "chunk", aliases) == [CallArgs(([1, 2], 3))]  # x is not a literal


def test_mutations_grow_shrink_and_take_edges():
    lists = mutate_value([1, 2, 3])
    assert [] in lists and [1] in lists and [1, 2, 3, 3] in lists and [3, 2, 1] in lists
    assert 0 in mutate_value(7) and -7 in mutate_value(7) and 8 in mutate_value(7)
    texts = mutate_value("1h30m")
    assert "" in texts and "1H30M" in texts and " 1h30m " in texts
    assert not any(isinstance(v, bool) for l in lists for v in l)  # an int list gets no bools
    assert [1, 2, 3, None] in mutate_value([1, 2, 3], any_type=True)  # List[Any] does


def test_plan_is_deterministic_and_respects_the_domain():
    seeds = [CallArgs(([1, 2, 3, 4], 2))]
    first = plan_inputs(CHUNK, seeds, Domain(int_min=1), seed=11, budget=60, generate=15)
    again = plan_inputs(CHUNK, seeds, Domain(int_min=1), seed=11, budget=60, generate=15)
    other = plan_inputs(CHUNK, seeds, Domain(int_min=1), seed=12, budget=60, generate=15)
    assert first == again
    assert first != other  # another trial explores other generated values
    assert first[0] == seeds[0] and len(first) <= 60
    assert CallArgs(([1], 2)) in first  # small mutations come first
    assert all(v >= 1 for c in first for a in c.args for v in (a if isinstance(a, list) else [a]))
    assert Domain.from_prompt("Given a positive integer n, return ...").int_min == 1


def test_changed_functions_and_access_like_t0():
    patch = (
        "diff --git a/pkg/mod.py b/pkg/mod.py\nnew file mode 100644\n--- /dev/null\n+++ b/pkg/mod.py\n"
        "@@ -0,0 +1,6 @@\n+def public(a: int, b=2):\n+    return a + b\n+\n+\n+def _helper():\n+    return 1\n"
    )
    source = "def public(a: int, b=2):\n    return a + b\n\n\ndef _helper():\n    return 1\n"
    found = changed_functions(patch, lambda world, path: source if path == "pkg/mod.py" else None, "reference")
    assert list(found) == ["public"]
    target = found["public"]
    assert [p.name for p in target.required] == ["a"] and target.module == "pkg.mod"
    assert access_for(target, ["import pkg\n\ndef test_x():\n    assert pkg.public(1) == 3\n"]).expr == "pkg.public"
    assert access_for(target, []).imports == ("from pkg.mod import public",)


def test_integers_below_the_range_p_and_t0_use_are_marked_frontier():
    positive = [CallArgs((12,)), CallArgs((3,))]
    assert Domain().narrowed_by(positive).int_min == 1  # inside collections: no 0 or negatives
    assert Domain().narrowed_by([CallArgs((0,)), CallArgs((5,))]).int_min == 0
    assert Domain().narrowed_by([CallArgs((-1,)), CallArgs((64,))]).int_min is None  # negatives are in play
    target = Target("f", "m.py", (Param("n", "int"),))
    planned = plan_inputs(target, positive, Domain(), seed=3, budget=40, generate=10)
    floors = seed_floors(positive)
    assert floors == {0: 3}
    frontier = {c.args[0] for c in planned if below_floor(c, floors)}
    assert {0, 1, -3} <= frontier and all(n < 3 for n in frontier)
    assert not below_floor(CallArgs((3,)), floors) and not below_floor(CallArgs((40,)), floors)
    # what P states still holds: "a positive integer" keeps every call at 1 or above
    stated = plan_inputs(target, positive, Domain(int_min=1), seed=3, budget=40, generate=10)
    assert min(c.args[0] for c in stated) >= 1
    # inside a list, the range of P's and T0's integers still holds
    listed = plan_inputs(Target("g", "m.py", (Param("xs", "List[int]"),)), [CallArgs(([4, 9],))], Domain(),
                         seed=3, budget=40, generate=10)
    assert all(v >= 1 for c in listed for v in c.args[0])


def test_limits_p_states_for_a_parameter_keep_probes_inside_the_task():
    domain = Domain.from_prompt(
        'def f(n, base, xs):\n    """Assume n > 1. base numbers are less than 10.\n'
        '    xs is a list of length at least two. The ratio is above 0.5."""\n', ["n", "base", "xs"])
    assert domain.bounds == (("n", 2, None), ("base", None, 9)) and domain.min_length == 2
    names = ["n", "base", "xs"]
    assert domain.admits_call(CallArgs((2, 9, [1, 2])), names)
    assert not domain.admits_call(CallArgs((1, 9, [1, 2])), names)  # n > 1
    assert not domain.admits_call(CallArgs((5, 21, [1, 2])), names)  # base below 10
    assert not domain.admits_call(CallArgs((5, 2, [1])), names)  # at least two elements
    assert Domain.from_prompt("Given 1 <= k <= 100.", ["k"]).bounds == (("k", 1, 100),)
    target = Target("f", "m.py", (Param("n", "int"), Param("base", "int"), Param("xs", "list")))
    planned = plan_inputs(target, [CallArgs((8, 3, [1, 2]))], domain, seed=1, budget=60, generate=20)
    assert planned and all(domain.admits_call(c, names) for c in planned)


def test_inputs_of_one_shape_stand_for_each_other_and_other_shapes_do_not():
    from testjack_tui.authors.offline.task_view import input_shape

    upper = {input_shape(CallArgs((text,))) for text in ("1D", " 1D ", "2H", "30M")}
    assert upper == {"9A"}  # one ambiguous upper-case witness stands for all of these
    assert input_shape(CallArgs(("1h",))) not in upper  # a plain defect in lower case is not a twin
    assert input_shape(CallArgs(([True],))) == input_shape(CallArgs((["", False],)))
    assert input_shape(CallArgs(("Aba",))) == input_shape(CallArgs(("aBA",)))


def test_an_empty_value_where_every_seed_is_filled_is_a_frontier():
    seeds = [CallArgs(("aaa", "a")), CallArgs(("john doe", "john"))]
    floors = seed_floors(seeds)
    assert below_floor(CallArgs(("abc", "")), floors) and below_floor(CallArgs(("", "a")), floors)
    assert not below_floor(CallArgs(("abc", "b")), floors)
    # one seed with an empty value there: empties are in play
    assert not below_floor(CallArgs(("", "a")), seed_floors([*seeds, CallArgs(("", "x"))]))


def test_an_empty_input_is_empty_as_a_whole_not_one_pattern_of_two():
    seeds = [CallArgs(("", "x")), CallArgs(("xyxyx", "x")), CallArgs(("john doe", "john"))]
    floors = seed_floors(seeds)  # the text may be empty, the pattern never is
    assert below_floor(CallArgs(("nx", "")), floors)  # a frontier input all the same
    assert not empty_input(CallArgs(("nx", "")), floors)  # an empty pattern in a text: how they relate
    assert empty_input(CallArgs(("", "")), floors)
    one = seed_floors([CallArgs(([1, 2, 3],)), CallArgs(([4],)), CallArgs(([5, 6],))])
    assert empty_input(CallArgs(([],)), one) and empty_input(CallArgs(([], 3)), seed_floors(
        [CallArgs(([1, 2], 1)), CallArgs(([4], 2)), CallArgs(([5, 6], 3))]))


def test_a_call_can_be_below_the_seeds_in_one_argument_or_in_several():
    floors = seed_floors([CallArgs((8, 3)), CallArgs((9, 3)), CallArgs((16, 2))])
    assert frontier_args(CallArgs((0, 3)), floors) == 1  # the reference's branch for 0 may speak for it
    assert frontier_args(CallArgs((0, -1)), floors) == 2  # no one path speaks for both
    assert frontier_args(CallArgs((8, 5)), floors) == 0
