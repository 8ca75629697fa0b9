"""SWE-bench tasks of four repository styles, imported and audited as the harness grades them.

SymPy's ``bin/test`` (a test file with an ungraded failing test), pytest with ids the harness's
parser cut at a space or that hold a ``/``, a ``src/`` layout, and Django's ``runtests.py``: T0
must agree with the harness's verdicts on every trial, and the analyst's witness must be placed
where the runner collects it, certify on the reference and refute the partial fix.
"""

from __future__ import annotations

import pytest

from testjack_tui.store import Store
from testjack_tui.review.manual import run_manual_on, validate_manual
from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.audit.execution import ExecutionService
from testjack_tui.audit.validation import Validator
from testjack_tui.authors.base import AuthorContext, Candidate
from testjack_tui.authors.base import NoneAuthor
from testjack_tui.formats.importing import import_path
from testjack_tui.model import Origin, RequirementKind, WitnessStatus

from swebench_layouts import ANALYST, STYLES, build


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    """The four styles imported into one store and T0 evaluated on every world (no author)."""
    root = tmp_path_factory.mktemp("swe")
    mp = pytest.MonkeyPatch()
    mp.setenv("TESTJACK_CACHE", str(root / "cache"))
    data = build(root)
    store = Store(root / "s.db")
    outcome = import_path(store, data, "swebench", repos=data / "repos", swebench_envs=root / "envs.toml")
    assert outcome.tasks == 4 and outcome.trials == 12, outcome.skipped
    assert Audit(store, outcome.run_id, AuditOptions(author="none", evidence=False, workers=2)).execute() == "done"
    yield store, outcome.run_id
    mp.undo()


def test_each_style_runs_its_own_runner_on_the_test_files(audited):
    store, run_id = audited
    tasks = {t.id.split("__")[1].removesuffix("-1"): t for t in store.list_tasks(run_id)}
    assert tasks["symlike"].tests.command.endswith("python bin/test -C --verbose symlike/core/tests/test_basic.py")
    assert tasks["djlike"].tests.command.endswith("--parallel 1 text_tests.tests")
    assert tasks["lintlike"].tests.command == "python -m pytest -p no:cacheprovider -rA tests/test_cli.py"
    assert tasks["flasklike"].tests.command.startswith("export PYTHONPATH=src:$PYTHONPATH && ")  # the src/ layout is on the path
    assert {t.tests.log_parser for t in tasks.values()} == {"swebench-sympy", "swebench-django", "swebench-pytest"}


def test_t0_agrees_with_the_harness_on_every_trial(audited):
    store, run_id = audited
    for task in store.list_tasks(run_id):
        assert task.malformed is False, (task.id, task.malformed_reason)
    got = {t.id: (t.official, t.recomputed) for t in store.list_trial_objects(run_id)}
    for trial, (official, recomputed) in got.items():
        expected = "failed" if trial.endswith("@broken") else "passed"
        assert (str(official), recomputed) == (expected, expected), trial


@pytest.mark.parametrize("style", list(STYLES))
def test_the_analyst_witness_is_placed_where_the_runner_looks_and_refutes_the_partial_fix(audited, style):
    store, run_id = audited
    iid = f"acme__{style}-1"
    made = validate_manual(store, run_id, f"{iid}@partial", STYLES[style]["statement"].splitlines()[-1],
                           "explicit", ANALYST[style])
    assert made.witness.status == WitnessStatus.VALIDATED, (made.message, made.log)
    assert made.outcomes == {"reference": "pass", "null": "fail"}
    folder = {"symlike": "symlike/core/tests/", "lintlike": "tests/", "flasklike": "tests/",
              "djlike": "tests/text_tests/"}[style]
    assert made.witness.path.startswith(folder) and made.witness.path.count("/") == folder.count("/")
    shared = run_manual_on(store, run_id, f"{iid}@partial", ANALYST[style], share=True)
    assert shared.outcomes == {f"{iid}@good": "pass", f"{iid}@partial": "fail"}


def test_a_witness_the_runner_does_not_collect_is_not_collected(audited):
    """At the root, SymPy's runner never looks at it; under Django's runner a pytest function finds nothing."""
    store, run_id = audited
    for style, path, code in (("symlike", "test_root_witness.py", ANALYST["symlike"] + "# at the root\n"),
                              ("djlike", "tests/text_tests/test_pytest_style.py",
                               "from djlike.text import slug\n\n\ndef test_x():\n    assert slug('A') == 'a'\n")):
        task = store.get_task(run_id, f"acme__{style}-1")
        service = ExecutionService(store, store.get_run(run_id))
        try:
            validator = Validator(store, service, NoneAuthor(), refinements=0)
            cand = Candidate(requirement="r", kind=RequirementKind.EXPLICIT, code=code, path=path)
            validator.validate(AuthorContext(task=task, trial=None, run_id=run_id), [cand], Origin.MANUAL, None)
        finally:
            service.close()
        (w,) = [w for w in store.list_witnesses(run_id, task.id) if w.path == path]
        assert w.status == WitnessStatus.NOT_COLLECTED, (w.status, w.discard_reason)
        assert w.discard_reason.startswith("not collected: the task's runner ran no test of " + path)
