"""benchmarks/swebench_public_task.py: a SWE-bench row from two releases, and its import.

The row is built from two tiny source trees written here (a release with a bug, the next with
the fix); only the download of the real sdists needs PyPI, and that test skips when it is away.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from testjack_tui.formats import swebench
from testjack_tui.model import Official

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "swebench_public_task.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("swebench_public_task", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


public = _load_script()

BUGGY = '''class Stats:
    def mean(self, xs):
        """The mean of *xs* (a list or a tuple); an empty one gives 0.0."""
        return sum(xs) / len(xs)
'''
FIXED = BUGGY.replace("        return sum(xs)", "        if not xs:\n            return 0.0\n        return sum(xs)")
TESTS = "from tinystats import Stats\n\n\ndef test_mean():\n    assert Stats().mean([1, 3]) == 2\n"
NEW_TEST = "\n\ndef test_empty():\n    assert Stats().mean([]) == 0.0\n"
CHANGES = "Changes\n=======\n\n{new}0.1.0\n-----\n\n- First release.\n"


def _tree(root: Path, version: str, code: str, tests: str, changes: str) -> Path:
    (root / "tinystats").mkdir(parents=True)
    (root / "tinystats" / "__init__.py").write_text(code)
    (root / "tinystats" / "_version.py").write_text(f"__version__ = '{version}'\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_stats.py").write_text(tests)
    (root / "CHANGES.rst").write_text(changes)
    return root


PROJECT = public.Project(
    dist="tinystats", base="0.1.0", fixed="0.1.1", repo="acme/tinystats", issue=7,
    fix_files=("tinystats/__init__.py",), function=("tinystats/__init__.py", "Stats.mean"),
    changelog="CHANGES.rst",
    predictions={
        "good": ("        return sum(xs) / len(xs)\n", "        return sum(xs) / len(xs) if xs else 0.0\n"),
        "lists-only": ("        return sum(xs) / len(xs)\n",
                       "        if xs == []:\n            return 0.0\n        return sum(xs) / len(xs)\n"),
        "wrong": ("        return sum(xs) / len(xs)\n", "        return sum(xs) / max(len(xs), 1) + 1\n"),
    },
)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("public")
    base = _tree(tmp / "src" / "tinystats-0.1.0", "0.1.0", BUGGY, TESTS, CHANGES.format(new=""))
    fixed = _tree(tmp / "src" / "tinystats-0.1.1", "0.1.1", FIXED, TESTS + NEW_TEST,
                  CHANGES.format(new="0.1.1\n-----\n\n- `Issue #7`_: mean() of an empty list raises.\n\n"
                                     ".. _`Issue #7`: https://example.invalid/7\n\n"))
    out = tmp / "out"
    out.mkdir()
    summary = public.build(PROJECT, base, fixed, out)
    return out, summary


def test_row_holds_the_fix_the_tests_and_the_outcomes_measured(built):
    out, summary = built
    row = json.loads((out / "dataset.jsonl").read_text())
    assert row["instance_id"] == "acme__tinystats-7" and row["repo"] == "acme/tinystats"
    assert row["version"] == "0.1"
    # the reference patch is the fix only: the version bump of _version.py is left out
    assert public.touched_files(row["patch"]) == ["tinystats/__init__.py"]
    assert "if not xs:" in row["patch"]
    assert public.touched_files(row["test_patch"]) == ["tests/test_stats.py"]
    assert json.loads(row["FAIL_TO_PASS"]) == ["tests/test_stats.py::test_empty"]
    assert json.loads(row["PASS_TO_PASS"]) == ["tests/test_stats.py::test_mean"]
    # the problem statement quotes the release note and the documented contract
    assert "Issue #7: mean() of an empty list raises." in row["problem_statement"]
    assert "(a list or a tuple)" in row["problem_statement"]
    assert ".. _" not in row["problem_statement"]


def test_repository_is_the_base_release_at_base_commit(built):
    out, _ = built
    row = json.loads((out / "dataset.jsonl").read_text())
    repo = out / "repos" / "acme__tinystats"
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
    assert head == row["base_commit"] and status == ""
    assert (repo / "tinystats" / "__init__.py").read_text() == BUGGY


def test_reports_say_which_predictions_resolve_the_instance(built):
    out, summary = built
    assert summary["resolved"] == {"good": True, "lists-only": True, "wrong": False}
    report = json.loads((out / "wrong.public.json").read_text())
    assert report["resolved_ids"] == [] and report["unresolved_ids"] == ["acme__tinystats-7"]
    models = [json.loads(line)["model_name_or_path"] for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert models == ["good", "lists-only", "wrong"]


def test_the_directory_imports_with_one_report_per_model(built, tmp_path):
    out, _ = built
    got = swebench.load(out, tmp_path / "staging", repos=out / "repos")
    assert [t.id for t in got.tasks] == ["acme__tinystats-7"] and not got.skipped
    assert {t.model: t.official for t in got.trials} == {
        "good": Official.PASSED, "lists-only": Official.PASSED, "wrong": Official.FAILED}


def test_a_report_named_for_no_model_applies_to_every_prediction(built, tmp_path):
    out, _ = built
    shared = tmp_path / "run.json"
    shared.write_text(json.dumps({"resolved_ids": ["acme__tinystats-7"]}))
    got = swebench.load(out / "dataset.jsonl", tmp_path / "staging", repos=out / "repos",
                        predictions=out / "predictions.jsonl", report=shared)
    assert {t.official for t in got.trials} == {Official.PASSED}


def test_the_command_line_takes_one_report_per_model(built, tmp_path):
    out, _ = built
    from store import Store
    from testjack_tui.cli import main

    store = tmp_path / "s.db"
    argv = ["import", str(out / "dataset.jsonl"), "--format", "swebench", "--repos", str(out / "repos"),
            "--predictions", str(out / "predictions.jsonl"), "--name", "pub", "--store", str(store)]
    for model in ("good", "lists-only", "wrong"):
        argv += ["--report", str(out / f"{model}.public.json")]
    assert main(argv) == 0
    trials = Store(store).list_trial_objects("pub")
    assert {t.model: t.official for t in trials} == {
        "good": Official.PASSED, "lists-only": Official.PASSED, "wrong": Official.FAILED}


def test_download_fetches_both_public_releases(tmp_path):
    """Needs PyPI: the two pathspec sdists, whose fix is the one-line change the task is about."""
    try:
        base, fixed = public.download(public.PATHSPEC, tmp_path / "sdists")
    except SystemExit as exc:  # pip could not reach the registry
        pytest.skip(f"PyPI is not reachable from here: {str(exc)[:200]}")
    src = tmp_path / "src"
    base_tree, fixed_tree = public.unpack(base, src / "base"), public.unpack(fixed, src / "fixed")
    repo = tmp_path / "repo"
    public.make_repo(base_tree, repo)
    patch = public.diff_against(repo, fixed_tree, list(public.PATHSPEC.fix_files))
    changed = [ln for ln in patch.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    assert changed == ["-\t\treturn include", "+\t\treturn bool(include)"]
