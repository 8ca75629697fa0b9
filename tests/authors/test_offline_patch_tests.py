"""The test patch's own ungraded tests become the offline author's candidates, classified by A.2.

Which tests count as ungraded (a name no graded id gives, a parametrisation the graded ids leave
out, only tests the patch adds or changes), how one is cut out of its file, and, on two small
SWE-bench tasks audited end to end, where A.2 puts such a witness: the partial fix alone fails it
(two passing trials: needs a ruling, the trial is not sound), every trial fails it (a prompt defect
that refutes nobody, shown with where it came from). Function-level tasks get no such candidate.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from testjack_tui.authors.base import AuthorContext
from testjack_tui.authors.offline.patch_tests import (
    graded_name, isolated, patch_test_candidates, ungraded_tests,
)
from testjack_tui.authors.offline.repo_amplify import amplified_candidates
from testjack_tui.model import Classification, Origin, Verdict, WitnessStatus

from tests.authors.conftest import audit_layouts


MODULE = '''\
import pytest

from pkg import f


def helper():
    return 1


def test_graded():
    assert f(1) == 1


@pytest.mark.parametrize("x, y", [(1, 1), (2, 2), (3, 3)])
def test_cases(x, y):
    assert f(x) == y


class TestKinds:
    def setup_method(self):
        self.n = helper()

    def test_one(self):
        assert f(self.n) == 1

    def test_two(self):
        assert f(2) == 2


def test_last():
    assert f(0) == 0
'''


def _diff(text: str, path: str = "tests/test_f.py") -> str:
    lines = text.splitlines()
    return f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{l}\n" for l in lines)


def _names(graded):
    return [t.node for t, _ in ungraded_tests(_diff(MODULE), graded, lambda path: MODULE)]


def test_graded_ids_of_each_runner_name_their_test():
    assert graded_name("tests/x.py::TestA::test_b[a-No").name == "test_b"
    assert graded_name("tests/x.py::TestA::test_b[a-No").cls == "TestA"
    assert graded_name("test_b (app.tests.TestA)").cls == "TestA"
    assert graded_name("test_b").path is None and not graded_name("test_b").parametrised


def test_the_tests_no_graded_id_names_are_candidates():
    graded = ["tests/test_f.py::test_graded", "tests/test_f.py::TestKinds::test_one",
              "tests/test_f.py::test_cases[1-1]", "tests/test_f.py::test_cases[2-2]"]
    # a parametrisation is left out (3 listed, 2 graded); the class's other method; the last test
    assert _names(graded) == ["tests/test_f.py::test_cases", "tests/test_f.py::TestKinds::test_two",
                              "tests/test_f.py::test_last"]
    every = graded + ["tests/test_f.py::test_cases[3-3]", "tests/test_f.py::TestKinds::test_two",
                      "tests/test_f.py::test_last"]
    assert _names(every) == []
    # SymPy's bare names and Django's "name (module.Class)" say the same
    assert _names(["test_graded", "test_cases", "test_one (tests.test_f.TestKinds)", "test_last"]) == [
        "tests/test_f.py::TestKinds::test_two"]


def test_only_tests_the_patch_adds_or_changes_are_candidates():
    before = MODULE.replace("    assert f(0) == 0\n", "    assert f(0) == 1\n")
    changed = ("--- a/tests/test_f.py\n+++ b/tests/test_f.py\n@@ -30,2 +30,2 @@\n def test_last():\n"
               "-    assert f(0) == 1\n+    assert f(0) == 0\n")
    assert before != MODULE
    found = ungraded_tests(changed, ["tests/test_f.py::test_graded"], lambda path: MODULE)
    assert [t.node for t, _ in found] == ["tests/test_f.py::test_last"]


def test_a_candidate_keeps_its_file_but_the_other_tests():
    (test, source), = [x for x in ungraded_tests(_diff(MODULE), [], lambda p: MODULE) if x[0].name == "test_two"]
    code = isolated(source, test)
    tree = ast.parse(code)
    kept = [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert kept == ["helper", "TestKinds", "setup_method", "test_two"]
    assert "import pytest\n\nfrom pkg import f\n" in code  # the file's own text, imports first


# Two tasks whose test patch adds a test the harness does not grade (FAIL_TO_PASS names the other).
EXTRA = {
    # the partial fix alone fails the ungraded test
    "leadlike": {
        "repo": "acme/leadlike",
        "statement": "url_join doubles slashes\n\nurl_join(base, path) must put exactly one '/' between them.",
        "base": {
            "src/leadlike/__init__.py": "def url_join(base, path):\n    return base + '/' + path\n",
            "tests/test_url.py": "from leadlike import url_join\n\n\ndef test_plain():\n    assert url_join('a', 'b') == 'a/b'\n",
        },
        "fix": {"src/leadlike/__init__.py": "def url_join(base, path):\n    return base.rstrip('/') + '/' + path.lstrip('/')\n"},
        "partial": {"src/leadlike/__init__.py": "def url_join(base, path):\n    return base.rstrip('/') + '/' + path\n"},
        "tests": {"tests/test_url.py": (
            "from leadlike import url_join\n\n\ndef test_plain():\n    assert url_join('a', 'b') == 'a/b'\n\n\n"
            "def test_trailing():\n    assert url_join('a/', 'b') == 'a/b'\n\n\n"
            "def test_leading():\n    assert url_join('a', '/b') == 'a/b'\n")},
        "FAIL_TO_PASS": ["tests/test_url.py::test_trailing"],
        "PASS_TO_PASS": ["tests/test_url.py::test_plain"],
    },
    # every passing trial fails it
    "normlike": {
        "repo": "acme/normlike",
        "statement": "norm keeps slashes\n\nnorm(path) must drop the slashes at either end.",
        "base": {
            "normlike/__init__.py": "def norm(p):\n    return p\n",
            "tests/test_norm.py": "from normlike import norm\n\n\ndef test_plain():\n    assert norm('a') == 'a'\n",
        },
        "fix": {"normlike/__init__.py": "def norm(p):\n    return p.strip('/')\n"},
        "good": {"normlike/__init__.py": "def norm(p):\n    return p.replace('/', '')\n"},
        "partial": {"normlike/__init__.py": "def norm(p):\n    return p.replace('/', '') or p\n"},
        "tests": {"tests/test_norm.py": (
            "from normlike import norm\n\n\ndef test_plain():\n    assert norm('a') == 'a'\n\n\n"
            "def test_ends():\n    assert norm('/a/') == 'a'\n\n\n"
            "def test_inner():\n    assert norm('/a//b/') == 'a//b'\n")},
        "FAIL_TO_PASS": ["tests/test_norm.py::test_ends"],
        "PASS_TO_PASS": ["tests/test_norm.py::test_plain"],
    },
}


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    yield from audit_layouts(tmp_path_factory.mktemp("patchtests"), EXTRA)


def _patch_witness(store, run_id, style):
    found = [w for w in store.list_witnesses(run_id, f"acme__{style}-1") if "test patch's own test" in w.requirement]
    assert len(found) == 1, [w.requirement for w in store.list_witnesses(run_id, f"acme__{style}-1")]
    return found[0]


@pytest.mark.slow
def test_the_partial_fix_alone_fails_it_and_awaits_a_ruling(audited):
    store, run_id = audited
    w = _patch_witness(store, run_id, "leadlike")
    assert w.status == WitnessStatus.VALIDATED and w.origin == Origin.TASK_ANALYSIS
    assert w.requirement == "the test patch's own test tests/test_url.py::test_leading, which the harness does not grade"
    assert w.path.startswith("tests/") and "def test_trailing" not in w.code
    results = store.witness_results(w.id)
    assert (results["reference"].outcome, results["null"].outcome) == ("pass", "fail")
    # two passing trials, one fails it: one trial would decide A.2's majority
    assert w.classification == Classification.NEEDS_RULING
    # never silently sound (here a probe's explicit witness refutes it too; else it awaits the ruling)
    assert store.get_verdict(run_id, "acme__leadlike-1@partial").verdict in (Verdict.UNAUDITED, Verdict.REFUTED)
    assert store.get_verdict(run_id, "acme__leadlike-1@good").verdict == Verdict.SOUND


@pytest.mark.slow
def test_a_test_every_trial_fails_is_a_prompt_defect_not_a_refutation(audited):
    store, run_id = audited
    w = _patch_witness(store, run_id, "normlike")
    results = store.witness_results(w.id)
    assert (results["reference"].outcome, results["null"].outcome) == ("pass", "fail")
    assert results["acme__normlike-1@good"].outcome == results["acme__normlike-1@partial"].outcome == "fail"
    assert w.classification == Classification.AMBIGUOUS and not w.refutes
    for trial in ("good", "partial"):
        assert store.get_verdict(run_id, f"acme__normlike-1@{trial}").verdict != Verdict.REFUTED


def test_a_function_level_task_gets_no_such_candidate(audited):
    """Only a harness-graded task's graded ids are the harness's choice; a native task's T0 is its
    test patch, and a function-level task (HumanEval, EvalPlus) is no repository task: neither
    kind of candidate, no execution."""
    store, run_id = audited
    task = store.get_task(run_id, "acme__leadlike-1")
    native = task.tests.__class__(**{**task.tests.__dict__, "log_parser": ""})
    def nothing_runs(requests):
        raise AssertionError("a native task's analysis ran amplified tests")

    ctx = AuthorContext(task=task.__class__(**{**task.__dict__, "tests": native}), trial=None,
                        read_file=lambda world, path: None, execute=nothing_runs,
                        world_request=lambda world, **kw: None)
    assert patch_test_candidates(ctx) == [] and amplified_candidates(ctx) == []
    ctx.read_file = lambda world, path: (Path(task.snapshot) / path).read_text() if (Path(task.snapshot) / path).exists() else None
    assert patch_test_candidates(ctx) == [] and amplified_candidates(ctx) == []
