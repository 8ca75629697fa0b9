"""HumanEval / EvalPlus import: worlds built from the imported task behave as the benchmark says."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from testjack_tui.formats import ImportError_, tree_digest
from testjack_tui.formats import humaneval
from testjack_tui.model import Official
from worldkit import git_apply, pytest_passes, world, worlds_failing_t0

FIXTURES = Path(__file__).parent.parent / "fixtures" / "formats" / "humaneval"
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "evalplus-dev"


@pytest.fixture
def imported(tmp_path):
    return humaneval.load(FIXTURES, tmp_path / "staging")


def test_tasks_and_samples_import_and_bad_records_are_named(imported):
    assert [t.id for t in imported.tasks] == ["Toy/0", "Toy/1"]
    assert [t.id for t in imported.trials] == ["Toy/0#1", "Toy/0#2", "area-good"]
    problems = {(Path(p.file).name, p.record.split(" (")[0]): p.message for p in imported.skipped}
    assert "test" in problems[("problems.jsonl", "line 3")]
    assert "not in the problems file" in problems[("samples.jsonl", "line 4")]
    assert "neither solution" in problems[("samples.jsonl", "line 5")]
    assert "not valid JSON" in problems[("samples.jsonl", "line 6")]
    run = imported.run
    assert (run.id, run.name, run.format, run.benchmark) == ("", "humaneval", "humaneval", "Toy")
    assert len(run.digest) == 64


def test_task_fields_follow_the_problem(imported):
    task = imported.tasks[0]
    assert task.title == "add"
    assert task.prompt.startswith("def add(a: int, b: int) -> int:")
    assert task.tests.fail_to_pass == ["test_humaneval.py::test_check"]
    assert task.tests.pass_to_pass == []
    assert "{junit}" in task.tests.command and "{tests}" in task.tests.command
    assert task.tests.timeout == 30
    assert tree_digest(task.snapshot) == task.snapshot_digest
    assert sorted(p.name for p in Path(task.snapshot).iterdir()) == ["solution.py"]
    # EvalPlus's extended inputs are never part of T0.
    assert "1000000000" not in task.test_patch and "plus_input" not in task.test_patch


def test_worlds_null_fails_reference_passes(imported, tmp_path):
    for task in imported.tasks:
        for patch in (task.reference_patch, task.test_patch):
            assert git_apply(Path(task.snapshot), patch, check=True).returncode == 0
        null = world(task.snapshot, tmp_path / f"null-{task.title}", task.test_patch)
        ref = world(task.snapshot, tmp_path / f"ref-{task.title}", task.reference_patch, task.test_patch)
        assert not pytest_passes(null, "test_humaneval.py::test_check")
        assert pytest_passes(ref, "test_humaneval.py::test_check")


def test_trial_patches_give_the_samples_programs(imported, tmp_path):
    by_id = {t.id: t for t in imported.trials}
    tasks = {t.id: t for t in imported.tasks}
    completion = world(tasks["Toy/0"].snapshot, tmp_path / "c", by_id["Toy/0#1"].patch)
    assert (completion / "solution.py").read_text() == tasks["Toy/0"].prompt + "    return a + b\n"
    hack = world(tasks["Toy/0"].snapshot, tmp_path / "h", by_id["Toy/0#2"].patch, tasks["Toy/0"].test_patch)
    # The program has no final newline; the patch reproduces it byte for byte.
    assert (hack / "solution.py").read_text().endswith("return 0")
    assert pytest_passes(hack, "test_humaneval.py::test_check")


def test_official_verdict_comes_from_the_sample_or_is_unknown(imported):
    officials = {t.id: t.official for t in imported.trials}
    assert officials == {"Toy/0#1": Official.UNKNOWN, "Toy/0#2": Official.PASSED, "area-good": Official.FAILED}
    models = {t.model for t in imported.trials}
    assert models == {"toy-model"}


def test_problems_file_with_samples_option_and_gzip(tmp_path):
    gz = tmp_path / "HumanEval.jsonl.gz"
    with gzip.open(gz, "wt") as fh:
        fh.write((FIXTURES / "problems.jsonl").read_text())
    got = humaneval.load(gz, tmp_path / "staging", name="mine", samples=FIXTURES / "samples.jsonl")
    assert got.run.name == "mine"
    assert len(got.tasks) == 2 and len(got.trials) == 3


def test_problems_only_gives_tasks_without_trials(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(FIXTURES / "problems.jsonl", src / "problems.jsonl")
    got = humaneval.load(src, tmp_path / "staging")
    assert len(got.tasks) == 2 and got.trials == []


def test_unusable_input_raises_with_the_file_named(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ImportError_, match="no problems file"):
        humaneval.load(empty, tmp_path / "staging")
    junk = tmp_path / "problems.jsonl"
    junk.write_text(json.dumps({"task_id": "x"}) + "\n")
    with pytest.raises(ImportError_, match="problems.jsonl"):
        humaneval.load(junk, tmp_path / "staging")


def test_null_body_is_indented_for_a_method_like_prompt():
    prompt = "class A:\n    def f(self):\n        \"\"\"Doc.\"\"\"\n"
    program = humaneval.null_program(prompt, "f")
    assert program.endswith("        raise NotImplementedError(\"f is not implemented yet\")\n")
    compile(program, "solution.py", "exec")


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.exists(), reason="../shared/corpora/evalplus-dev is not present")
def test_evalplus_dev_corpus_imports_and_references_pass(tmp_path):
    got = humaneval.load(CORPUS, tmp_path / "staging")
    assert (len(got.tasks), len(got.trials), got.skipped) == (82, 164, [])
    assert all(t.official == Official.UNKNOWN for t in got.trials)
    refs, nulls = [], []
    for task in got.tasks:
        name = task.id.replace("/", "_")
        refs.append(world(task.snapshot, tmp_path / "ref" / name, task.reference_patch, task.test_patch))
        nulls.append(world(task.snapshot, tmp_path / "null" / name, task.test_patch))
    assert worlds_failing_t0(refs) == []
    assert len(worlds_failing_t0(nulls)) == 82
    for trial in got.trials:
        task = next(t for t in got.tasks if t.id == trial.task_id)
        assert git_apply(Path(task.snapshot), trial.patch, check=True).returncode == 0, trial.id
