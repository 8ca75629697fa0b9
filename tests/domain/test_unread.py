"""Unread sentences: a sentence of P that constrains the inputs in words no reader understands.

TestJack cannot refute on an input such a sentence may rule out: a witness whose call goes beyond
what P's examples and T0 pass is unplaced and refutes nothing; one inside stays placed. The
prompts are written for these tests (a length offset by one, values bounded by another parameter,
a fixed-width code), never copied from a benchmark.
"""

import json
from html import escape

import pytest

from testjack_tui.store import Store
from testjack_tui.audit.execution import read_world_file
from testjack_tui.audit.rulings import rule_constraint
from testjack_tui.audit.verdicts import recompute_task
from testjack_tui.pysource.calls import CallArgs
from testjack_tui.domain import admits, build_domain, ground
from testjack_tui.domain.checks import holds
from testjack_tui.domain.observed import beyond, envelope
from testjack_tui.domain.stated import Param, constrains_inputs, unread_sentences
from testjack_tui.formats.importing import import_path
from testjack_tui.model import (
    AuthorKind, Grounding, Official, Origin, RequirementKind, Verdict, Witness, WitnessResult, WitnessStatus,
)
from testjack_tui.report.build import build_report
from testjack_tui.report.render import render_html, render_markdown

OFFSET = "The size of right is the size of left minus one."
BOUNDED = "Every whole number in [1, n*n] shows up once across left and right."
WIDTH = "The label follows the pattern AA-0000: two capital letters, a hyphen and four digits."

UNREAD_PROBLEM = {
    "task_id": "Un/0", "entry_point": "mend",
    "prompt": ("def mend(left: list, right: list, n: int, label: str) -> int:\n"
               f'    """Score a split grid and its label.\n    {OFFSET}\n    {BOUNDED}\n    {WIDTH}\n'
               "    >>> mend([1, 4, 3], [2, 5], 2, 'QX-0412')\n    15\n    \"\"\"\n"),
    "canonical_solution": "    return sum(left) + sum(right)\n",
    "test": "def check(candidate):\n    assert candidate([2, 1], [3], 2, 'AB-9931') == 6\n",
}

READ_PROBLEM = {
    "task_id": "Rd/0", "entry_point": "pick",
    "prompt": ('def pick(xs: list, k: int) -> list:\n    """Return the first k items of xs, sorted in ascending order.\n'
               "    You are given a non-empty list xs.\n    Note: 0 <= k <= len(xs)\n"
               '    >>> pick([2, 1], 1)\n    [2]\n    """\n'),
    "canonical_solution": "    return sorted(xs[:k])\n",
    "test": "def check(candidate):\n    assert candidate([3, 1, 2], 2) == [1, 3]\n",
}


def _store(tmp_path, problem, completion):
    (tmp_path / "problems.jsonl").write_text(json.dumps(problem) + "\n")
    samples = [{"id": f"s{i}", "task_id": problem["task_id"], "completion": completion} for i in range(4)]
    (tmp_path / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    store = Store(tmp_path / "t.db")
    run_id = import_path(store, tmp_path).run_id
    task = store.get_task(run_id, problem["task_id"])
    store.set_task_domain(run_id, task.id, build_domain(task, lambda w, p: read_world_file(task, w, None, p)))
    for t in store.list_trial_objects(run_id, task.id):
        store.set_trial_official(run_id, t.id, Official.PASSED)
        store.set_trial_recomputed(run_id, t.id, "passed")
        store.mark_step(run_id, "audited:" + t.id)
    return store, run_id, store.get_task(run_id, task.id)


@pytest.fixture
def unread_store(tmp_path):
    return _store(tmp_path, UNREAD_PROBLEM, UNREAD_PROBLEM["canonical_solution"])


def _witness(store, run_id, task_id, function, args, failing):
    w = Witness(id=f"w-{abs(hash(args)) % 10**8}", run_id=run_id, task_id=task_id, requirement=f"{function}({args})",
                requirement_kind=RequirementKind.EXPLICIT, origin=Origin.AUDIT, author=AuthorKind.OFFLINE,
                code=f"from solution import {function}\n\ndef test_it():\n    assert {function}({args}) == 0\n",
                path="t.py", status=WitnessStatus.VALIDATED)
    store.put_witness(w)
    for world in ["reference", "null", *[f"s{i}" for i in range(4)]]:
        outcome = "fail" if world in failing else "pass"
        store.put_witness_result(WitnessResult(witness_id=w.id, world=world, outcome=outcome, runs=[outcome]))
    return w


def test_the_three_held_out_kinds_of_phrasing_are_unread(unread_store):
    _, _, task = unread_store
    unread = [c for c in task.domain if c.kind == "unread"]
    assert sorted(c.text for c in unread) == sorted([OFFSET, BOUNDED, WIDTH])
    for c in unread:
        assert c.source == c.text and c.stated and c.check["kind"] == "unread" and c.check["function"] == "mend"
        # it rules no call out by itself: never False, whatever the call
        assert holds(c.check, {"left": [], "right": [1, 2, 3], "n": -5, "label": "?"}) is None
    # no reader took anything from those sentences
    assert not [c for c in task.domain if c.kind != "unread" and c.source in (OFFSET, BOUNDED, WIDTH)]


def test_every_constraining_sentence_read_leaves_nothing_unread(tmp_path):
    _, _, task = _store(tmp_path, READ_PROBLEM, READ_PROBLEM["canonical_solution"])
    kinds = {c.kind for c in task.domain}
    assert {"relation", "non_empty"} <= kinds and "unread" not in kinds


@pytest.mark.parametrize("sentence,constrains", [
    (OFFSET, True), (BOUNDED, True), (WIDTH, True),
    ("You may assume the input is well formed.", True),
    ("It is guaranteed that left holds no duplicates.", True),
    # about the result, or the task's own computation: not a constraint on the inputs
    ("Return the numbers of left sorted in ascending order.", False),
    ("Write a function to count the numbers in left that are less than n.", False),
    ("Check whether every number in left is positive.", False),
    # about neither a parameter nor an input
    ("This is harder than it looks.", False),
    # what the function does on an input puts that input in the domain
    ("An empty left gives 0, and an n below 1 raises ValueError.", False),
    ("A zero in left counts, but only when it comes before n.", False),
    ("left holds only whole numbers.", True),
])
def test_which_sentences_constrain_the_inputs(sentence, constrains):
    params = {"left": Param("left", {"list"}), "n": Param("n", {"int"})}
    assert constrains_inputs(sentence, params) is constrains


def test_a_prompt_that_says_what_invalid_inputs_raise_has_no_unread_format():
    params = {"text": Param("text", {"str"})}
    plain = "Numbers in text use the digits 0-9 only.\nReturn the pages text names."
    assert unread_sentences(plain, params, set()) == ["Numbers in text use the digits 0-9 only."]
    assert unread_sentences(plain + "\nAnything else raises ValueError.", params, set()) == []
    # a precondition's own words still count
    assert unread_sentences("You may assume text is never blank.\nAnything else raises ValueError.", params, set())


@pytest.mark.parametrize("value", [
    [1, 2, 3, 4],        # longer than any seen
    [1, 40],             # larger in magnitude
    [-1, 2],             # negative where none is seen
    [0, 2],              # a zero where every number seen is positive
    [],                  # empty where none is seen
    [[1], 2],            # a nesting not seen
    ["a", 2],            # a type not seen
])
def test_a_value_beyond_the_envelope_of_a_list_parameter(value):
    env = envelope([[1, 4, 3], [2, 1], [7]])
    assert beyond([3, 1, 4], env) is None and beyond([7], env) is None
    assert beyond(value, env)


@pytest.mark.parametrize("value", ["QX-04123", "qx-0412", "QX_0412", "", "QX 0412"])
def test_a_string_beyond_the_envelope_of_a_string_parameter(value):
    env = envelope(["QX-0412", "AB-9931"])
    assert beyond("ZZ-1111", env) is None and beyond("A-1", env) is None
    assert beyond(value, env)


def test_a_parameter_no_input_passes_is_beyond_and_so_is_any_value_when_nothing_is_seen():
    assert beyond(3, envelope([]))
    assert beyond(3, {})


def test_a_witness_beyond_the_examples_is_unplaced_and_refutes_nothing(unread_store):
    store, run_id, task = unread_store
    longer = _witness(store, run_id, task.id, "mend", "[1, 2, 3, 4], [5, 6, 7], 2, 'AB-1234'", failing={"s1"})
    verdicts = recompute_task(store, task)
    assert store.get_witness(longer.id).grounding == Grounding.UNPLACED
    assert verdicts["s1"].verdict == Verdict.SOUND
    # an analyst who rules every unread sentence wrong (they constrain nothing) lets it refute
    for c in task.domain:
        if c.kind == "unread":
            rule_constraint(store, run_id, c.id, "the sentence does not constrain the lengths")
    assert store.get_witness(longer.id).grounding == Grounding.IN_DOMAIN
    assert store.list_verdicts(run_id)["s1"].verdict == Verdict.REFUTED


def test_a_witness_inside_the_examples_keeps_its_grounding_and_refutes(unread_store):
    store, run_id, task = unread_store
    inside = _witness(store, run_id, task.id, "mend", "[3, 1], [2], 2, 'QB-1294'", failing={"s2"})
    verdicts = recompute_task(store, task)
    assert store.get_witness(inside.id).grounding == Grounding.IN_DOMAIN
    assert verdicts["s2"].verdict == Verdict.REFUTED
    # the same call with one more element goes beyond them
    assert ground(inside.code.replace("[2]", "[2, 2, 2]"), task.domain)[0] == Grounding.UNPLACED
    # a probe beyond them is still admitted: it ends unplaced and refutes nothing
    assert admits(task.domain, "mend", CallArgs(([1, 2, 3, 4], [5, 6, 7], 2, "AB-1234")))


def test_the_report_lists_the_unread_sentences(unread_store):
    store, run_id, task = unread_store
    report = build_report(store, run_id)
    domain = report["tasks"][0]["domain"]
    assert sorted(c["text"] for c in domain if c["kind"] == "unread") == sorted([OFFSET, BOUNDED, WIDTH])
    md = render_markdown(report)
    assert "## Unread sentences of P" in md and "TestJack did not understand these sentences of P" in md
    html = render_html(report)
    assert "Unread sentences of P" in html
    for sentence in (OFFSET, BOUNDED, WIDTH):  # each as P says it, once rendered
        assert f"unread: &quot;{escape(sentence, quote=False)}&quot;" in html


def test_a_report_without_unread_sentences_has_no_such_section(tmp_path):
    store, run_id, _ = _store(tmp_path, READ_PROBLEM, READ_PROBLEM["canonical_solution"])
    assert "Unread sentences" not in render_markdown(build_report(store, run_id))
