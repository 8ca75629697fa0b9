"""The symbolic probe (``--symbolic on``): CrossHair's inputs where a trial and the reference differ.

The search script runs for real in a Python process here, on a reference and a trial file side by
side, as it runs inside a trial's world; one audit of a native run shows a defect that only the
search reaches (a cap the trial forgets on three values far above T0's: no mutation of T0's small
numbers and no generated value comes near them) refuted with the probe on
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


def flip(s):
    return s.swapcase()
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


def flip(s):
    return "".join(c.lower() if c.isupper() else c.upper() for c in s)


def crashing(n):
    if n > 10 ** 9:
        os._exit(3)
    return n
'''


def _search(name, types, pre=None, attr=None):
    rules = {"int_min": None, "min_length": None, "max_length": 12, "bounds": {}, "checks": []}
    return {"name": name, "attr": attr or name, "params": ["x"], "types": types, "pre": {**rules, **(pre or {})},
            "reference": REFERENCE_STEM, "trial": TRIAL_STEM}


def _run(tmp_path, searches, cpu_s=120.0):
    (tmp_path / f"{REFERENCE_STEM}.py").write_text(REFERENCE + "\n\ndef crashing(n):\n    return n\n")
    (tmp_path / f"{TRIAL_STEM}.py").write_text(TRIAL)
    # a generous wall-clock cap: on a busy machine the path limit, not the clock, ends the search
    (tmp_path / SYMBOLIC_FILE).write_text(search_script(searches, ITERATIONS, 4 * FUNCTION_S, cpu_s))
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


@pytest.mark.slow
def test_strings_keep_to_the_characters_p_and_t0_use(tmp_path):
    """``swapcase`` and a hand-made flip differ only on characters whose case maps to more than one
    (``'ῼ'``): such an input tests what P never spoke of, and is dropped when T0's strings never
    use it."""
    from testjack_tui.authors.offline.symbolic import _alphabets

    assert _alphabets(["s", "n"], [CallArgs(("Hello", 3)), CallArgs((["ab", "c!"], 1))]) == {"s": "!Habcelo"}
    search = _search("flip", ["str"])
    _, lines = _run(tmp_path, [search])
    anywhere, kept = Found(), Found()
    _read(anywhere, [search], lines, "ok", 0)
    _read(kept, [{**search, "alphabets": {"x": "Hello"}}], lines, "ok", 0)
    assert anywhere.inputs["flip"] and kept.inputs["flip"] == []


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


CLAMP_REF = 'def clamp(score: int) -> int:\n    """The score, capped at 300."""\n    return min(score, 300)\n'
CLAMP_RIGHT = "def clamp(score: int) -> int:\n    return 300 if score > 300 else score\n"
# wrong on three values only: neither T0's small numbers, their mutations, the values drawn from
# the type nor the size-scaled inputs of task analysis come near them
CLAMP_LATE = "def clamp(score: int) -> int:\n    return score if score <= 300 or 611 <= score <= 613 else 300\n"


def _audit_clamp(tmp_path, symbolic: bool):
    from testjack_tui.audit import Audit
    from testjack_tui.audit.engine import AuditOptions
    from testjack_tui.formats.importing import import_path
    from testjack_tui.store import Store
    from tests.patches import diff

    root = tmp_path / "clamp"
    task = root / "tasks" / "clamp"
    (task / "repo").mkdir(parents=True)
    (root / "trials").mkdir()
    (task / "repo" / "README").write_text("clamp\n")
    (task / "prompt.md").write_text("Add `clamp(score)`: the score, capped at 300.\n")
    (task / "reference.patch").write_text(diff("clampkit.py", "", CLAMP_REF))
    tests = "from clampkit import clamp\n\n\ndef test_clamp():\n    assert clamp(5) == 5\n    assert clamp(40) == 40\n"
    (task / "tests.patch").write_text(diff("tests/test_clamp.py", "", tests))
    (task / "task.toml").write_text(
        'id = "clamp"\n\n[tests]\ncommand = "python -m pytest -p no:cacheprovider -q --junitxml={junit} {tests}"\n'
        'fail_to_pass = ["tests/test_clamp.py::test_clamp"]\ntimeout = 60\n')
    rows = []
    for tid, source in {"right": CLAMP_RIGHT, "late": CLAMP_LATE}.items():
        (root / "trials" / f"{tid}.patch").write_text(diff("clampkit.py", "", source))
        rows.append({"id": tid, "task": "clamp", "model": tid, "patch": f"trials/{tid}.patch", "official": "passed"})
    (root / "run.toml").write_text('name = "clamp"\n\n[defaults]\nbackend = "local"\n')
    (root / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = Store(tmp_path / "testjack.db")
    run_id = import_path(store, root).run_id
    options = AuditOptions(mode="per-trial", author="offline", workers=2, evidence=False, few_trials="ambiguous",
                           author_options={"symbolic": symbolic, "symbolic_budget": 20.0})
    assert Audit(store, run_id, options).execute() == "done"
    return store, run_id


@pytest.mark.slow
@pytest.mark.parametrize("symbolic", [True, False], ids=["on", "off"])
def test_a_defect_only_the_search_reaches_is_found_with_it_on_and_missed_off(tmp_path, symbolic):
    from testjack_tui.model import EvidenceKind, Verdict

    store, run_id = _audit_clamp(tmp_path, symbolic)
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts["right"] == Verdict.SOUND
    found = [e.detail for e in store.list_evidence(run_id, "late") if e.kind == EvidenceKind.SYMBOLIC]
    if symbolic:
        assert verdicts["late"] == Verdict.REFUTED
        # the input, both worlds' answers as the probe saw them, and the search's time
        assert found and "the reference returns 300; the trial returns" in found[0] and "s of CPU" in found[0]
    else:
        assert verdicts["late"] != Verdict.REFUTED and not found
