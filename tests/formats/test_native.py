"""The native run format: a good run imports once; bad input names its file and line and imports nothing."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from testjack_tui.store import Store
from testjack_tui.cli import main
from testjack_tui.formats import ImportError_
from testjack_tui.formats.importing import import_path

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "sample_runs" / "mini"
TOOLBOX = ROOT / "sample_runs" / "toolbox"


@pytest.fixture
def run_copy(tmp_path: Path) -> Path:
    dest = tmp_path / "run"
    shutil.copytree(MINI, dest)
    return dest


def problems(store: Store, path: Path) -> str:
    with pytest.raises(ImportError_) as info:
        import_path(store, path)
    assert store.list_runs() == []  # nothing imported half-way
    return str(info.value)


def test_the_sample_runs_import_with_every_task_and_trial(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.db")
    outcome = import_path(s, TOOLBOX)
    assert outcome.created and outcome.format == "native"
    lines = [json.loads(l) for l in (TOOLBOX / "trials.jsonl").read_text().splitlines() if l.strip()]
    assert len(s.list_trial_objects(outcome.run_id)) == len(lines)
    assert {t.id for t in s.list_tasks(outcome.run_id)} == {p.name for p in (TOOLBOX / "tasks").iterdir()}
    task = s.list_tasks(outcome.run_id)[0]
    assert task.prompt and task.reference_patch.startswith("diff --git") and task.tests.graded


def test_importing_the_same_run_twice_does_not_duplicate_it(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.db")
    first = import_path(s, MINI)
    second = import_path(s, MINI)
    assert (first.run_id, first.created) == (second.run_id, True) or second.created is False
    assert second.created is False and len(s.list_runs()) == 1
    assert len(s.list_trial_objects(first.run_id)) == 4


def test_a_changed_run_with_the_same_name_is_refused_unless_renamed(tmp_path: Path, run_copy: Path) -> None:
    s = Store(tmp_path / "s.db")
    import_path(s, MINI)
    (run_copy / "tasks" / "chunk" / "prompt.md").write_text("A different prompt.\n")
    from testjack_tui.store import StoreError

    with pytest.raises(StoreError, match="already in the store with different content"):
        import_path(s, run_copy)
    assert import_path(s, run_copy, name="mini-v2").run_id == "mini-v2"


def test_a_missing_prompt_is_named(tmp_path: Path, run_copy: Path) -> None:
    (run_copy / "tasks" / "chunk" / "prompt.md").unlink()
    assert "tasks/chunk/prompt.md: missing" in problems(Store(tmp_path / "s.db"), run_copy)


def test_a_trial_naming_an_unknown_task_is_named_with_its_line(tmp_path: Path, run_copy: Path) -> None:
    lines = (run_copy / "trials.jsonl").read_text().splitlines()
    lines[2] = lines[2].replace('"task": "chunk"', '"task": "chunks"')
    (run_copy / "trials.jsonl").write_text("\n".join(lines) + "\n")
    text = problems(Store(tmp_path / "s.db"), run_copy)
    assert "trials.jsonl: line 3: trial 'chunk-t3' names unknown task 'chunks'" in text


def test_malformed_json_is_named_with_its_line(tmp_path: Path, run_copy: Path) -> None:
    lines = (run_copy / "trials.jsonl").read_text().splitlines()
    lines[1] = lines[1][:-5]
    (run_copy / "trials.jsonl").write_text("\n".join(lines) + "\n")
    assert "trials.jsonl: line 2: malformed JSON" in problems(Store(tmp_path / "s.db"), run_copy)


def test_a_duplicate_trial_id_is_named_with_both_lines(tmp_path: Path, run_copy: Path) -> None:
    lines = (run_copy / "trials.jsonl").read_text().splitlines()
    lines.append(lines[0])
    (run_copy / "trials.jsonl").write_text("\n".join(lines) + "\n")
    assert "line 5: duplicate trial id 'chunk-t1' (first on line 1)" in problems(Store(tmp_path / "s.db"), run_copy)


def test_a_missing_patch_file_and_a_bad_verdict_are_named(tmp_path: Path, run_copy: Path) -> None:
    (run_copy / "trials" / "chunk-t2.patch").unlink()
    lines = (run_copy / "trials.jsonl").read_text().splitlines()
    lines[0] = lines[0].replace('"official": "passed"', '"official": "ok"')
    (run_copy / "trials.jsonl").write_text("\n".join(lines) + "\n")
    text = problems(Store(tmp_path / "s.db"), run_copy)
    assert "line 1: official must be" in text and "line 2: cannot read patch" in text


def test_bad_toml_and_a_missing_repo_are_named(tmp_path: Path, run_copy: Path) -> None:
    (run_copy / "tasks" / "chunk" / "task.toml").write_text("id = 'chunk'\n[tests\n")
    shutil.rmtree(run_copy / "tasks" / "chunk" / "repo")
    text = problems(Store(tmp_path / "s.db"), run_copy)
    assert "task.toml: malformed TOML" in text and "repo: missing" in text


def test_the_cli_exits_2_naming_the_file_and_imports_nothing(tmp_path: Path, run_copy: Path, capsys) -> None:
    (run_copy / "tasks" / "chunk" / "prompt.md").unlink()
    db = tmp_path / "s.db"
    assert main(["import", str(run_copy), "--store", str(db)]) == 2
    assert "prompt.md: missing" in capsys.readouterr().err
    assert Store(db).list_runs() == []


def test_the_cli_imports_and_reports_json(tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "s.db")
    assert main(["import", str(MINI), "--store", db]) == 0
    assert capsys.readouterr().out.strip() == "mini"
    assert main(["report", "mini", "--format", "json", "--store", db]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["schema"] == "testjack.report/1"
    assert report["summary"]["trials"] == 4 and report["summary"]["passing"] == 3
    assert {t["verdict"] for t in report["trials"]} == {"unaudited", "not_passing"}
    assert [t["id"] for t in report["tasks"]] == ["chunk"]


def _big_run(base: Path, trials: int) -> Path:
    run = base / "big"
    shutil.copytree(MINI, run)
    (run / "run.toml").write_text((run / "run.toml").read_text().replace('name = "mini"', 'name = "big"'))
    with open(run / "trials.jsonl", "w") as fh:
        for i in range(trials):
            fh.write(json.dumps({"id": f"t{i}", "task": "chunk", "model": f"m{i % 7}", "agent": "a",
                                 "patch": "trials/chunk-t1.patch", "official": "passed"}) + "\n")
    return run


def test_kill_9_during_an_import_leaves_all_or_nothing(tmp_path: Path) -> None:
    run = _big_run(tmp_path, 30000)
    db = tmp_path / "s.db"
    Store(db).close()
    proc = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from store import Store; from testjack_tui.formats.importing import import_path;"
         "s = Store(sys.argv[1]); print('go', flush=True); import_path(s, sys.argv[2]); print('done', flush=True)",
         str(db), str(run)],
        stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )
    assert proc.stdout.readline().strip() == "go"  # the import has started
    staging = Path(str(db) + ".files") / "staging"
    while not (staging.exists() and any(staging.iterdir())) and proc.poll() is None:
        pass  # wait for the event "snapshots are being staged"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    s = Store(db)
    assert s.integrity_check() == "ok"
    runs = s.list_runs()
    assert runs == [] or len(s.list_trial_objects(runs[0].id)) == 30000
    outcome = import_path(s, run)  # and a second try completes
    assert len(s.list_trial_objects(outcome.run_id)) == 30000


def test_a_log_parser_is_read_from_task_toml_and_an_unknown_one_is_named(tmp_path: Path, run_copy: Path) -> None:
    toml = run_copy / "tasks" / "chunk" / "task.toml"
    toml.write_text(toml.read_text().replace("timeout = 60", 'timeout = 60\nlog_parser = "pytest-log"'))
    s = Store(tmp_path / "s.db")
    import_path(s, run_copy, name="logged")
    assert s.get_task("logged", "chunk").tests.log_parser == "pytest-log"  # kept through the store

    toml.write_text(toml.read_text().replace('"pytest-log"', '"nose"'))
    text = problems(Store(tmp_path / "other.db"), run_copy)
    assert "task.toml" in text and "nose" in text
