"""The symbolic probe (``--symbolic on``): CrossHair's inputs where a trial and the reference differ.

The search script runs for real in a Python process here, on a reference and a trial file side by
side, as it runs inside a trial's world; one audit of a native run shows a defect that only the
search reaches (a cap the trial applies from 1000 on, where the reference caps from 300: no
mutation of T0's small numbers and no generated value comes near it) refuted with the probe on
and missed with it off.
"""

import json
import logging
import subprocess
import sys

import pytest

from testjack_tui.authors.offline.symbolic import FUNCTION_S, ITERATIONS, _calls, _read, Found
from testjack_tui.authors.offline.symbolic_script import (
    REFERENCE_STEM, SYMBOLIC_FILE, TRIAL_STEM, parse_lines, search_script,
)
from testjack_tui.authors.offline.symbolic_types import Unsearchable, parameter_types
from testjack_tui.pysource.calls import CallArgs
from testjack_tui.pysource.signatures import functions_in

REFERENCE = '''
def max_element(l):
    m = l[0]
    for e in l:
        if e > m:
            m = e
    return m


def half(n):
    if n < 1:
        raise ValueError("n must be positive")
    return n // 2
'''
TRIAL = '''
import os


def max_element(l):
    m = 0
    for e in l:
        if e > m:
            m = e
    return m


def half(n):
    return n // 2


def crashing(n):
    if n > 10 ** 9:
        os._exit(3)
    return n
'''


def _search(name, types, pre=None, attr=None):
    rules = {"int_min": None, "min_length": None, "max_length": 12, "bounds": {}, "checks": []}
    return {"name": name, "attr": attr or name, "params": ["x"], "types": types, "pre": {**rules, **(pre or {})},
            "reference": REFERENCE_STEM, "trial": TRIAL_STEM}


def _run(tmp_path, searches, cpu_s=60.0):
    (tmp_path / f"{REFERENCE_STEM}.py").write_text(REFERENCE + "\n\ndef crashing(n):\n    return n\n")
    (tmp_path / f"{TRIAL_STEM}.py").write_text(TRIAL)
    (tmp_path / SYMBOLIC_FILE).write_text(search_script(searches, ITERATIONS, FUNCTION_S, cpu_s))
    done = subprocess.run(f"PYTHONHASHSEED=0 {sys.executable} {SYMBOLIC_FILE}", shell=True, cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)
    return done, parse_lines(done.stdout)


@pytest.mark.slow
def test_an_all_negative_list_is_found_by_reasoning_about_the_branch(tmp_path):
    _, lines = _run(tmp_path, [_search("max_element", ["typing.List[int]"], {"min_length": 1})])
    found = Found()
    _read(found, [_search("max_element", ["typing.List[int]"])], lines, "ok", 0)
    (call,) = found.inputs["max_element"]
    assert call.args[0] and all(v < 0 for v in call.args[0])  # the trial's 0 beats every item


def test_the_domain_keeps_the_search_inside_it(tmp_path):
    """``half`` differs only on n < 1; P says n is positive: nothing is found inside that."""
    _, lines = _run(tmp_path, [_search("half", ["int"], {"int_min": 1}, attr="half"),
                               _search("half_anywhere", ["int"], attr="half")])
    found = Found()
    _read(found, [_search("half", ["int"]), _search("half_anywhere", ["int"])], lines, "ok", 0)
    assert found.inputs["half"] == []
    assert found.inputs["half_anywhere"] and all(c.args[0] < 1 for c in found.inputs["half_anywhere"])


def test_a_domain_constraint_is_checked_by_the_domain_models_own_code(tmp_path):
    """A constraint of the domain model (``x >= 1``, read from P by domain/) rules out what ``half``
    differs on, through the same ``holds`` the grounding of witnesses uses."""
    at_least_one = {"function": "half", "signature": ["x"], "op": "compare",
                    "terms": [{"param": "x"}, {"num": 1}], "ops": [">="]}
    _, lines = _run(tmp_path, [_search("half", ["int"], {"checks": [at_least_one]})])
    assert lines[-1]["status"] == "ok" and lines[-1]["inputs"] == []


def test_a_function_it_cannot_search_is_skipped_with_the_reason():
    source = "def describe(item: Item, n):\n    return str(item)\n\ndef total(xs):\n    return sum(xs)\n"
    targets = functions_in(source, "shop.py")
    with pytest.raises(Unsearchable, match="parameter item is annotated 'Item'"):
        parameter_types(targets["describe"], [])
    with pytest.raises(Unsearchable, match="parameter xs is unannotated"):
        parameter_types(targets["total"], [CallArgs(([1, "a"],)), CallArgs((None,))])
    # T0's calls tell the types where nothing is annotated: ints and floats read as float
    assert parameter_types(targets["total"], [CallArgs(([1, 2.5],)), CallArgs(([],))]) == ["typing.List[float]"]


def test_a_trial_that_crashes_the_search_is_contained_and_recorded(tmp_path, caplog):
    searches = [_search("crashing", ["int"]), _search("half", ["int"], {"int_min": 1})]
    done, lines = _run(tmp_path, searches)
    assert done.returncode == 3
    found = Found()
    with caplog.at_level(logging.INFO, logger="testjack.symbolic"):
        _read(found, searches, lines, "ok", done.returncode)
    assert found.trouble == ["crashing"]
    assert "symbolic search of crashing stopped without an answer (the search ended with exit code 3)" in caplog.text
    assert "half never started" in caplog.text  # the rest of the audit goes on without it


@pytest.mark.slow
def test_same_input_same_candidates(tmp_path):
    searches = [_search("max_element", ["typing.List[int]"], {"min_length": 1})]
    first = _run(tmp_path, searches)[1]
    second = _run(tmp_path, searches)[1]
    assert [line.get("inputs") for line in first] == [line.get("inputs") for line in second]
    assert first[-1]["inputs"]


def test_what_the_script_names_is_read_as_literals_only():
    rows = [["[1, 2]"], ["__import__('os')"], ["<SymbolicInt>"], ["[1, 2]"], ["(3, 'a')", "extra"]]
    assert _calls(rows, 1) == [CallArgs(([1, 2],))]
    assert _calls("not a list", 1) == []
    assert json.dumps([c.key for c in _calls([["-5"], ["7"]], 1)]) == '["7", "-5"]'
