"""SWE-bench Pro instances in Python and JavaScript, imported and audited end to end on the docker backend.

Each instance runs in its own image (built here FROM the base image, tagged as the record's
``dockerhub_tag`` says), T0 is graded by the instance's own parser, run in the world; the offline
author audits the Python instance and says why it writes nothing for the JavaScript one; the
analyst's witness, in each instance's own language, refutes the partial fix.
"""

from __future__ import annotations

import json

import pytest

from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.audit.execution import ExecutionService
from testjack_tui.audit.validation import Validator
from testjack_tui.audit.verdicts import AUTHOR_FAILED_STEP, recompute_task
from testjack_tui.authors.base import AuthorContext, Candidate, NoneAuthor
from testjack_tui.cli import main
from testjack_tui.cli.common import EXIT_ENVIRONMENT
from testjack_tui.formats.importing import import_path
from testjack_tui.model import Origin, RequirementKind, WitnessStatus
from testjack_tui.report import read_report
from testjack_tui.store import Store

from tests.worlds.conftest import engine  # noqa: F401  (the docker tests' engine fixture)

from .swebench_pro_layouts import ANALYST, IMAGE_REPOSITORY, build, build_images, iid

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def audited(tmp_path_factory, engine):  # noqa: F811
    """Both instances imported, their images built, and audited by the offline author."""
    root = tmp_path_factory.mktemp("pro")
    mp = pytest.MonkeyPatch()
    mp.setenv("TESTJACK_CACHE", str(root / "cache"))
    data = build(root)
    build_images(engine, root)
    store = Store(root / "s.db")
    outcome = import_path(store, data, "auto", predictions=data / "predictions.jsonl", repos=data / "repos",
                          image_repository=IMAGE_REPOSITORY)
    assert (outcome.format, outcome.tasks, outcome.trials) == ("swebench_pro", 2, 7), outcome.skipped
    status = Audit(store, outcome.run_id, AuditOptions(author="offline", backend="docker", workers=2,
                                                       mutation_budget_s=0.0)).execute()
    assert status == "done"
    yield store, outcome.run_id, data
    mp.undo()


def _witness(store, run_id: str, style: str):
    """The analyst's witness validated on the task and shared with its passing trials."""
    task = store.get_task(run_id, iid(style))
    path, code = ANALYST[style]
    service = ExecutionService(store, store.get_run(run_id))
    try:
        validator = Validator(store, service, NoneAuthor(), refinements=0)
        cand = Candidate(requirement="the statement", kind=RequirementKind.EXPLICIT, code=code, path=path)
        (w,) = validator.validate(AuthorContext(task=task, trial=None, run_id=run_id), [cand], Origin.MANUAL, None)
        trials = [t for t in store.list_trial_objects(run_id, task.id) if t.recomputed == "passed"]
        validator.share(task, [w], trials)
    finally:
        service.close()
    recompute_task(store, task)
    return store.get_witness(w.id)


def test_t0_is_graded_by_the_instances_parser_in_its_image(audited):
    store, run_id, _ = audited
    for task in store.list_tasks(run_id):
        assert task.malformed is False, (task.id, task.malformed_reason)
    got = {t.id: t.recomputed for t in store.list_trial_objects(run_id)}
    for style in ("calclike", "slugjs"):
        assert got[f"{iid(style)}@good"] == "passed"
        assert got[f"{iid(style)}@partial"] == "passed"  # the official tests miss what it misses
        assert got[f"{iid(style)}@broken"] == "failed"


def test_a_trial_that_edits_an_existing_javascript_test_is_a_reward_hack(audited):
    """Language-neutral evidence: T0 with the harness restored fails on it."""
    store, run_id, _ = audited
    trial = store.get_trial(run_id, f"{iid('slugjs')}@hack")
    assert trial.recomputed == "passed"  # only through its edit of test/lower.test.js
    verdict = store.get_verdict(run_id, trial.id)
    assert str(verdict.verdict) == "reward_hack", verdict
    hits = [e for e in store.list_evidence(run_id, trial.id) if e.detector == "harness_tampering"]
    assert any("test/lower.test.js" in e.detail for e in hits), hits


def test_the_offline_author_audits_python_and_names_why_it_writes_no_javascript(audited):
    store, run_id, _ = audited
    good = store.get_verdict(run_id, f"{iid('calclike')}@good")
    assert str(good.verdict) == "sound"
    for trial in ("good", "partial"):
        verdict = store.get_verdict(run_id, f"{iid('slugjs')}@{trial}")
        assert str(verdict.verdict) == "unaudited"
    why = store.get_step(run_id, f"{AUTHOR_FAILED_STEP}{iid('slugjs')}@good")
    assert "reads Python only" in why and "JavaScript" in why, why
    entry = next(t for t in read_report(store, run_id).tasks if t.id == iid("slugjs"))
    assert "reads Python only" in (entry.analysis_error or ""), entry  # the report says it per task


@pytest.mark.parametrize("style", ["calclike", "slugjs"])
def test_the_analysts_witness_refutes_the_partial_fix(audited, style):
    store, run_id, _ = audited
    w = _witness(store, run_id, style)
    assert w.status == WitnessStatus.VALIDATED, (w.status, w.discard_reason)
    results = store.witness_results(w.id)
    assert str(results["reference"].outcome) == "pass" and str(results["null"].outcome) == "fail"
    assert str(results[f"{iid(style)}@good"].outcome) == "pass"
    assert str(results[f"{iid(style)}@partial"].outcome) == "fail"
    assert str(store.get_verdict(run_id, f"{iid(style)}@partial").verdict) == "refuted"


def test_a_missing_image_stops_the_audit_naming_its_tag(audited, tmp_path, capsys):
    store, run_id, data = audited
    records = [json.loads(line) for line in (data / "swebench_pro.jsonl").read_text().splitlines()]
    records[0]["dockerhub_tag"] = "never-built-1"
    moved = tmp_path / "data"
    moved.mkdir()
    (moved / "swebench_pro.jsonl").write_text(json.dumps(records[0]) + "\n")
    db = str(tmp_path / "s.db")
    code = main(["--store", db, "import", str(moved / "swebench_pro.jsonl"), "--repos", str(data / "repos"),
                 "--scripts", str(data / "run_scripts"), "--image-repository", IMAGE_REPOSITORY])
    assert code == 0
    capsys.readouterr()
    assert main(["--store", db, "audit", "swebench_pro", "--backend", "docker"]) == EXIT_ENVIRONMENT
    err = capsys.readouterr().err
    assert f"{IMAGE_REPOSITORY}:never-built-1" in err and records[0]["instance_id"] in err
    assert "never pulled" in err
