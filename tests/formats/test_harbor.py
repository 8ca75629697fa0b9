"""Harbor import: tasks and a job directory written for these tests; no Docker needed to import."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from testjack_tui.formats import ImportError_, tree_digest
from testjack_tui.formats import harbor
from testjack_tui.model import Backend, Official
from worldkit import git_apply, pytest_passes, world

FIXTURES = Path(__file__).parent.parent / "fixtures" / "formats" / "harbor"


@pytest.fixture
def imported(tmp_path):
    return harbor.load(FIXTURES, tmp_path / "staging")


def test_tasks_trials_and_problems(imported):
    assert [t.id for t in imported.tasks] == ["greet"]
    task = imported.tasks[0]
    assert task.environment.backend == Backend.DOCKER and imported.run.default_backend == Backend.DOCKER
    assert task.title == "Make greet.py greet by name"
    assert task.prompt.startswith("# Make greet.py")
    assert task.tests.timeout == 60.0 and task.tests.fail_to_pass == ["reward"]
    assert sorted(p.name for p in Path(task.snapshot).iterdir()) == ["Dockerfile", "greet.py"]
    assert tree_digest(task.snapshot) == task.snapshot_digest
    where = {p.record: p.message for p in imported.skipped}
    assert where["task no-tests"] == "tests/ is missing"
    assert "'ghost' is not among the imported tasks" in where["trial ghost__d4"]
    assert imported.run.format == "harbor" and imported.run.name == "harbor"


def test_reward_sets_official_and_agent_model(imported):
    got = {t.id: (t.official, t.agent, t.model) for t in imported.trials}
    assert got == {
        "greet__a1": (Official.PASSED, "terminus-2", "toy-model"),
        "greet__b2": (Official.FAILED, "terminus-2", "toy-model"),
        "greet__c3": (Official.UNKNOWN, "", ""),
    }
    c3 = next(t for t in imported.trials if t.id == "greet__c3")
    assert c3.patch == "" and "neither a patch nor the final state" in c3.error


def test_patch_and_final_state_become_model_worlds(imported, tmp_path):
    task = imported.tasks[0]
    trials = {t.id: t for t in imported.trials}
    a1 = world(task.snapshot, tmp_path / "a1", trials["greet__a1"].patch)
    assert "sys.argv[1]" in (a1 / "greet.py").read_text()
    b2 = world(task.snapshot, tmp_path / "b2", trials["greet__b2"].patch)
    assert (b2 / "greet.py").read_text() == 'print("Hi!")\n'
    assert (b2 / "Dockerfile").read_text() == (Path(task.snapshot) / "Dockerfile").read_text()


def test_oracle_world_passes_the_tests_and_null_world_fails(imported, tmp_path):
    task = imported.tasks[0]
    for patch in (task.reference_patch, task.test_patch):
        assert git_apply(Path(task.snapshot), patch, check=True).returncode == 0
    ref = world(task.snapshot, tmp_path / "ref", task.reference_patch, task.test_patch)
    assert (ref / "solution" / "solve.sh").stat().st_mode & 0o111  # the script stays executable
    subprocess.run(["bash", "solution/solve.sh"], cwd=ref, check=True)
    assert pytest_passes(ref, "tests/test_outputs.py")
    null = world(task.snapshot, tmp_path / "null", task.test_patch)
    assert not pytest_passes(null, "tests/test_outputs.py")


def test_tasks_and_jobs_options_and_missing_tasks(tmp_path):
    got = harbor.load(FIXTURES / "tasks" / "greet", tmp_path / "s1", jobs=FIXTURES / "jobs" / "job-1")
    assert [t.id for t in got.tasks] == ["greet"] and len(got.trials) == 3
    with pytest.raises(ImportError_, match="no Harbor task"):
        harbor.load(FIXTURES / "jobs", tmp_path / "s2")
