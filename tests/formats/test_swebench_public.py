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
    from testjack_tui.store import Store
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


# -- the other runners and layouts ---------------------------------------------------------------

runs = sys.modules["swebench_public_runs"]

SYMPY_LOG = """\
sympy/physics/vector/tests/test_printing.py[4]
test_latex_printer ok
test_vector_pretty_print F
test_skipped s
test_issue_14041 ok                                                         [OK]

________ sympy/physics/vector/tests/test_printing.py:test_vector_pretty_print ________
"""


def test_sympy_log_is_read_as_the_harness_reads_it():
    # the harness records ok / F / E lines only: not a skip, not the file's last line (its "[OK]")
    assert runs.read_sympy(SYMPY_LOG) == {"test_latex_printer": "pass", "test_vector_pretty_print": "fail"}


# A runner in SymPy's style for the tiny tree: bin/test runs the files' test_ functions and prints
# one verbose line per test, the file's last one ending in [OK] or [FAIL], as SymPy's runner does.
FAKE_BIN_TEST = '''import importlib.util, sys
failed = False
for path in [a for a in sys.argv[1:] if a.endswith(".py")]:
    spec = importlib.util.spec_from_file_location("t", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    names = [n for n in vars(mod) if n.startswith("test_")]
    lines = []
    for n in names:
        try:
            getattr(mod, n)()
            lines.append(n + " ok")
        except Exception:
            failed = True
            lines.append(n + " F")
    lines[-1] += "    [FAIL]" if failed else "    [OK]"
    print(path + "[%d]" % len(names))
    print("\\n".join(lines))
sys.exit(int(failed))
'''


def test_a_sympy_style_task_grades_bare_names_from_its_runner(tmp_path):
    base = _tree(tmp_path / "src" / "tinystats-0.1.0", "0.1.0", BUGGY, TESTS + "\n\ndef test_last():\n    pass\n",
                 CHANGES.format(new=""))
    fixed = _tree(tmp_path / "src" / "tinystats-0.1.1", "0.1.1", FIXED,
                  TESTS + NEW_TEST + "\n\ndef test_last():\n    pass\n", CHANGES.format(new=""))
    for tree in (base, fixed):
        (tree / "bin").mkdir()
        (tree / "bin" / "test").write_text(FAKE_BIN_TEST)
    project = public.Project(
        dist="tinystats", base="0.1.0", fixed="0.1.1", repo="acme/tinystats", issue=7,
        fix_files=("tinystats/__init__.py",), function=("tinystats/__init__.py", "Stats.mean"), changelog="",
        runner="sympy", statement="Stats.mean([]) must be 0.0.",
        predictions={"good": PROJECT.predictions["good"], "wrong": PROJECT.predictions["wrong"]})
    out = tmp_path / "out"
    out.mkdir()
    summary = public.build(project, base, fixed, out)
    row = json.loads((out / "dataset.jsonl").read_text())
    # bare names, and the file's last test (its line ends in [OK]) is in neither list, as in the harness's
    assert json.loads(row["FAIL_TO_PASS"]) == ["test_empty"] and json.loads(row["PASS_TO_PASS"]) == ["test_mean"]
    assert row["problem_statement"] == "Stats.mean([]) must be 0.0.\n"
    assert summary["resolved"] == {"good": True, "wrong": False}


def test_a_sympy_repository_gets_the_stand_in_runner_when_its_sdist_has_none(tmp_path):
    tree = _tree(tmp_path / "tree", "0.1.0", BUGGY, TESTS, CHANGES.format(new=""))
    repo = tmp_path / "repo"
    public.make_repo(tree, repo, runner="sympy")
    stand_in = repo / "bin" / "test"
    assert stand_in.read_text() == runs.BIN_TEST and stand_in.stat().st_mode & 0o111
    tracked = subprocess.run(["git", "ls-files", "bin/test"], cwd=repo, capture_output=True, text=True).stdout
    assert tracked.strip() == "bin/test"  # part of base_commit, so every world has it


def test_a_prediction_may_edit_several_places_and_another_file(built):
    out, _ = built
    repo = out / "repos" / "acme__tinystats"
    diff = public.edits_diff(repo, "tinystats/__init__.py", [
        ("        return sum(xs)", "        xs = list(xs)\n        return sum(xs)"),
        ("tinystats/_version.py", "0.1.0", "0.1.0+local"),
    ])
    assert public.touched_files(diff) == ["tinystats/__init__.py", "tinystats/_version.py"]
    assert "+        xs = list(xs)" in diff and "+__version__ = '0.1.0+local'" in diff


def test_the_public_tasks_take_their_environment_from_the_swebench_data():
    assert public.requirements(public.PATHSPEC) == []  # a repository the data does not know
    assert public.requirements(public.PROJECTS["sympy"]) == ["mpmath==1.3.0"]
    flask = public.requirements(public.PROJECTS["flask"])
    assert "Werkzeug==2.3.7" in flask and "blinker>=1.6.2" in flask and flask[-1] == "pytest<8"


# -- measured end to end ---------------------------------------------------------------------------


@pytest.mark.slow
def test_the_measurement_reproduces_the_harness_and_the_analyst_refutes_the_partial_fix(tmp_path):
    """swebench_public_measure.py on the tiny task: import, audit, then the analyst's witness."""
    from dataclasses import replace

    measure = sys.modules.get("swebench_public_measure")
    if measure is None:
        spec = importlib.util.spec_from_file_location("swebench_public_measure", SCRIPT.with_name(
            "swebench_public_measure.py"))
        measure = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(measure)
    base = _tree(tmp_path / "src" / "tinystats-0.1.0", "0.1.0", BUGGY, TESTS, CHANGES.format(new=""))
    fixed = _tree(tmp_path / "src" / "tinystats-0.1.1", "0.1.1", FIXED, TESTS + NEW_TEST,
                  CHANGES.format(new="0.1.1\n-----\n\n- mean() of an empty list raises.\n\n"))
    # "floor" passes the official tests ([1, 3] and []) but floors every other mean
    floor = ("        return sum(xs) / len(xs)\n", "        return sum(xs) // len(xs) if xs else 0.0\n")
    project = replace(PROJECT, predictions={"good": PROJECT.predictions["good"], "floor": floor,
                                            "wrong": PROJECT.predictions["wrong"]},
                      analyst_witness=("mean() of [1, 2] is 1.5", "from tinystats import Stats\n\n\n"
                                       "def test_half():\n    assert Stats().mean([1, 2]) == 1.5\n"))
    out = tmp_path / "tiny"
    out.mkdir()
    public.build(project, base, fixed, out)
    got = measure.measure(out, project, tmp_path / "m.db")
    assert got["t0_agreement"] == "3/3" and got["audit"]["malformed_tasks"] == 0
    witness = got["analyst_witness"]
    # certified on the reference; the null world (the base release) means [1, 2] right too
    assert witness["status"] == "validated" and witness["reference_null"] == {"reference": "pass", "null": "pass"}
    assert witness["on_passing_trials"] == {"acme__tinystats-7@good": "pass", "acme__tinystats-7@floor": "fail"}
    assert got["verdicts_after"]["acme__tinystats-7@floor"] == "refuted"
    assert got["after_witness"]["resolution_after"] < got["after_witness"]["resolution_before"]
