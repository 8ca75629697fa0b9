"""Timing witnesses: what P must say for slowness to refute, and what a timing witness checks.

A timing witness states a time limit on one call, and nothing else. Where P asks for speed
("efficiently", a complexity) a trial that gives no answer within the limit is refuted; anywhere
else it is only a ``slow`` finding. Its input is chosen for size, so a trial that gives another
answer there, or hits the interpreter's recursion limit, has not been shown slow: it passes.
"""

import subprocess
import sys

from testjack_tui.audit.fewest import twins
from testjack_tui.audit.verdicts import fails_on, rho_of
from testjack_tui.pysource.calls import CallArgs
from testjack_tui.authors.offline.probe import LINE_CAP
from testjack_tui.authors.offline.probe import Outcome as Probe
from testjack_tui.pysource.signatures import Access
from testjack_tui.authors.offline.stress import sized_input, stress_inputs, within_depth
from testjack_tui.authors.offline.witnesses import Spec, render
from testjack_tui.domain.timing import states_time_bound
from testjack_tui.model import AuthorKind, Classification, Grounding, Origin, RequirementKind, Witness, WitnessStatus


def test_the_prompt_asks_for_speed_in_so_many_words():
    assert states_time_bound("Please write a function to efficiently compute the n-th element.")
    assert states_time_bound("Your solution must be efficient: n can be large.")
    assert states_time_bound("Write an efficient algorithm that returns the count.")
    assert states_time_bound("Return the sum, computed in O(n) time.")
    assert not states_time_bound("Return the most efficient route between the two cities.")
    assert not states_time_bound("Return the fuel efficiency of each car.")
    assert not states_time_bound("Return the n-th Fibonacci number.")


SOLUTIONS = {
    "fast": "def f(n):\n    return n * 2\n",
    "wrong": "def f(n):\n    return n * 3\n",
    "deep": "def f(n):\n    return 0 if n == 0 else 2 + f(n - 1)\n",  # RecursionError at once
    "never": "def f(n):\n    while True:\n        pass\n",
}


def test_a_timing_witness_fails_only_for_want_of_time(tmp_path):
    spec = Spec("f", Access(("from solution import f",), "f"), "3000", "6000", None, "probe",
                "The trial does not answer in time.", deadline=1.0)
    code = render(spec)
    assert "gives its answer within 1 s" in code
    outcomes = {}
    for name, solution in SOLUTIONS.items():
        world = tmp_path / name
        world.mkdir()
        (world / "solution.py").write_text(solution)
        (world / "test_w.py").write_text(code)
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_w.py"],
                             cwd=world, capture_output=True, text=True, timeout=60)
        outcomes[name] = (run.returncode, run.stdout)
    assert {k: rc for k, (rc, _) in outcomes.items()} == {"fast": 0, "wrong": 0, "deep": 0, "never": 1}
    assert "TimeoutError: no result within 1 s" in outcomes["never"][1]


def _run_on_each_solution(tmp_path, code, solutions=SOLUTIONS):
    outcomes = {}
    for name, solution in solutions.items():
        world = tmp_path / name
        world.mkdir(exist_ok=True)
        (world / "solution.py").write_text(solution)
        (world / "test_w.py").write_text(code)
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_w.py"],
                             cwd=world, capture_output=True, text=True, timeout=60)
        outcomes[name] = (run.returncode, run.stdout)
    return outcomes


def test_a_result_witness_on_a_size_scaled_input_judges_every_answer_but_not_slowness(tmp_path):
    spec = Spec("f", Access(("from solution import f",), "f"), "3000", "6000", None, "amplified",
                "The input is scaled up in size.", patience=1.0)
    code = render(spec)
    assert "returns 6000 whenever it answers within 1 s" in code
    outcomes = _run_on_each_solution(tmp_path, code)
    # a wrong value and a RecursionError are wrong answers; never answering is slowness: a skip
    assert {k: rc for k, (rc, _) in outcomes.items()} == {"fast": 0, "wrong": 1, "deep": 1, "never": 0}
    assert "RecursionError" in outcomes["deep"][1]
    assert "1 skipped" in outcomes["never"][1] and "1 passed" in outcomes["fast"][1]


def test_a_patient_witness_that_must_raise_is_skipped_where_no_answer_comes(tmp_path):
    spec = Spec("f", Access(("from solution import f",), "f"), "3000", None, "ValueError", "amplified",
                "", patience=1.0)
    solutions = {"raises": "def f(n):\n    raise ValueError(n)\n", "returns": "def f(n):\n    return n\n",
                 "never": SOLUTIONS["never"]}
    outcomes = {k: out for k, (_, out) in _run_on_each_solution(tmp_path, render(spec), solutions).items()}
    assert "1 passed" in outcomes["raises"] and "1 failed" in outcomes["returns"]
    assert "1 skipped" in outcomes["never"]


def _witness(wid: str, code: str, kind=RequirementKind.EXPLICIT, slow_only=False) -> Witness:
    return Witness(id=wid, run_id="r", task_id="T/0", requirement=wid, requirement_kind=kind,
                   origin=Origin.AUDIT, author=AuthorKind.OFFLINE, code=code, path=f"test_{wid}.py",
                   status=WitnessStatus.VALIDATED, classification=Classification(str(kind)),
                   grounding=Grounding.IN_DOMAIN, slow_only=slow_only)


TIMED = "import signal\n\ndef test_f():\n    assert _within(5, lambda: f(3000)) == 1\n"
PLAIN = "def test_f():\n    assert f(3000) == 1\n"


def test_a_refuting_witness_is_never_set_aside_for_a_twin_that_cannot_refute():
    slow = _witness("a", TIMED, kind=RequirementKind.IMPLICIT, slow_only=True)
    plain = _witness("b", PLAIN + "\n" * 200, kind=RequirementKind.IMPLICIT)
    fails = {"reference": "pass", "x": "fail", "y": "pass"}
    assert twins([slow, plain], {"a": fails, "b": fails}) == {}
    other = _witness("c", PLAIN + "\n" * 300, kind=RequirementKind.IMPLICIT)
    assert twins([plain, other], {"b": fails, "c": fails}) == {"c": "b"}


def test_the_stress_inputs_are_the_largest_ones_the_reference_answers_at_once():
    seeds = [CallArgs((10,)), CallArgs((14,))]
    out = [
        (CallArgs((5,)), Probe("ok", "5", "int", seconds=0.0001)),  # not larger than the seeds
        (CallArgs((28,)), Probe("ok", "3", "int", seconds=0.0001)),
        (CallArgs((141,)), Probe("ok", "8", "int", seconds=0.0003)),  # the largest a recursion can reach
        (CallArgs((1000,)), Probe("ok", "77", "int", seconds=0.002)),
        (CallArgs((3000,)), Probe("ok", "99", "int", seconds=0.010)),  # the largest answered at once
        (CallArgs((10**9 + 7,)), Probe("timeout", seconds=1.0)),  # the reference itself runs out
        (CallArgs((10**6 + 3,)), Probe("ok", "1", "int", seconds=0.4)),  # answered, but not at once
        (CallArgs((1401,)), Probe("raise", None, "ValueError", seconds=0.0001)),
    ]
    assert [(c.args, r.repr) for c, r in stress_inputs(seeds, out, set())] == [((3000,), "99"), ((141,), "8")]
    # the shallow one alone where the largest is taken; nothing where no larger call is left
    assert [c.args for c, _ in stress_inputs(seeds, out, {"3000", "1000"})] == [(141,)]
    assert stress_inputs(seeds, out, {"3000", "1000", "141", "28"}) == []


def test_a_counted_reference_call_is_at_once_by_its_lines_whatever_its_time():
    """Near the time line (1/20 of the call limit) a load could flip the choice between runs; where
    the probe counted the reference's lines, the count decides for Python code."""
    seeds = [CallArgs((10,))]
    out = [
        (CallArgs((10**4,)), Probe("ok", "1", "int", seconds=0.001, lines=20_004)),
        (CallArgs((10**6 + 3,)), Probe("ok", "1", "int", seconds=0.01, lines=LINE_CAP + 1)),  # fast today
    ]
    assert [c.args for c, _ in stress_inputs(seeds, out, set())] == [(10**4,)]
    # a call in C executes few lines: its time still rules it out when slow
    out.append((CallArgs((10**7,)), Probe("ok", "1", "int", seconds=0.3, lines=3)))
    assert [c.args for c, _ in stress_inputs(seeds, out, set())] == [(10**4,)]


def test_the_result_witness_takes_the_largest_input_whose_numbers_a_float_holds_exactly():
    seeds = [CallArgs((10,)), CallArgs((14,))]
    out = [
        (CallArgs((3000,)), Probe("ok", "4501500", "int", seconds=0.0001)),
        (CallArgs((10**6 + 3,)), Probe("ok", "500003500006", "int", seconds=0.001)),
        (CallArgs((10**9 + 7,)), Probe("ok", "500000007500000028", "int", seconds=0.001)),  # n * n is past 2**53
        (CallArgs(([1] * 300,)), Probe("ok", "300", "int", seconds=0.001)),  # long, but its numbers are small
    ]
    call, res = sized_input(seeds, out, set())
    assert call.args == ([1] * 300,)  # the longest source: size orders them
    call, _ = sized_input(seeds, out, {call.key})
    assert call.args == (10**6 + 3,)
    assert sized_input(seeds, out, {repr([1] * 300), "1000003", "3000"}) is None


def test_an_input_within_depth_has_no_number_or_length_past_a_quarter_of_the_recursion_limit():
    assert within_depth(250) and within_depth([1, 2, 3]) and within_depth("ab" * 100) and within_depth({"a": [1.5]})
    assert not within_depth(251) and not within_depth([0] * 251) and not within_depth((1, -1000))
    assert not within_depth({"k": "x" * 300})


PATIENT = render(Spec("f", Access(("from solution import f",), "f"), "3000", "6000", None, "amplified", "", patience=5.0))


def test_a_patient_witness_counts_only_a_wrong_answer_never_a_run_that_ran_out_of_time():
    patient = _witness("p", PATIENT, kind=RequirementKind.IMPLICIT)
    plain = _witness("q", PLAIN, kind=RequirementKind.IMPLICIT)
    # a loop inside a C function holds off the witness's alarm: the run itself times out or errors
    assert [fails_on(patient, o) for o in ("fail", "error", "timeout", "pass")] == [True, False, False, False]
    # a run that gives no result is withheld evidence (verdicts.gives_no_result), no failure
    assert [fails_on(plain, o) for o in ("fail", "error", "timeout", "pass")] == [True, False, False, False]
    results = {"a": "fail", "b": "timeout", "c": "pass", "d": "error"}
    assert rho_of(patient, results, ["a", "b", "c", "d"]) == 0.25
    assert rho_of(plain, results, ["a", "b", "c", "d"]) == 0.25
