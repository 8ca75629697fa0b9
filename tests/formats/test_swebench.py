"""SWE-bench import from a local clone: R at base_commit, patches that apply, verdicts from the report."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from testjack_tui.formats import ImportError_, tree_digest
from testjack_tui.formats import swebench
from testjack_tui.model import Backend, Official
from worldkit import git_apply, pytest_passes, world

BUGGY = "def mean(xs):\n    return sum(xs) / len(xs)\n"
FIXED = "def mean(xs):\n    if not xs:\n        return 0.0\n    return sum(xs) / len(xs)\n"
TEST = (
    "from calc import mean\n\n\n"
    "def test_mean():\n    assert mean([1, 3]) == 2\n\n\n"
    "def test_empty():\n    assert mean([]) == 0.0\n"
)


def git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def diff_of(clone: Path, a: str, b: str, *paths: str) -> str:
    return git(clone, "diff", a, b, "--", *paths)


@pytest.fixture
def bench(tmp_path):
    """A clone acme__calc with base and fix commits, a dataset row, predictions and a report."""
    clone = tmp_path / "repos" / "acme__calc"
    clone.mkdir(parents=True)
    git(clone, "init", "-q", "-b", "main")
    (clone / "calc.py").write_text(BUGGY)
    (clone / "README").write_text("calc\n")
    (clone / ".gitattributes").write_text("README export-ignore\n")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "base")
    base = git(clone, "rev-parse", "HEAD").strip()
    (clone / "calc.py").write_text(FIXED)
    (clone / "tests").mkdir()
    (clone / "tests" / "test_calc.py").write_text(TEST)
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "fix")
    fix = git(clone, "rev-parse", "HEAD").strip()
    row = {
        "instance_id": "acme__calc-1", "repo": "acme/calc", "base_commit": base, "version": "0.1",
        "problem_statement": "mean() crashes on an empty list\n\nIt should return 0.0.",
        "patch": diff_of(clone, base, fix, "calc.py"), "test_patch": diff_of(clone, base, fix, "tests"),
        "FAIL_TO_PASS": json.dumps(["tests/test_calc.py::test_empty"]),
        "PASS_TO_PASS": ["tests/test_calc.py::test_mean"],
    }
    data = tmp_path / "data"
    data.mkdir()
    bad_rows = [{"instance_id": "acme__calc-2", "repo": "acme/calc"},
                {**row, "instance_id": "other__lib-1", "repo": "other/lib"}]
    (data / "dataset.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [row, *bad_rows]))
    good = {"instance_id": "acme__calc-1", "model_name_or_path": "agent-a", "model_patch": row["patch"]}
    hack = {"instance_id": "acme__calc-1", "model_name_or_path": "agent-b",
            "model_patch": diff_of(clone, base, fix, "calc.py").replace("return 0.0", "return 0")}
    (data / "preds-a.jsonl").write_text(json.dumps(good) + "\n" + json.dumps({"instance_id": "nope-1"}) + "\n")
    # The harness also writes predictions as one JSON dict keyed by instance id.
    (data / "preds-b.json").write_text(json.dumps({"acme__calc-1": {k: v for k, v in hack.items() if k != "instance_id"}}))
    (data / "report.json").write_text(json.dumps({"resolved_ids": ["acme__calc-1"], "unresolved_ids": []}))
    return {"clone": clone, "data": data, "repos": tmp_path / "repos", "row": row}


def test_directory_import_builds_task_from_clone(bench, tmp_path):
    before = git(bench["clone"], "status", "--porcelain") + git(bench["clone"], "rev-parse", "HEAD")
    got = swebench.load(bench["data"], tmp_path / "staging", repos=bench["repos"])
    assert [t.id for t in got.tasks] == ["acme__calc-1"]
    task = got.tasks[0]
    assert sorted(p.name for p in Path(task.snapshot).iterdir()) == [".gitattributes", "README", "calc.py"]
    assert (Path(task.snapshot) / "calc.py").read_text() == BUGGY
    assert tree_digest(task.snapshot) == task.snapshot_digest
    assert task.tests.fail_to_pass == ["tests/test_calc.py::test_empty"]
    assert task.tests.pass_to_pass == ["tests/test_calc.py::test_mean"]
    assert task.title == "mean() crashes on an empty list"
    assert task.prompt.startswith("mean() crashes")
    # The clone is left exactly as it was.
    assert git(bench["clone"], "status", "--porcelain") + git(bench["clone"], "rev-parse", "HEAD") == before
    assert got.run.format == "swebench" and got.run.name == "data"


def test_worlds_from_the_import_behave_as_the_dataset_says(bench, tmp_path):
    got = swebench.load(bench["data"], tmp_path / "staging", repos=bench["repos"])
    task = got.tasks[0]
    null = world(task.snapshot, tmp_path / "null", task.test_patch)
    ref = world(task.snapshot, tmp_path / "ref", task.reference_patch, task.test_patch)
    f2p = task.tests.fail_to_pass[0]
    assert not pytest_passes(null, f2p)
    assert pytest_passes(ref, f2p) and pytest_passes(ref, task.tests.pass_to_pass[0])
    for trial in got.trials:
        assert git_apply(Path(task.snapshot), trial.patch, check=True).returncode == 0


def test_predictions_and_report_set_trials(bench, tmp_path):
    got = swebench.load(bench["data"], tmp_path / "staging", repos=bench["repos"])
    assert {(t.id, t.model, t.official) for t in got.trials} == {
        ("acme__calc-1@agent-a", "agent-a", Official.PASSED),
        ("acme__calc-1@agent-b", "agent-b", Official.PASSED),
    }
    where = {(Path(p.file).name, p.record): p.message for p in got.skipped}
    assert "missing field(s): base_commit, patch, test_patch" in where[("dataset.jsonl", "instance acme__calc-2")]
    assert "no clone of other/lib" in where[("dataset.jsonl", "instance other__lib-1")]
    assert "not in the dataset" in where[("preds-a.jsonl", "line 2 (instance nope-1)")]


def test_without_report_verdicts_are_unknown_and_report_marks_unresolved_failed(bench, tmp_path):
    data = bench["data"]
    (data / "report.json").unlink()
    got = swebench.load(data / "dataset.jsonl", tmp_path / "s1", repos=bench["repos"],
                        predictions=[data / "preds-a.jsonl", data / "preds-b.json"])
    assert {t.official for t in got.trials} == {Official.UNKNOWN}
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"acme__calc-1": {"resolved": False}}))
    got = swebench.load(data / "dataset.jsonl", tmp_path / "s2", repos=bench["repos"],
                        predictions=[data / "preds-a.jsonl"], report=report)
    assert [t.official for t in got.trials] == [Official.FAILED]


def test_repo_url_template_clones_once(bench, tmp_path):
    url = f"file://{bench['repos']}/{{owner}}__{{name}}"
    got = swebench.load(bench["data"], tmp_path / "staging", repo_url=url)
    assert (Path(got.tasks[0].snapshot) / "calc.py").read_text() == BUGGY
    assert not any((tmp_path / "staging").glob("*/.git"))


def test_no_repository_source_is_an_error(bench, tmp_path):
    with pytest.raises(ImportError_, match="repos=DIR"):
        swebench.load(bench["data"], tmp_path / "staging")


def test_missing_base_commit_is_reported_per_instance(bench, tmp_path):
    row = {**bench["row"], "base_commit": "0" * 40}
    ds = tmp_path / "ds.json"
    ds.write_text(json.dumps([bench["row"], {**row, "instance_id": "acme__calc-9"}]))
    got = swebench.load(ds, tmp_path / "staging", repos=bench["repos"])
    assert [t.id for t in got.tasks] == ["acme__calc-1"]
    assert got.skipped[0].record == "instance acme__calc-9" and "not in the clone" in got.skipped[0].message


def test_commands_for_known_runners_and_modern_rows():
    django = swebench.test_command({"repo": "django/django", "version": "4.0",
                                    "test_patch": "diff --git a/tests/queries/tests.py b/tests/queries/tests.py\n"})
    assert django[0].endswith("runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 queries.tests")
    modern = swebench.test_command({
        "repo": "x/y", "image": "swebench/sweb.eval.x86_64.x_1776_y-1:latest",
        "eval_script": "#!/bin/bash\ngit apply -v - <<'EOF'\nEOF\n: '>>>>> Start Test Output'\n"
                       "pytest -rA tests/test_a.py\n: '>>>>> End Test Output'\ngit checkout\n",
    })
    assert modern[0] == "pytest -rA tests/test_a.py"
    assert modern[1].backend == Backend.DOCKER and modern[1].image.startswith("swebench/")
    # like the harness, pytest runs the test files of the test patch; graded ids are read from its log
    plain = swebench.test_command({"repo": "acme/calc", "version": "0.1",
                                   "test_patch": "diff --git a/tests/test_c.py b/tests/test_c.py\n"})
    assert plain[0] == "python -m pytest -p no:cacheprovider -rA tests/test_c.py"
    assert "{tests}" not in plain[0]


def test_commands_without_junit_get_a_log_parser_and_run_directives():
    django_patch = ("diff --git a/tests/queries/tests.py b/tests/queries/tests.py\n"
                    "diff --git a/tests/admin_views/test_forms.py b/tests/admin_views/test_forms.py\n")
    django = {"instance_id": "django__django-1", "repo": "django/django", "version": "4.0",
              "test_patch": django_patch}
    command, _ = swebench.test_command(django)
    # the runner is given modules from the test patch, never the graded ids (``test_x (a.B)``)
    assert "{tests}" not in command and command.endswith("queries.tests admin_views.test_forms")
    assert swebench.log_parser_for(command, "django/django") == "swebench-django"
    sympy_patch = "diff --git a/sympy/core/tests/test_arit.py b/sympy/core/tests/test_arit.py\n"
    command, _ = swebench.test_command({"repo": "sympy/sympy", "version": "1.1", "test_patch": sympy_patch})
    assert command.endswith("bin/test -C --verbose sympy/core/tests/test_arit.py")
    assert swebench.log_parser_for(command, "sympy/sympy") == "swebench-sympy"
    assert swebench.log_parser_for("pytest -rA tests/test_a.py", "x/y") == "swebench-pytest"


def test_eval_script_task_is_graded_from_its_log(bench, tmp_path):
    from dataclasses import replace

    from testjack_tui.worlds.local import LocalBackend
    from testjack_tui.worlds.request import ExecRequest, Patch

    script = ("#!/bin/bash\n: '>>>>> Start Test Output'\n"
              "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python -m pytest -p no:cacheprovider -rA tests/test_calc.py\n"
              ": '>>>>> End Test Output'\n")
    ds = tmp_path / "ds.jsonl"
    ds.write_text(json.dumps({**bench["row"], "eval_script": script}) + "\n")
    task = swebench.load(ds, tmp_path / "staging", repos=bench["repos"]).tasks[0]
    assert task.tests.log_parser == "swebench-pytest" and "{junit}" not in task.tests.command
    # the task asks for docker; its command runs as well on the local backend
    request = ExecRequest(snapshot=task.snapshot, snapshot_digest=task.snapshot_digest,
                          patches=(Patch("reference", task.reference_patch), Patch("tests", task.test_patch)),
                          command=task.tests.command, test_ids=tuple(task.tests.graded),
                          log_parser=task.tests.log_parser, timeout=60)
    backend = LocalBackend(cache_dir=tmp_path / "cache")
    result = backend.run(request)
    assert result.passed(request.test_ids), (result.message, result.stdout)
    null = backend.run(replace(request, patches=(Patch("tests", task.test_patch),)))
    assert null.outcomes == {"tests/test_calc.py::test_empty": "fail", "tests/test_calc.py::test_mean": "pass"}
