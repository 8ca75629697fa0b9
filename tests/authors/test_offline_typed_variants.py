"""Amplified tests of a type P states: a graded test's string handed as a path object.

Two small SWE-bench tasks (pytest runner) whose statement lists the parameter's types as a
docstring does ("*path* (str or os.PathLike)"). In ``hidlike`` the partial fix answers strings
only, so no variant of a string reaches its defect: only the graded test with its path handed as
``pathlib.PurePosixPath`` does, and it refutes the partial fix (an explicit requirement: the graded
test's own expectation on a type P names), never the good one. In ``hidraise`` the reference
itself fails on a path object (it calls a string method): that variant becomes no witness, and
nothing is refuted.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.authors.offline.test_variants import PathParam, Stated, variants_of
from testjack_tui.formats.importing import import_path
from testjack_tui.model import Classification, Grounding
from testjack_tui.store import Store

sys.path.insert(0, str(Path(__file__).parents[1] / "formats"))
from swebench_layouts import STYLES, build  # noqa: E402

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


def test_a_string_handed_to_a_parameter_p_types_as_a_path_becomes_a_pure_path():
    fn = ast.parse(GRADED).body[1]
    made = variants_of(fn, 6, Stated(paths=(PathParam("is_hidden", 0, "path"),)))
    assert made[0].stated and "is_hidden(pathlib.PurePosixPath('notes.txt')) is False" in ast.unparse(made[0].fn)
    assert not any(v.stated for v in variants_of(fn, 6))  # P names no path type: no such variant


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    root = tmp_path_factory.mktemp("typed")
    mp = pytest.MonkeyPatch()
    mp.setenv("TESTJACK_CACHE", str(root / "cache"))
    mp.setitem(STYLES, "hidlike", _style("hidlike", FIX, STR_ONLY))
    mp.setitem(STYLES, "hidraise", _style("hidraise", RAISING, STR_ONLY))
    data = build(root, ["hidlike", "hidraise"])
    store = Store(root / "s.db")
    outcome = import_path(store, data, "swebench", repos=data / "repos", swebench_envs=root / "envs.toml")
    assert Audit(store, outcome.run_id, AuditOptions(author="offline", evidence=False, workers=2)).execute() == "done"
    yield store, outcome.run_id
    mp.undo()


def _verdicts(store, run_id, task):
    return {t.model: str(t.verdict) for t in store.list_trials(run_id, task=task)}


@pytest.mark.slow
def test_the_partial_fix_is_refuted_only_through_the_path_variant(audited):
    store, run_id = audited
    task = "acme__hidlike-1"
    assert _verdicts(store, run_id, task) == {"good": "sound", "partial": "refuted", "broken": "not_passing"}
    failing = [w for w in store.list_witnesses(run_id, task)
               if str(getattr(store.witness_results(w.id).get(f"{task}@partial"), "outcome", "")) == "fail"]
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
