"""The input domain read from P, and the rule it backs: no refutation on an input P rules out.

The prompts here are written for these tests in the shapes real benchmark prompts use (a bound
between parameters, "of equal length", a fixed date format, "a list of two strings", "non-empty
... at least one"), never copied from a benchmark.
"""

import json

import pytest

from testjack_tui.store import Store
from testjack_tui.audit.rulings import rule_constraint, undo_ruling
from testjack_tui.audit.verdicts import recompute_task
from testjack_tui.authors.offline.inputs import CallArgs, Domain, strategy_for
from testjack_tui.domain import admits, ground
from testjack_tui.domain.checks import holds
from testjack_tui.domain.observed import vocabulary
from testjack_tui.domain.stated import Param, stated_constraints
from testjack_tui.formats.importing import import_path
from testjack_tui.model import (
    Constraint, Grounding, Official, Origin, AuthorKind, RequirementKind, Verdict, Witness, WitnessResult, WitnessStatus,
)


def _read(text, **params):
    return {(f.kind, f.text) for f in stated_constraints(text, {n: Param(n, set(k)) for n, k in params.items()})}


def test_a_bound_between_parameters_is_read_with_its_chain():
    found = _read("Given an array arr and an integer k, return the k largest. Note: 0 <= k <= len(arr)",
                  arr={"list"}, k={"int"})
    assert ("relation", "0 <= k <= len(arr)") in found


def test_ranges_on_lengths_elements_and_phrases_are_read():
    found = _read("Constraints: 1 <= len(nums) <= 50. -10^3 <= nums[i] <= 10^3. The step is at least 2. "
                  "The length of the array will be in the range of [1, 1000].", nums={"list"}, step={"int"})
    assert ("range", "1 <= len(nums) <= 50") in found
    assert ("range", "-10^3 <= nums[i] <= 10^3") in found
    assert ("range", "1 <= len(nums) <= 1000") in found


def test_positive_binds_to_the_parameter_it_names_and_to_list_elements():
    assert ("range", "n > 0") in _read("Given a positive integer n, return its digits.", n={"int"})
    assert ("range", "each xs[i] >= 0") in _read("You get a list of non-negative integers xs.", xs={"list"})
    # a phrase about the result says nothing about the inputs
    assert not _read("Return only the positive numbers in the list.", xs={"list"})


def test_sizes_equal_length_two_items_and_at_least_one():
    assert ("equal_length", "scores and guesses have equal length") in _read(
        "You are given two lists scores and guesses of equal length.", scores={"list"}, guesses={"list"})
    assert ("length", "len(words) == 2") in _read("You are given a list of two strings words.", words={"list"})
    found = _read("You are given a non-empty list of integers lst. It contains at least one prime.", lst={"list"})
    assert ("non_empty", "lst is non-empty") in found and ("at_least_one", "lst has at least one element") in found


def test_properties_of_integers_and_brackets():
    assert ("predicate", "n is not a prime") in _read("Assume n > 1 and is not a prime.", n={"int"})
    assert not _read("Return true if n is a prime.", n={"int"})  # deciding it is the task
    assert ("balanced", "the brackets in s are balanced") in _read("The groups in s are balanced.", s={"str"})
    # a list is balanced in brackets only where the sentence speaks of brackets: "it's balanced"
    # may say the list reads the same both ways, and no list of numbers holds a bracket
    assert not _read("# it's balanced, but 3+2+3 is more than the maximum weight.", q={"list"}, w={"int"})
    assert ("balanced", "the brackets in lst are balanced") in _read(
        "The strings in lst are made of parentheses and are balanced.", lst={"list"})


def test_the_case_of_letters():
    assert ("charset", "the letters of num are upper case") in _read(
        "Symbols A, B, C in num are always uppercase.", num={"str"})


def test_alphabets_formats_and_order():
    assert ("charset", "bits consists only of '01'") in _read("The string bits consists only of 1s and 0s.", bits={"str"})
    assert ("charset", "s consists only of lower") in _read("s contains only lowercase letters.", s={"str"})
    assert ("format", "when has the format mm-dd-yyyy") in _read("The date when is given in the format mm-dd-yyyy.", when={"str"})
    assert ("sorted", "xs is sorted in ascending order") in _read("You are given a sorted list xs.", xs={"list"})


def _constraint(kind, check, function="f", signature=("a", "b")):
    return Constraint(id=f"c-{kind}", kind=kind, text=kind, source="P", check=dict(check, function=function,
                                                                                   signature=list(signature)))


WITNESS = 'from solution import f\n\ndef test_it():\n    assert f({args}) == 1\n'


@pytest.mark.parametrize("check,inside,outside", [
    ({"op": "compare", "terms": [{"num": 0}, {"param": "b"}, {"len": "a"}], "ops": ["<=", "<="]}, "[1, 2], 2", "[1, 2], 3"),
    ({"op": "same_len", "params": ["a", "b"]}, "[1, 2], [3, 4]", "[1, 2], [3]"),
    ({"op": "len_eq", "param": "a", "n": 2}, "['(', ')'], 0", "['(', ')', '('], 0"),
    ({"op": "min_len", "param": "a", "n": 1}, "[2], 0", "[], 0"),
    ({"op": "regex", "param": "a", "pattern": r"\d{2}-\d{2}-\d{4}"}, "'03-11-2000', 0", "'003-04-12', 0"),
    ({"op": "charset", "param": "a", "classes": [], "chars": "01"}, "'0110', 0", "'0120', 0"),
    ({"op": "sorted", "param": "a"}, "[1, 2, 2], 0", "[2, 1], 0"),
    ({"op": "balanced", "param": "a"}, "'(()) ()', 0", "')(', 0"),
    ({"op": "case", "param": "a", "case": "upper"}, "'AB1', 0", "'Ab', 0"),
    ({"op": "trimmed", "param": "a"}, "'o o|', 0", "' ', 0"),
    ({"op": "charset", "param": "a", "classes": ["space", "alpha"], "chars": ""}, "'a b', 0", "'a\\nb', 0"),
    ({"op": "prime", "param": "b", "negate": True}, "0, 15", "0, 31"),
    ({"op": "vocabulary", "param": "a", "words": ["o", "o|", ".|"]}, "'o .| o|', 0", "'o  o', 0"),
    ({"op": "shape", "param": "a", "shapes": {"kinds": ["list"], "list": {"kinds": ["float"]}}}, "[1.0, 2], 0", "['x'], 0"),
])
def test_each_kind_of_constraint_places_a_witness_inside_or_outside(check, inside, outside):
    domain = [_constraint(check["op"], check)]
    assert ground(WITNESS.format(args=inside), domain)[0] == Grounding.IN_DOMAIN
    grounding, _, breaks = ground(WITNESS.format(args=outside), domain)
    assert grounding == Grounding.OUTSIDE_DOMAIN and breaks == [domain[0].id]
    # a constraint the analyst ruled wrong no longer counts
    assert ground(WITNESS.format(args=outside), domain, {domain[0].id})[0] == Grounding.IN_DOMAIN


def test_a_witness_whose_input_is_built_by_code_cannot_be_placed():
    domain = [_constraint("min_len", {"op": "min_len", "param": "a", "n": 1})]
    code = "from solution import f\n\ndef test_it():\n    xs = list(range(3))\n    assert f(xs, 0) == 1\n"
    assert ground(code, domain)[0] == Grounding.UNPLACED
    assert ground(code, [])[0] == Grounding.IN_DOMAIN  # no domain: nothing rules it out
    # observed constraints alone (types, alphabets) never make a built input unplaceable
    observed = [Constraint(**{**domain[0].__dict__, "stated": False})]
    assert ground(code, observed)[0] == Grounding.IN_DOMAIN


def test_a_closed_vocabulary_is_seen_only_where_words_recur():
    notation = ["o o| .| o", "o| o| .|", ".| .| o o"]
    assert vocabulary(notation) == [".|", "o", "o|"]
    assert holds({"op": "vocabulary", "param": "a", "words": vocabulary(notation)}, {"a": "."}) is False
    # free text, where almost every word is new, has no closed vocabulary
    assert vocabulary(["the quick brown fox", "jumps over the lazy dog", "hello world"]) is None
    # single words say nothing of a notation
    assert vocabulary(["a", "b", "a", "b", "a", "b"]) is None


def test_probe_inputs_outside_the_domain_are_not_used():
    domain = [_constraint("min_len", {"op": "min_len", "param": "a", "n": 1})]
    assert admits(domain, "f", CallArgs(([1], 0)))
    assert not admits(domain, "f", CallArgs(([], 0)))


def test_seed_dicts_without_an_annotation_do_not_recurse_forever():
    assert strategy_for(None, [{"a": "apple"}], Domain()) is None
    assert strategy_for(None, [[{"a": 1}]], Domain()) is None


PROBLEM = {
    "task_id": "Dom/0", "entry_point": "pick",
    "prompt": 'def pick(xs: list, k: int) -> list:\n    """Return the first k items of xs.\n    Note: 0 <= k <= len(xs)\n    >>> pick([1, 2], 1)\n    [1]\n    """\n',
    "canonical_solution": "    return xs[:k]\n",
    "test": "def check(candidate):\n    assert candidate([1, 2, 3], 2) == [1, 2]\n",
}


@pytest.fixture
def task_store(tmp_path):
    (tmp_path / "problems.jsonl").write_text(json.dumps(PROBLEM) + "\n")
    samples = [{"id": f"s{i}", "task_id": "Dom/0", "completion": "    return xs[:k]\n"} for i in range(4)]
    (tmp_path / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    store = Store(tmp_path / "t.db")
    run_id = import_path(store, tmp_path).run_id
    task = store.get_task(run_id, "Dom/0")
    from testjack_tui.domain import build_domain
    from testjack_tui.audit.execution import read_world_file
    store.set_task_domain(run_id, task.id, build_domain(task, lambda w, p: read_world_file(task, w, None, p)))
    for t in store.list_trial_objects(run_id, task.id):
        store.set_trial_official(run_id, t.id, Official.PASSED)
        store.set_trial_recomputed(run_id, t.id, "passed")
        store.mark_step(run_id, "audited:" + t.id)
    return store, run_id


def _witness(store, run_id, args, failing):
    w = Witness(id=f"w-{abs(hash(args)) % 10**8}", run_id=run_id, task_id="Dom/0", requirement=f"pick({args})",
                requirement_kind=RequirementKind.EXPLICIT, origin=Origin.AUDIT, author=AuthorKind.OFFLINE,
                code=f"from solution import pick\n\ndef test_it():\n    assert pick({args}) == []\n", path="t.py",
                status=WitnessStatus.VALIDATED)
    store.put_witness(w)
    for world in ["reference", "null", *[f"s{i}" for i in range(4)]]:
        outcome = "fail" if world in failing else "pass"
        store.put_witness_result(WitnessResult(witness_id=w.id, world=world, outcome=outcome, runs=[outcome]))
    return w


def test_the_task_keeps_its_domain_with_the_sentence_it_came_from(task_store):
    store, run_id = task_store
    domain = store.get_task(run_id, "Dom/0").domain
    relation = [c for c in domain if c.kind == "relation"]
    assert relation and relation[0].text == "0 <= k <= len(xs)" and "0 <= k <= len(xs)" in relation[0].source


def test_a_witness_outside_the_domain_never_refutes_until_the_constraint_is_ruled_wrong(task_store):
    store, run_id = task_store
    task = store.get_task(run_id, "Dom/0")
    w = _witness(store, run_id, "[1], 5", failing={"s1"})  # k > len(xs): P rules it out
    verdicts = recompute_task(store, task)
    assert verdicts["s1"].verdict == Verdict.SOUND
    assert store.get_witness(w.id).grounding == Grounding.OUTSIDE_DOMAIN
    relation = next(c for c in task.domain if c.kind == "relation")
    ruling = rule_constraint(store, run_id, relation.id, "k may exceed len(xs): the README of the benchmark says so")
    assert store.list_verdicts(run_id)["s1"].verdict == Verdict.REFUTED
    undo_ruling(store, ruling.id, run_ref=run_id)
    assert store.list_verdicts(run_id)["s1"].verdict == Verdict.SOUND


def test_a_trial_whose_recomputed_t0_times_out_is_not_reproduced_never_sound(task_store):
    store, run_id = task_store
    store.set_trial_recomputed(run_id, "s2", "timeout", "T0 ran out of time after 60 s")
    verdicts = recompute_task(store, store.get_task(run_id, "Dom/0"))
    assert verdicts["s2"].verdict == Verdict.NOT_REPRODUCED and "timeout" in verdicts["s2"].rule
    assert store.summary(run_id).not_reproduced == 1


def test_with_two_passing_trials_a_witness_both_fail_is_a_prompt_defect_unless_the_run_says_refute(task_store):
    from testjack_tui.audit.verdicts import FEW_TRIALS_STEP

    store, run_id = task_store
    for t in ("s2", "s3"):  # two passing trials left: rho is 0, 1/2 or 1 by construction
        store.set_trial_official(run_id, t, Official.FAILED)
    task = store.get_task(run_id, "Dom/0")
    w = _witness(store, run_id, "[1, 2, 3], 0", failing={"s0", "s1"})
    w.requirement_kind = RequirementKind.IMPLICIT
    store.put_witness(w)
    verdicts = recompute_task(store, task)
    # the default: both fail it, and without either one the other still does: A.2's prompt defect
    assert verdicts["s0"].verdict == verdicts["s1"].verdict == Verdict.SOUND
    assert str(store.get_witness(w.id).classification) == "ambiguous"
    store.mark_step(run_id, FEW_TRIALS_STEP, "refute")  # the opt-in refutes with few trials
    verdicts = recompute_task(store, task)
    assert verdicts["s0"].verdict == verdicts["s1"].verdict == Verdict.REFUTED


def test_with_two_passing_trials_a_witness_one_fails_awaits_a_ruling(task_store):
    store, run_id = task_store
    for t in ("s2", "s3"):
        store.set_trial_official(run_id, t, Official.FAILED)
    task = store.get_task(run_id, "Dom/0")
    w = _witness(store, run_id, "[1, 2, 3], 0", failing={"s0"})
    w.requirement_kind = RequirementKind.IMPLICIT
    store.put_witness(w)
    verdicts = recompute_task(store, task)
    assert verdicts["s0"].verdict == Verdict.UNAUDITED and "awaits a ruling" in verdicts["s0"].rule
    assert verdicts["s1"].verdict == Verdict.SOUND
    assert str(store.get_witness(w.id).classification) == "needs_ruling"


def test_a_list_of_any_admits_every_element_a_bare_list_only_what_the_inputs_show():
    from testjack_tui.pysource.signatures import Param as Signature, Target
    from testjack_tui.domain.build import _observed

    seeds = [CallArgs((["a", 3.5, 5],)), CallArgs(([1, 2, "abc", {}, []],))]
    for annotation, admits_bool in (("List[Any]", True), ("list", False)):
        target = Target(name="f", path="solution.py", params=(Signature("values", annotation),))
        shapes = [f.check for f in _observed("f", target, seeds) if f.kind == "type"]
        answer = holds(shapes[0], {"values": [True, None]}) if shapes else True
        assert answer is admits_bool, annotation


def test_two_parameters_whose_inputs_always_match_in_length_are_paired():
    from testjack_tui.pysource.signatures import Param as Signature, Target
    from testjack_tui.domain.build import _observed

    target = Target(name="f", path="solution.py", params=(Signature("a", "str"), Signature("b", "str")))
    paired = [CallArgs(("0110", "1010")), CallArgs(("1", "0")), CallArgs(("000", "111"))]
    found = [f for f in _observed("f", target, paired) if f.kind == "equal_length"]
    assert [f.text for f in found] == ["a and b have equal length (as their inputs have)"]
    assert holds(found[0].check, {"a": "010", "b": "0000"}) is False
    assert holds(found[0].check, {"a": "01", "b": "10"}) is True
    # one length throughout, or too few inputs, is no pairing; nor is one unequal pair
    for seeds in ([CallArgs(("01", "10")), CallArgs(("11", "00")), CallArgs(("10", "10"))],
                  paired[:2], [*paired, CallArgs(("1", "00"))]):
        assert not [f for f in _observed("f", target, seeds) if f.kind == "equal_length"]


def test_the_types_a_docstring_lists_for_a_parameter_are_read():
    params = {"file": Param("file", {"str"}), "n": Param("n", {"int"})}
    (found,) = stated_constraints("*file* (:class:`str` or :class:`os.PathLike`) is the path to match.", params)
    assert (found.kind, found.check) == ("type", {"op": "types", "param": "file", "types": ["str", "os.PathLike"]})
    assert stated_constraints("n (int): how many to take.", params)[0].check["types"] == ["int"]
    # a phrase rather than a list of types, or a name that is no parameter, is not read as types
    assert stated_constraints("*file* (:class:`~collections.abc.Collection` of :class:`str`) to match.", params) == []
    assert stated_constraints("*path* (str or os.PathLike) is the path.", params) == []
    # a sentence that says more of the input than its types stays unread, so it is not read as types
    assert stated_constraints("file (str or os.PathLike) is a path of at most 10 characters.", params) == []


def test_a_path_object_is_placed_only_where_p_says_the_parameter_takes_one():
    """A ``pathlib`` path built from a literal stands for that path: the observed constraints read its
    text. Without P's ``os.PathLike`` it is built by code, as before (unplaced under a stated constraint)."""
    types = Constraint(**{**_constraint("type", {"op": "types", "param": "a", "types": ["str", "os.PathLike"]}).__dict__})
    shape = Constraint(**{**_constraint("type", {"op": "shape", "param": "a", "shapes": {"kinds": ["str"]}}).__dict__,
                          "id": "c-shape", "stated": False})
    trimmed = _constraint("trimmed", {"op": "trimmed", "param": "a"})
    code = "from pathlib import PurePosixPath\nfrom solution import f\n\ndef test_it():\n    assert f(PurePosixPath({path!r}), 0) == 1\n"
    grounding, meets, _ = ground(code.format(path="a.txt"), [types, shape, trimmed])
    assert grounding == Grounding.IN_DOMAIN and set(meets) == {types.id, shape.id, trimmed.id}
    grounding, _, breaks = ground(code.format(path=" a.txt"), [types, shape, trimmed])
    assert grounding == Grounding.OUTSIDE_DOMAIN and breaks == [trimmed.id]
    assert ground(code.format(path="a.txt"), [shape, trimmed])[0] == Grounding.UNPLACED
    # P's list of types rules nothing out: a built input stays placeable where it is the only stated one
    built = "from solution import f\n\ndef test_it():\n    assert f(make(), 0) == 1\n"
    assert ground(built, [types, shape])[0] == Grounding.IN_DOMAIN
