"""Importing SWE-bench Pro records as released: fields, the instance's scripts, images, bad records."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from testjack_tui.formats import ImportError_, detect_format
from testjack_tui.formats.importing import import_path
from testjack_tui.model import Backend
from testjack_tui.store import Store
from testjack_tui.worlds.images import ready_image_of

from tests.audit.swebench_pro_layouts import INSTANCES, build, iid


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return build(tmp_path_factory.mktemp("pro"), styles=("calclike",))


def _import(tmp_path, data, **options):
    store = Store(tmp_path / "s.db")
    options.setdefault("repos", data / "repos")
    outcome = import_path(store, data, "auto", **options)
    return store, outcome


def test_a_release_layout_is_recognised_and_each_record_becomes_a_docker_task(tmp_path, data):
    assert detect_format(data) == "swebench_pro"
    store, outcome = _import(tmp_path, data)
    assert (outcome.format, outcome.tasks, outcome.trials, outcome.skipped) == ("swebench_pro", 1, 3, [])
    task = store.get_task(outcome.run_id, iid("calclike"))
    spec = INSTANCES["calclike"]
    assert task.tests.fail_to_pass == spec["fail_to_pass"] and task.tests.pass_to_pass == spec["pass_to_pass"]
    assert task.prompt.startswith(spec["statement"])
    assert "Requirements:\n" + spec["requirements"] in task.prompt and spec["interface"] in task.prompt
    assert task.environment.backend == Backend.DOCKER
    record = json.loads((data / "swebench_pro.jsonl").read_text().splitlines()[0])
    assert ready_image_of(task.environment.image) == f"jefzda/sweap-images:{record['dockerhub_tag']}"
    assert str(store.get_run(outcome.run_id).default_backend) == "docker"


def test_the_run_script_and_parser_travel_in_the_command_as_released(tmp_path, data):
    store, outcome = _import(tmp_path, data, image_repository="my/images")
    task = store.get_task(outcome.run_id, iid("calclike"))
    assert ready_image_of(task.environment.image).startswith("my/images:calclike-")
    shipped = [base64.b64decode(b).decode() for b in re.findall(r"echo '([A-Za-z0-9+/=]+)' \| base64 -d", task.tests.command)]
    scripts = data / "run_scripts" / iid("calclike")
    assert shipped == [(scripts / "run_script.sh").read_text(), (scripts / "parser.py").read_text()]
    assert 'run_script.sh" tests/test_clamp.py >' in task.tests.command  # the selected files, as the release passes them
    assert "git reset" not in task.tests.command  # before_repo_set_cmd is the test patch's job here
    assert task.tests.log_parser == "swebench-pro"
    assert sorted(p.name for p in Path(task.snapshot).rglob("*") if p.is_file()) == ["__init__.py", "clamp.py"]  # not in R


def test_an_instance_without_its_scripts_is_skipped_by_name(tmp_path, data):
    other = tmp_path / "scripts"
    other.mkdir()
    with pytest.raises(ImportError_) as err:
        _import(tmp_path, data, scripts=other)
    text = str(err.value)
    assert f"instance {iid('calclike')}: its run_script.sh" in text and "is missing" in text


def test_records_that_cannot_be_graded_are_named(tmp_path, data):
    record = json.loads((data / "swebench_pro.jsonl").read_text().splitlines()[0])
    bad = [dict(record, instance_id="no-tag", dockerhub_tag=""),
           dict(record, instance_id="no-f2p", fail_to_pass="[]"),
           dict(record, instance_id="odd-list", pass_to_pass="not a list")]
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "swebench_pro.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [record, *bad]))
    store = Store(tmp_path / "s.db")
    outcome = import_path(store, folder / "swebench_pro.jsonl", "swebench_pro", repos=data / "repos",
                          scripts=data / "run_scripts")
    assert outcome.tasks == 1
    why = {p.record: p.message for p in outcome.skipped}
    assert why["instance no-tag"] == "missing field(s): dockerhub_tag"
    assert why["instance no-f2p"].startswith("fail_to_pass is empty")
    assert why["instance odd-list"] == "pass_to_pass is not a list of test names"


def test_the_releases_own_patches_and_eval_results_are_read(tmp_path, data):
    """gather_patches.py's [{instance_id, patch, prefix}] and the evaluation's {instance_id: bool}."""
    preds = [json.loads(line) for line in (data / "predictions.jsonl").read_text().splitlines()]
    gathered = tmp_path / "sample1_patches.json"
    gathered.write_text(json.dumps([{"instance_id": p["instance_id"], "patch": p["model_patch"],
                                     "prefix": p["model_name_or_path"]} for p in preds[:2]]))
    results = tmp_path / "eval_results.json"
    results.write_text(json.dumps({iid("calclike"): True}))
    store = Store(tmp_path / "s.db")
    outcome = import_path(store, data / "swebench_pro.jsonl", "swebench_pro", predictions=gathered, report=results,
                          repos=data / "repos")
    trials = {t.id: t for t in store.list_trial_objects(outcome.run_id)}
    assert sorted(trials) == [f"{iid('calclike')}@good", f"{iid('calclike')}@partial"]
    good = trials[f"{iid('calclike')}@good"]
    assert (good.model, str(good.official), good.error) == ("good", "passed", "")
    assert good.patch == preds[0]["model_patch"]
