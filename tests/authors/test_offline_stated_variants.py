"""Amplified tests drawn from what P states: a type it names, a function it names beside another.

Two small SWE-bench tasks (pytest runner) whose statement lists the parameter's types as a
docstring does ("*path* (str or os.PathLike)"). In ``hidlike`` the partial fix answers strings
only, so no variant of a string reaches its defect: only the graded test with its path handed as
``pathlib.PurePosixPath`` does, and it refutes the partial fix (an explicit requirement: the graded
test's own expectation on a type P names), never the good one. In ``hidraise`` the reference
itself fails on a path object (it calls a string method): that variant becomes no witness, and
nothing is refuted. In ``peerlike`` P names ``title(None)`` beside ``label(None)`` and the graded
test calls ``label`` through a helper of its module: the variant calls ``title`` (imported from the
package, which exports it) and fails on the partial fix, which mends ``label`` alone; whether P
means the two to agree is a reading of its English, so the witness asks the analyst and refutes
nobody by itself.
"""

from __future__ import annotations

import ast

import pytest

from testjack_tui.authors.offline.observed_tests import helpers, observing, read
from testjack_tui.authors.offline.stated_peers import Peer, exported, named_pairs, peers
from testjack_tui.authors.offline.test_variants import PathParam, Stated, variants_of
from testjack_tui.model import Classification, Grounding

from tests.authors.conftest import audit_layouts


STATEMENT = """is_hidden() answers None for a visible file

*path* (:class:`str` or :class:`os.PathLike`) is the file's path.

is_hidden(path) must answer True for a hidden file (its name starts with a dot), False otherwise.
"""
BASE = '''\
import os


def is_hidden(path):
    name = os.path.basename(os.fspath(path))
    if name.startswith("."):
        return True
'''
FIX = BASE + "    return False\n"
STR_ONLY = BASE + "    if isinstance(path, str):\n        return False\n"
GRADED = '''\
from hidlike.hidden import is_hidden


def test_visible():
    assert is_hidden("notes.txt") is False
'''


def _style(name: str, fix: str, partial: str) -> dict:
    return {
        "repo": f"acme/{name}",
        "statement": STATEMENT,
        "base": {"hidlike/__init__.py": "", "hidlike/hidden.py": BASE, "tests/__init__.py": "",
                 "tests/test_hidden.py": "from hidlike.hidden import is_hidden\n\n\ndef test_dot():\n"
                                         "    assert is_hidden('.env') is True\n"},
        "fix": {"hidlike/hidden.py": fix},
        "partial": {"hidlike/hidden.py": partial},
        "tests": {"tests/test_hidden.py": GRADED},
        "FAIL_TO_PASS": ["tests/test_hidden.py::test_visible"],
        "PASS_TO_PASS": [],
    }


# the reference reads the name with a string method: a path object raises AttributeError on it
RAISING = '''\
def is_hidden(path):
    return path.rsplit("/", 1)[-1].startswith(".")
'''


TEXT = '''\
def _core(value):
    return value.strip()


def label(value):
    return _core(value)


def title(value):
    return _core(value).title()
'''
PEERLIKE = {
    "repo": "acme/peerlike",
    "statement": "label(None) and title(None) raise AttributeError\n\nBoth must give an empty string for None.\n",
    "base": {"peerlike/__init__.py": "from .text import label, title\n", "peerlike/text.py": TEXT,
             "tests/__init__.py": "", "tests/test_text.py": "from peerlike.text import label\n\n\n"
                                                           "def test_strip():\n    assert label(' a ') == 'a'\n"},
    "fix": {"peerlike/text.py": TEXT.replace("    return value.strip()", "    return '' if value is None else value.strip()")},
    "partial": {"peerlike/text.py": TEXT.replace("def label(value):\n", "def label(value):\n    if value is None:\n        return ''\n")},
    "tests": {"tests/test_text.py": "from peerlike.text import label\n\n\ndef shown(value):\n    return label(value)\n\n\n"
                                    "def test_none():\n    assert shown(None) == ''\n"},
    "FAIL_TO_PASS": ["tests/test_text.py::test_none"],
    "PASS_TO_PASS": [],
}


def test_functions_p_names_on_the_same_input_are_peers_the_test_can_reach():
    prompt = "Both f(0*x) and g(0 * x) fail; h() and k() do not; m(1) is fine."
    assert named_pairs(prompt) == [("f", "g"), ("g", "f")]
    assert exported("from .a import g as gg, f\n__all__ = ['f', 'h']\n") == {"gg", "f", "h"}
    tree = ast.parse("from pkg.a import f\n")
    init = {"pkg/__init__.py": "from .a import f, g\n"}
    assert peers(prompt, tree, ["pkg/a.py"], init.get) == [Peer("f", "g", "from pkg import g"), Peer("g", "f")]
    assert peers(prompt, tree, ["other/a.py"], init.get) == [Peer("g", "f")]  # g is nowhere to import from


def test_a_helper_of_the_test_module_is_inlined_before_its_callee_is_swapped():
    module = ast.parse(PEERLIKE["tests"]["tests/test_text.py"])
    helpers = {"shown": module.body[1]}
    (v,) = variants_of(module.body[2], 4, Stated(peers=(Peer("label", "title", "from peerlike import title"),),
                                                 helpers=helpers))[:1]
    assert v.stated and v.imports == ("from peerlike import title",)
    assert "assert title(None) == ''" in ast.unparse(v.fn)


def test_a_string_handed_to_a_parameter_p_types_as_a_path_becomes_a_pure_path():
    fn = ast.parse(GRADED).body[1]
    made = variants_of(fn, 6, Stated(paths=(PathParam("is_hidden", 0, "path"),)))
    assert made[0].stated and "is_hidden(pathlib.PurePosixPath('notes.txt')) is False" in ast.unparse(made[0].fn)
    assert not any(v.stated for v in variants_of(fn, 6))  # P names no path type: no such variant


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    styles = {"hidlike": _style("hidlike", FIX, STR_ONLY), "hidraise": _style("hidraise", RAISING, STR_ONLY),
              "peerlike": PEERLIKE}
    yield from audit_layouts(tmp_path_factory.mktemp("typed"), styles)


def _verdicts(store, run_id, task):
    return {t.model: str(t.verdict) for t in store.list_trials(run_id, task=task)}


def _failing_on(store, run_id, task, model):
    """The task's witnesses that fail on ``model``'s trial."""
    return [w for w in store.list_witnesses(run_id, task)
            if str(getattr(store.witness_results(w.id).get(f"{task}@{model}"), "outcome", "")) == "fail"]


@pytest.mark.slow
def test_the_partial_fix_is_refuted_only_through_the_path_variant(audited):
    store, run_id = audited
    task = "acme__hidlike-1"
    assert _verdicts(store, run_id, task) == {"good": "sound", "partial": "refuted", "broken": "not_passing"}
    failing = _failing_on(store, run_id, task, "partial")
    assert failing and all("pathlib.PurePosixPath('notes.txt')" in w.code for w in failing)
    (w,) = [w for w in failing if " amplified (" in w.requirement]
    assert w.classification == Classification.EXPLICIT and w.grounding == Grounding.IN_DOMAIN
    assert "the graded test's own" in w.requirement


@pytest.mark.slow
def test_a_path_the_reference_raises_on_becomes_no_witness(audited):
    store, run_id = audited
    task = "acme__hidraise-1"
    assert not any("PurePosixPath" in w.code for w in store.list_witnesses(run_id, task))
    assert _verdicts(store, run_id, task)["partial"] != "refuted"


@pytest.mark.slow
def test_the_peer_p_names_fails_the_partial_fix_and_asks_the_analyst(audited):
    store, run_id = audited
    task = "acme__peerlike-1"
    # the partial fix awaits the ruling (unaudited), the good one is sound
    assert _verdicts(store, run_id, task) == {"good": "sound", "partial": "unaudited", "broken": "not_passing"}
    failing = _failing_on(store, run_id, task, "partial")
    assert failing and all("assert title(None) == ''" in w.code and "from peerlike import title" in w.code
                           for w in failing)
    assert all(w.classification == Classification.NEEDS_RULING for w in failing)
    assert not any("the graded test's own" in w.requirement for w in failing)


def test_the_observing_form_says_whether_each_check_held_as_written(capsys):
    """The observed side is evaluated once (an iterator advances once per check), the check as the
    test wrote it is judged on that value: what makes a stated variant keep the graded test's own
    expectations."""
    fn = ast.parse("def test_x(self):\n    it, three = iter([1, 2]), 3\n    assert next(it) == 1\n"
                   "    self.assertIs(next(it), three)\n    self.assertFalse([])\n").body[0]
    module = ast.Module([*helpers(), ast.ClassDef("T", [], [], [observing(fn, 0)], [])], [])
    space: dict = {}
    exec(compile(ast.unparse(ast.fix_missing_locations(module)), "observing", "exec"), space)
    space["T"]().test_x_observed_0()
    (seen,) = read(capsys.readouterr().out).values()
    assert [v[0][1] for v in seen.values.values()] == ["1", "2", "[]"]
    assert seen.held == {0: True, 1: False, 2: True}
