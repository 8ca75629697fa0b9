"""Harbor tasks end to end on a real Docker engine: the task's image is built from its Dockerfile,
T0 reads the reward file, witnesses run in the container, and a user sees the right verdicts.

The fixture (tests/fixtures/harbor_docker) is a task whose Dockerfile installs a small library from
its build context, and a job with two trials that both got reward 1: one correct, one that drops
the case ``count_words(None) == 0`` the instruction states. When no engine answers these tests fail
under CI=true and are skipped elsewhere (as in test_docker_backend).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import docker
import pytest

from testjack_tui.store import Store
from testjack_tui.audit.engine import Audit, AuditOptions
from testjack_tui.authors.base import NoneAuthor
from testjack_tui.formats import harbor
from testjack_tui.formats.importing import import_path
from testjack_tui.report.build import build_report
from testjack_tui.model import Mode
from testjack_tui.worlds import run_request
from testjack_tui.worlds.images import MAP_VARIABLE, ENV_REPOSITORY
from testjack_tui.worlds.request import ExecRequest

from tests.worlds.conftest import OneWitnessAuthor

pytestmark = pytest.mark.docker

FIXTURES = Path(__file__).parent.parent / "fixtures"
WORDCOUNT = FIXTURES / "harbor_docker"
GREET = FIXTURES / "formats" / "harbor"  # FROM python:3.11-slim, which this engine lacks
# An analyst's witness for the clause P states about a missing text.
MISSING_TEXT = OneWitnessAuthor(
    "a missing text has no words: count_words(None) == 0", "tests/test_tj_missing_text.py",
    "from words import count_words\n\n\ndef test_missing_text_has_no_words():\n    assert count_words(None) == 0\n")


def _imported(tmp_path: Path, source: Path) -> tuple[Store, str]:
    store = Store(tmp_path / "s.db")
    return store, import_path(store, source, "harbor", name=source.name).run_id


def _audit(store: Store, run_id: str, author=None, **options) -> dict:
    """Audit as `testjack audit --workers 2` does (no evidence: faster); the report a user reads."""
    options = AuditOptions(mode=Mode.LIGHTWEIGHT, workers=2, evidence=False, **options)
    Audit(store, run_id, options, author=author or NoneAuthor()).execute()
    return build_report(store, run_id)


def test_task_image_is_built_once_from_the_dockerfile_and_reused(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("TESTJACK_CACHE", str(tmp_path / "cache"))
    task = harbor.load(WORDCOUNT, tmp_path / "staging").tasks[0]
    assert task.environment.image == "build:Dockerfile#wordcount"
    request = ExecRequest(snapshot=task.snapshot, snapshot_digest=task.snapshot_digest,
                          command="python3 -c 'import textstats; print(textstats.__file__)'",
                          backend="docker", image=task.environment.image, timeout=60)
    first = run_request(request)
    assert first.ran and first.exit_code == 0, first.message + first.stderr
    # the library the Dockerfile installs is there: this is the task's image, not the base image
    assert first.stdout.strip() == "/usr/lib/python3/dist-packages/textstats.py"
    tags = [t for i in engine.images.list(ENV_REPOSITORY) for t in i.tags]
    built = [t for t in tags if engine.images.get(t).labels.get("org.testjack.env") == "1"]
    assert built, tags
    second = run_request(request)
    assert second.ran and second.exit_code == 0
    assert sorted(t for i in engine.images.list(ENV_REPOSITORY) for t in i.tags) == sorted(tags)


def test_t0_reward_and_a_witness_give_the_verdicts_a_user_sees(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("TESTJACK_CACHE", str(tmp_path / "cache"))
    store, run_id = _imported(tmp_path, WORDCOUNT)
    report = _audit(store, run_id, MISSING_TEXT)
    task = report["tasks"][0]
    # the oracle's reward is 1 in 3 of 3 runs, the null world's is 0: the task is sound
    assert (task["id"], task["malformed"], task["null_passing_tests"]) == ("wordcount", False, [])
    (witness,) = report["witnesses"]
    assert witness["results"] == {"reference": "pass", "null": "fail",
                                  "wordcount__good": "pass", "wordcount__lazy": "fail"}
    verdicts = {t["id"]: (t["official"], t["verdict"], t["witnesses"]) for t in report["trials"]}
    assert verdicts == {
        "wordcount__good": ("passed", "sound", []),
        "wordcount__lazy": ("passed", "refuted", [witness["id"]]),
    }
    assert report["summary"]["refuted"] == 1 and report["summary"]["resolution_after"] == 0.5


def test_t0_recomputes_an_unknown_official_result_from_the_reward(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("TESTJACK_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "bench"
    shutil.copytree(WORDCOUNT, source)
    for trial in ("wordcount__good", "wordcount__lazy"):  # the job lost its rewards
        (source / "jobs/job-1" / trial / "result.json").write_text(
            f'{{"task_name": "wordcount", "trial_name": "{trial}"}}')
        (source / "jobs/job-1" / trial / "verifier/reward.txt").unlink()
    (source / "jobs/job-1/wordcount__lazy/final/words.py").write_text(
        "def count_words(text):\n    return 0\n")  # now it fails the official test
    store, run_id = _imported(tmp_path, source)
    report = _audit(store, run_id)
    got = {t["id"]: (t["official"], t["verdict"]) for t in report["trials"]}
    assert got == {"wordcount__good": ("passed", "unaudited"),
                   "wordcount__lazy": ("failed", "not_passing")}


def test_a_missing_from_image_is_named_with_how_to_provide_or_map_it(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("TESTJACK_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(MAP_VARIABLE, raising=False)
    try:
        engine.images.get("python:3.11-slim")
        pytest.skip("this engine has python:3.11-slim; the fixture's FROM image is not missing")
    except docker.errors.ImageNotFound:
        pass
    store, run_id = _imported(tmp_path, GREET)
    task = _audit(store, run_id)["tasks"][0]
    assert task["malformed"]
    reason = task["malformed_reason"]
    assert reason.count("python:3.11-slim, which is not on this Docker engine") == 1  # once per task
    assert "task greet: the Dockerfile of its environment" in reason
    assert "docker pull python:3.11-slim" in reason and "docker tag LOCAL-IMAGE python:3.11-slim" in reason
    assert f'{MAP_VARIABLE}="python:3.11-slim=testjack/base:bookworm"' in reason

    # following the message's advice makes the task run, in the same store: the failed set-up was
    # not kept, so the next audit evaluates the task again and the oracle passes T0 on the base image
    monkeypatch.setenv(MAP_VARIABLE, "python:3.11-slim=testjack/base:bookworm")
    report = _audit(store, run_id)
    assert report["tasks"][0]["malformed"] is False
    assert {t["id"]: t["official"] for t in report["trials"]}["greet__a1"] == "passed"


def test_a_failing_build_names_the_task_and_shows_the_log(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("TESTJACK_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "bench"
    shutil.copytree(WORDCOUNT, source)
    dockerfile = source / "tasks/wordcount/environment/Dockerfile"
    dockerfile.write_text(dockerfile.read_text() + "RUN echo compiling && exit 7\n")
    store, run_id = _imported(tmp_path, source)
    task = _audit(store, run_id)["tasks"][0]
    reason = task["malformed_reason"]
    assert "building task wordcount: the Dockerfile of its environment failed" in reason
    assert "returned a non-zero code: 7" in reason and "compiling" in reason  # the log's tail


def test_the_local_backend_says_harbor_tasks_need_docker(tmp_path, monkeypatch):
    """No engine needed: --backend local refuses each Harbor task with one clear message."""
    monkeypatch.setenv("TESTJACK_CACHE", str(tmp_path / "cache"))
    store, run_id = _imported(tmp_path, WORDCOUNT)
    report = _audit(store, run_id, backend="local")
    (task,) = report["tasks"]
    assert task["malformed_reason"] == (
        "the reference world does not run (setup_failed: task wordcount: Harbor tasks need the "
        "docker backend (the environment is a Dockerfile, which only the docker backend builds "
        "and runs); audit with --backend docker and a running Docker engine)")
    assert {t["verdict"] for t in report["trials"]} == {"unaudited"}
