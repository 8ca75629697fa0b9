"""Amplified tests of a repository task: T0's graded test varied, the reference's answers asserted.

A small SWE-bench task (pytest runner) whose graded test builds its input with a call: the
variants change the call's literal; the reference runs every variant twice, an observation that
differs between its runs (a random token) is dropped, an exception it raises becomes a
``pytest.raises`` witness, and the witnesses land where the runner collects them. The budget caps
the variants and the executions.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from testjack_tui.audit.engine import read_world_file
from testjack_tui.audit.execution import ExecutionService
from testjack_tui.audit.validation import Validator
from testjack_tui.authors.base import AuthorContext, NoneAuthor
from testjack_tui.authors.offline import repo_amplify
from testjack_tui.authors.offline.observed_tests import Seen, agreed, read, render
from testjack_tui.authors.offline.test_variants import variants_of
from testjack_tui.formats.importing import import_path
from testjack_tui.model import Origin, WitnessStatus
from testjack_tui.store import Store

sys.path.insert(0, str(Path(__file__).parents[1] / "formats"))
from swebench_layouts import build  # noqa: E402

from tests.authors.conftest import audit_layouts  # noqa: E402

TOKENS = '''\
import os


def tokens(n):
    if n < 0:
        raise ValueError("n must not be negative")
    return [os.urandom(4).hex() for _ in range(n)]
'''
NO_CHECK = TOKENS.replace('    if n < 0:\n        raise ValueError("n must not be negative")\n', "")
TEST = '''\
from toklike.tokens import tokens


def test_count():
    got = tokens(3)
    assert len(got) == 3
    assert got[0] == got[0]
'''

TOKLIKE = {
    "repo": "acme/toklike",
    "statement": "tokens(n) gives one token too many\n\ntokens(n) must give n tokens, and refuse a negative n.",
    "base": {"toklike/__init__.py": "", "toklike/tokens.py": NO_CHECK.replace("range(n)", "range(n + 1)"),
             "tests/__init__.py": "",
             "tests/test_tokens.py": "from toklike.tokens import tokens\n\n\ndef test_str():\n    assert tokens(0)\n"},
    "fix": {"toklike/tokens.py": TOKENS},
    "partial": {"toklike/tokens.py": NO_CHECK},
    "tests": {"tests/test_tokens.py": TEST},
    "FAIL_TO_PASS": ["tests/test_tokens.py::test_count"],
    "PASS_TO_PASS": [],
}


def test_variants_change_one_literal_and_respect_the_budget():
    fn = ast.parse(TEST).body[1]
    made = variants_of(fn, 5)
    assert len(made) == 5
    assert [v.change for v in made][:3] == ["3 -> 0", "3 -> 1", "3 -> -1"]
    assert all(ast.unparse(v.fn).count("tokens(3)") == 0 for v in made)


def test_an_observation_that_differs_between_reference_runs_is_dropped():
    one = read('@@TJ-OBSERVED@@{"v": 0, "i": 0, "t": "int", "r": "3", "b": true}\n'
               '@@TJ-OBSERVED@@{"v": 0, "i": 1, "t": "str", "r": "\'ab12\'", "b": true}\n'
               '@@TJ-OBSERVED@@{"v": 0, "done": true}\n')
    two = read('@@TJ-OBSERVED@@{"v": 0, "i": 0, "t": "int", "r": "3", "b": true}\n'
               '@@TJ-OBSERVED@@{"v": 0, "i": 1, "t": "str", "r": "\'9f0e\'", "b": true}\n'
               '@@TJ-OBSERVED@@{"v": 0, "done": true}\n')
    kept = agreed([one, two])
    assert kept == {0: Seen({0: [("int", "3", True)]}, None, True)}


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    yield from audit_layouts(tmp_path_factory.mktemp("amplify"), {"toklike": TOKLIKE})


def _amplified(store, run_id):
    return [w for w in store.list_witnesses(run_id, "acme__toklike-1") if " amplified (" in w.requirement]


@pytest.mark.slow
def test_an_exception_on_the_reference_becomes_a_raises_witness_that_refutes_nothing_alone(audited):
    store, run_id = audited
    # 3 -> -1 and 3 -> -3 both raise; the engine keeps one of witnesses that fail the same trials
    (w,) = [w for w in _amplified(store, run_id) if "raises ValueError" in w.requirement
            and w.status == WitnessStatus.VALIDATED]
    assert w.origin == Origin.TASK_ANALYSIS
    assert "with pytest.raises(ValueError):\n        got = tokens(-" in w.code
    results = {k: str(v.outcome) for k, v in store.witness_results(w.id).items()}
    assert results == {"reference": "pass", "null": "fail", "acme__toklike-1@good": "pass",
                       "acme__toklike-1@partial": "fail"}


@pytest.mark.slow
def test_an_unstable_value_is_never_asserted_and_witnesses_land_beside_the_test(audited):
    store, run_id = audited
    made = _amplified(store, run_id)
    (w,) = [w for w in made if "(3 -> 1)" in w.requirement]
    assert "assert len(got) == 1" in w.code
    assert "got[0] ==" not in w.code and "\n    got[0]\n" in w.code  # evaluated, not asserted
    assert all(w.path.startswith("tests/test_") and w.path.count("/") == 1 for w in made)
    assert len(made) <= repo_amplify.WITNESSES


@pytest.mark.slow
def test_the_budget_caps_variants_and_executions(audited, monkeypatch):
    """With a budget of 3 variants: 3 observed, in 3 executions (the reference twice, the null world once)."""
    store, run_id = audited
    task = store.get_task(run_id, "acme__toklike-1")
    service = ExecutionService(store, store.get_run(run_id))
    batches = []

    def execute(requests):
        batches.append(requests)
        return service.run(requests)

    monkeypatch.setattr(repo_amplify, "VARIANTS", 3)
    try:
        ctx = AuthorContext(task=task, trial=None, run_id=run_id, execute=execute,
                            world_request=lambda world, **kw: service.world_request(task, world, **kw),
                            read_file=lambda world, path: read_world_file(task, world, None, path))
        made = repo_amplify.amplified_candidates(ctx)
    finally:
        service.close()
    assert len(batches) == 1 and len(batches[0]) == repo_amplify.REFERENCE_RUNS + 1 == 3
    assert all("(3 variants)" in r.label for r in batches[0])
    assert 0 < len(made) <= 3


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["local", pytest.param("docker", marks=pytest.mark.docker)])
@pytest.mark.parametrize("style, folder", [("symlike", "symlike/core/tests/"), ("djlike", "tests/text_tests/")])
def test_amplified_witnesses_land_where_each_runner_collects_them(tmp_path, monkeypatch, style, folder, backend):
    """SymPy's bin/test and Django's runtests.py run the observing files and the witnesses alike, on
    the local and the docker backend;
    on SymPy the amplified ``sign(0.0)`` is the analyst's own witness."""
    monkeypatch.setenv("TESTJACK_CACHE", str(tmp_path / "cache"))
    data = build(tmp_path, [style])
    store = Store(tmp_path / "s.db")
    outcome = import_path(store, data, "swebench", repos=data / "repos", swebench_envs=tmp_path / "envs.toml")
    (task,) = store.list_tasks(outcome.run_id)
    service = ExecutionService(store, store.get_run(outcome.run_id), backend=backend)
    try:
        ctx = AuthorContext(task=task, trial=None, run_id=outcome.run_id, execute=service.run,
                            world_request=lambda world, **kw: service.world_request(task, world, **kw),
                            read_file=lambda world, path: read_world_file(task, world, None, path))
        made = repo_amplify.amplified_candidates(ctx)
        validated = Validator(store, service, NoneAuthor(), refinements=0).validate(
            ctx, made, Origin.TASK_ANALYSIS, None)
    finally:
        service.close()
    assert made and len(validated) == len(made)  # every one collected and passing on the reference
    assert all(w.path.startswith(folder) and w.path.count("/") == folder.count("/") for w in validated)
    if style == "symlike":
        assert any("assert sign(0.0) == 0" in w.code for w in validated)
    else:
        assert all("self.assertEqual(slug(" in w.code and "import pytest" not in w.code for w in validated)


def test_observations_are_written_back_in_the_originals_style():
    """``==`` a literal (a float through pytest.approx), ``is None``, truth, unittest's assertEqual."""
    fn = ast.parse(
        "def test_x(self):\n"
        "    assert area(2) == 12.56\n"
        "    assert find('a') is None\n"
        "    assert items()\n"
        "    self.assertEqual(name(), 'b')\n"
        "    self.assertIs(match('x'), True)\n").body[0]
    seen = Seen({0: [("float", "12.566370614359172", True)], 1: [("NoneType", "None", False)],
                 2: [("list", "[]", False)], 3: [("str", "'c'", True)], 4: [("bool", "False", False)]}, None, True)
    assert ast.unparse(render(fn, seen).fn).splitlines()[1:] == [
        "    assert area(2) == pytest.approx(12.566370614359172)",
        "    assert find('a') is None",
        "    assert not items()",
        "    self.assertEqual(name(), 'c')",
        "    self.assertIs(match('x'), False)"]


def test_an_exception_of_a_package_is_imported_by_name():
    """``sympy.core.sympify`` is a function in SymPy's namespace: the witness imports the class itself."""
    fn = ast.parse("def test_x():\n    value = parse('')\n    assert value == 1\n").body[0]
    shown = render(fn, Seen({}, (0, "SympifyError", "sympy.core.sympify"), True))
    assert shown.imports == ("from sympy.core.sympify import SympifyError",)
    assert "with pytest.raises(SympifyError):\n        value = parse('')" in ast.unparse(shown.fn)
