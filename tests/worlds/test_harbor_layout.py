"""A Harbor task written for Harbor's own layout runs as Harbor runs it, on a real Docker engine.

The fixture (tests/fixtures/harbor_layout) is written like a Terminal-Bench task: its Dockerfile
sets ``WORKDIR /app`` and copies a program there (and makes a data file the task's files do not
hold); ``tests/test.sh`` runs ``python3 -m pytest /tests/test_outputs.py`` and writes
``/logs/verifier/reward.txt``; ``solution/solve.sh`` edits ``stats.py`` relative to the working
directory. The job has a correct trial (its final state) and a wrong one (a patch; reward 0).
The task written with paths relative to the world is test_harbor_docker's.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from testjack_tui.store import Store
from testjack_tui.audit.engine import Audit, AuditOptions
from testjack_tui.formats import harbor
from testjack_tui.formats.importing import import_path
from testjack_tui.model import Mode
from testjack_tui.report.build import build_report
from testjack_tui.worlds import run_request
from testjack_tui.worlds.docker_backend import BASE_IMAGE
from testjack_tui.worlds.images import task_layout
from testjack_tui.worlds.request import ExecRequest, Patch

from tests.worlds.conftest import OneWitnessAuthor

pytestmark = pytest.mark.docker

MEANSTAT = Path(__file__).parent.parent / "fixtures" / "harbor_layout"

# Where everything is, as the world's commands see it (one line each, easy to compare).
PROBE = r"""echo "cwd=$(pwd)"
echo "uid=$(id -u)"
echo "app=$(cd /app && ls | tr '\n' ' ')"
echo "tests=$(ls /tests 2>/dev/null | tr '\n' ' ')"
echo "solution=$(ls /solution 2>/dev/null | tr '\n' ' ')"
mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt && echo logs=writable
"""


# An analyst's witness that imports the program from the world (pytest from the world's root).
MEAN_OF_TWO = OneWitnessAuthor(
    "the mean of 1 and 2 is 1.5", "tests/test_tj_mean.py",
    "from stats import mean\n\n\ndef test_mean_of_two():\n    assert mean([1.0, 2.0]) == 1.5\n")


def _probe(task, patches: tuple[Patch, ...]) -> dict[str, str]:
    request = ExecRequest(snapshot=task.snapshot, snapshot_digest=task.snapshot_digest,
                          patches=patches, command=PROBE, backend="docker",
                          image=task.environment.image, timeout=60)
    result = run_request(request)
    assert result.ran and result.exit_code == 0, result.message + result.stderr
    return dict(line.split("=", 1) for line in result.stdout.splitlines())


def test_the_world_is_where_harbor_puts_the_files(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("TESTJACK_CACHE", str(tmp_path / "cache"))
    task = harbor.load(MEANSTAT, tmp_path / "staging").tasks[0]
    tests = Patch("tests", task.test_patch)
    reference = _probe(task, (Patch("reference", task.reference_patch), tests))
    # the image's WORKDIR holds the world laid over what the image made there (numbers.txt);
    # the task's tests and oracle are also at /tests and /solution; Harbor runs as the image's user
    assert reference == {
        "cwd": "/app", "uid": "0",
        "app": "Dockerfile numbers.txt solution stats.py tests ",
        "tests": "test.sh test_outputs.py ",
        "solution": "solve.sh ",
        "logs": "writable",
    }
    null = _probe(task, (tests,))
    assert null["solution"] == "" and null["tests"] == "test.sh test_outputs.py "


def test_an_image_without_workdir_puts_the_world_at_app(engine):
    assert engine.images.get(BASE_IMAGE).attrs["Config"].get("WorkingDir", "") == ""
    assert task_layout(engine, BASE_IMAGE).workdir == "/app"


def test_t0_and_a_witness_run_in_harbors_layout(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("TESTJACK_CACHE", str(tmp_path / "cache"))
    store = Store(tmp_path / "s.db")
    run_id = import_path(store, MEANSTAT, "harbor", name="meanstat").run_id
    # evidence on: coverage and mutants run in this layout too, and must not break the audit
    Audit(store, run_id, AuditOptions(mode=Mode.LIGHTWEIGHT, workers=2),
          author=MEAN_OF_TWO).execute()
    report = build_report(store, run_id)

    (task,) = report["tasks"]
    assert (task["malformed"], task["null_passing_tests"]) == (False, [])
    with sqlite3.connect(tmp_path / "s.db") as db:
        t0 = {label: json.loads(outcomes) for label, outcomes in db.execute(
            "SELECT label, json_extract(result, '$.outcomes') FROM executions "
            "WHERE run_id = ? AND label LIKE 'T0 %'", (run_id,))}
    assert t0 == {
        "T0 meanstat reference #1": {"reward": "pass"},  # the oracle's reward, 3 of 3
        "T0 meanstat reference #2": {"reward": "pass"},
        "T0 meanstat reference #3": {"reward": "pass"},
        "T0 meanstat null": {"reward": "fail"},
        "T0 meanstat model meanstat__right": {"reward": "pass"},
        "T0 meanstat model meanstat__wrong": {"reward": "fail"},
    }
    trials = {t["id"]: (t["official"], t["recomputed"], t["verdict"], t["error"])
              for t in report["trials"]}
    assert trials == {
        "meanstat__right": ("passed", "passed", "sound", ""),
        "meanstat__wrong": ("failed", "failed", "not_passing", ""),
    }
    (witness,) = report["witnesses"]
    assert witness["results"] == {"reference": "pass", "null": "fail", "meanstat__right": "pass"}


def test_a_ready_made_image_named_in_task_toml_gets_the_same_layout(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("TESTJACK_CACHE", str(tmp_path / "cache"))
    task_dir = tmp_path / "tasks" / "meanstat"
    shutil.copytree(MEANSTAT / "tasks" / "meanstat", task_dir)
    toml = task_dir / "task.toml"
    toml.write_text(toml.read_text() + f'docker_image = "{BASE_IMAGE}"\n')
    task = harbor.load(task_dir, tmp_path / "staging").tasks[0]
    probe = _probe(task, (Patch("reference", task.reference_patch), Patch("tests", task.test_patch)))
    # the base image has no WORKDIR and no numbers.txt: the world alone at /app, tests and oracle too
    assert probe["cwd"] == "/app" and "stats.py" in probe["app"] and "numbers.txt" not in probe["app"]
    assert probe["tests"] == "test.sh test_outputs.py " and probe["solution"] == "solve.sh "

    toml.write_text(toml.read_text().replace(BASE_IMAGE, "registry.example/never-pulled:1"))
    task = harbor.load(task_dir, tmp_path / "staging2").tasks[0]
    result = run_request(ExecRequest(snapshot=task.snapshot, snapshot_digest=task.snapshot_digest,
                                     command="true", backend="docker", image=task.environment.image))
    assert result.status == "setup_failed"
    assert "task meanstat: its environment runs in registry.example/never-pulled:1" in result.message
    assert "images are never pulled" in result.message
