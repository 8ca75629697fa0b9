"""Every bad input is named: exit 2, a message naming the file and the record, never a traceback.

Each case starts from a copy of sample_runs/mini (or a hand-made HumanEval pair), breaks one thing
and imports it through the command line as a user would. Unknown keys and relabelled samples are
imported, with a warning naming them.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest

from testjack_tui.store import Store
from testjack_tui.cli import main
from worldkit import world

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "sample_runs" / "mini"


@pytest.fixture
def run(tmp_path: Path) -> Path:
    dest = tmp_path / "run"
    shutil.copytree(MINI, dest)
    return dest


def import_run(path: Path, capsys, *extra: str) -> tuple[int, str]:
    db = path.parent / "s.db"
    code = main(["import", str(path), "--store", str(db), *extra])
    err = capsys.readouterr().err
    if code != 0:
        assert Store(db).list_runs() == []  # a refused import leaves nothing behind
    assert "Traceback" not in err
    return code, err


def edit_trial(run: Path, line: int, old: str, new: str) -> None:
    path = run / "trials.jsonl"
    lines = path.read_text().splitlines()
    assert old in lines[line - 1], (old, lines[line - 1])
    lines[line - 1] = lines[line - 1].replace(old, new)
    path.write_text("\n".join(lines) + "\n")


def edit_task_toml(run: Path, old: str, new: str) -> Path:
    path = run / "tasks" / "chunk" / "task.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return path


# -- trials.jsonl ---------------------------------------------------------------------------------


def test_a_trials_file_that_is_not_utf8_is_named_with_its_line(run: Path, capsys) -> None:
    path = run / "trials.jsonl"
    path.write_bytes(path.read_bytes().replace(b"model-b", b"model-\xff"))
    code, err = import_run(run, capsys)
    assert code == 2
    assert f"{path}: line 2: not UTF-8 text (byte 0xff" in err


def test_a_task_given_as_a_list_is_named(run: Path, capsys) -> None:
    edit_trial(run, 3, '"task": "chunk"', '"task": ["chunk"]')
    code, err = import_run(run, capsys)
    assert code == 2
    assert f"{run / 'trials.jsonl'}: line 3: task must be a string, not a list (['chunk'])" in err


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_tokens_that_are_not_finite_are_named(run: Path, capsys, value: str) -> None:
    edit_trial(run, 2, '"tokens": 4630', f'"tokens": {value}')
    code, err = import_run(run, capsys)
    assert code == 2
    assert f"{run / 'trials.jsonl'}: line 2: tokens must be a finite number, not {value.lower().replace('inity', '')}" in err


def test_tokens_too_large_to_store_are_named(run: Path, capsys) -> None:
    edit_trial(run, 2, '"tokens": 4630', f'"tokens": {10**30}')
    code, err = import_run(run, capsys)  # was an OverflowError traceback from the store
    assert code == 2
    assert f"{run / 'trials.jsonl'}: line 2: tokens must be at most 1000000000000000, not {10**30}" in err


def test_a_numeric_id_is_named_not_turned_into_a_string(run: Path, capsys) -> None:
    edit_trial(run, 2, '"id": "chunk-t2"', '"id": 7')
    code, err = import_run(run, capsys)
    assert code == 2 and f"{run / 'trials.jsonl'}: line 2: id must be a string, not 7" in err


def test_a_negative_cost_is_named(run: Path, capsys) -> None:
    edit_trial(run, 4, '"cost_usd": 0.06', '"cost_usd": -0.06')
    code, err = import_run(run, capsys)
    assert code == 2 and "trials.jsonl: line 4: cost_usd must be 0 or more, not -0.06" in err


# -- task.toml ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "message"), [
    ('"sixty"', "must be a number, not 'sixty'"),
    ("0", "must be greater than 0, not 0"),
    ("-5", "must be greater than 0, not -5"),
    ("nan", "must be a finite number, not nan"),
    ("inf", "must be a finite number, not inf"),
])
def test_a_bad_timeout_is_named_with_its_key(run: Path, capsys, value: str, message: str) -> None:
    toml = edit_task_toml(run, "timeout = 60", f"timeout = {value}")
    code, err = import_run(run, capsys)
    assert code == 2
    assert f"{toml}: [tests] timeout: {message}" in err
    assert "names unknown task" not in err  # the task's own problem is named, not a cascade


def test_setup_and_command_given_as_lists_are_named(run: Path, capsys) -> None:
    toml = edit_task_toml(run, 'command = "python -m pytest', 'command = ["python -m pytest')
    toml.write_text(toml.read_text().replace("{tests}\"\n", "{tests}\"]\n")
                    + '\n[environment]\nsetup = ["pip install -e .", "make"]\n')
    code, err = import_run(run, capsys)
    assert code == 2
    assert f"{toml}: [tests] command: must be a string, not a list" in err
    assert f"{toml}: [environment] setup: must be a string, not a list (['pip install -e .', 'make'])" in err


def test_run_toml_is_checked_too(run: Path, capsys) -> None:
    (run / "run.toml").write_text('name = "mini"\n[defaults]\nbackend = "podman"\n')
    code, err = import_run(run, capsys)
    assert code == 2 and f"{run / 'run.toml'}: [defaults] backend: must be 'local' or 'docker', not 'podman'" in err


def test_unknown_keys_are_warned_about_by_name_and_the_run_imports(run: Path, capsys) -> None:
    toml = edit_task_toml(run, "timeout = 60", "timout = 60")
    (run / "run.toml").write_text((run / "run.toml").read_text() + 'image_name = "x"\n')
    for line in (1, 3):
        edit_trial(run, line, '"model":', '"modle": "?", "model":')
    code, err = import_run(run, capsys)
    assert code == 0, err
    assert f"warning: {toml}: [tests] timout: unknown key, ignored" in err
    assert f"warning: {run / 'run.toml'}: [defaults] image_name: unknown key, ignored" in err
    assert f"warning: {run / 'trials.jsonl'}: line 1: unknown key 'modle', ignored (and on 1 more line(s))" in err


# -- paths inside the run -------------------------------------------------------------------------

OUTSIDE_PATCH = "diff --git a/outside.txt b/outside.txt\nnew file mode 100644\n--- /dev/null\n+++ b/outside.txt\n@@ -0,0 +1 @@\n+secret\n"


@pytest.mark.parametrize(("patch", "message"), [
    ("/etc/passwd", "patch '/etc/passwd' is an absolute path, not one inside"),
    ("../../../../etc/hostname", "patch '../../../../etc/hostname' climbs out of"),
    ("../outside.patch", "patch '../outside.patch' climbs out of"),
    ("trials/../../outside.patch", "patch 'trials/../../outside.patch' climbs out of"),
])
def test_a_patch_outside_the_run_is_refused_unread(run: Path, capsys, patch: str, message: str) -> None:
    (run.parent / "outside.patch").write_text(OUTSIDE_PATCH)  # a readable, valid patch: only the place is wrong
    edit_trial(run, 2, '"trials/chunk-t2.patch"', json.dumps(patch))
    code, err = import_run(run, capsys)
    assert code == 2
    assert f"{run / 'trials.jsonl'}: line 2: {message}" in err and "it was not read" in err
    assert "secret" not in err


def test_a_patch_that_is_a_link_out_of_the_run_is_refused_unread(run: Path, capsys) -> None:
    outside = run.parent / "outside.patch"
    outside.write_text(OUTSIDE_PATCH)
    link = run / "trials" / "chunk-t2.patch"
    link.unlink()
    link.symlink_to(outside)
    code, err = import_run(run, capsys)
    assert code == 2
    assert (f"{run / 'trials.jsonl'}: line 2: patch 'trials/chunk-t2.patch' leads out of {run} through a "
            f"symbolic link (to {outside})") in err


def test_a_link_inside_the_run_is_fine(run: Path, capsys) -> None:
    link = run / "trials" / "chunk-t2.patch"
    link.unlink()
    link.symlink_to(run / "trials" / "chunk-t1.patch")
    code, err = import_run(run, capsys)
    assert code == 0, err


def test_a_prompt_that_is_a_link_out_of_the_run_is_refused(run: Path, capsys) -> None:
    outside = run.parent / "elsewhere.md"
    outside.write_text("a prompt kept somewhere else\n")
    prompt = run / "tasks" / "chunk" / "prompt.md"
    prompt.unlink()
    prompt.symlink_to(outside)
    code, err = import_run(run, capsys)
    assert code == 2
    assert f"{prompt}: is a symbolic link leading outside the run directory (to {outside}); it was not read" in err


def test_links_in_r_that_lead_out_of_it_are_refused(run: Path, capsys) -> None:
    repo = run / "tasks" / "chunk" / "repo"
    (repo / "hostname").symlink_to("/etc/hostname")
    (repo / "listkit" / "etc").symlink_to("/etc", target_is_directory=True)
    (repo / "listkit" / "readme").symlink_to("../README.md")  # inside R: kept
    code, err = import_run(run, capsys)
    assert code == 2
    assert f"{repo / 'hostname'}: is a symbolic link leading outside repo/ (to /etc/hostname); it was not imported" in err
    assert f"{repo / 'listkit' / 'etc'}: is a symbolic link leading outside repo/ (to /etc); it was not imported" in err
    assert "readme" not in err


def test_a_dockerfile_outside_r_is_refused(run: Path, capsys) -> None:
    toml = edit_task_toml(run, "timeout = 60", 'timeout = 60\n\n[environment]\nimage = "build:../../Dockerfile"')
    code, err = import_run(run, capsys)
    assert code == 2 and f"{toml}: [environment] image: the Dockerfile '../../Dockerfile' climbs out of R with '..'" in err


# -- gzip-compressed inputs (HumanEval and SWE-bench read .jsonl.gz) -----------------------------

PROMPT = 'def add(a: int, b: int) -> int:\n    """Return a + b."""\n'
PROBLEM = {"task_id": "Tiny/0", "prompt": PROMPT, "canonical_solution": "    return a + b\n",
           "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n", "entry_point": "add"}


def humaneval_pair(base: Path, samples: list[dict], name: str = "samples.jsonl") -> Path:
    base.mkdir(parents=True, exist_ok=True)
    (base / "problems.jsonl").write_text(json.dumps(PROBLEM) + "\n")
    (base / name).write_text("".join(json.dumps(s) + "\n" for s in samples))
    return base


def corrupt_gzip(rows: list[dict]) -> bytes:
    """A gzip stream whose header is intact and whose deflate data is garbled (zlib refuses it)."""
    data = bytearray(gzip.compress("".join(json.dumps(r) + "\n" for r in rows * 50).encode(), mtime=0))
    for i in range(30, 60):
        data[i] ^= 0xFF
    return bytes(data)


def test_a_corrupt_gzip_samples_file_is_named(tmp_path: Path, capsys) -> None:
    base = humaneval_pair(tmp_path / "he", [])
    (base / "samples.jsonl").unlink()
    bad = base / "samples.jsonl.gz"
    bad.write_bytes(corrupt_gzip([{"task_id": "Tiny/0", "solution": PROMPT + "    return a + b\n"}]))
    code, err = import_run(base, capsys, "--format", "humaneval")
    assert code == 2 and f"{bad}: cannot read: corrupt or truncated gzip data" in err
    code, err = import_run(base / "problems.jsonl", capsys, "--samples", str(bad))
    assert code == 2 and f"{bad}: cannot read: corrupt or truncated gzip data" in err


def test_a_corrupt_gzip_file_given_alone_is_named_not_guessed(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "problems.jsonl.gz"
    bad.write_bytes(corrupt_gzip([PROBLEM]))
    code, err = import_run(bad, capsys)  # --format auto
    assert code == 2 and f"{bad}: cannot read: corrupt or truncated gzip data" in err


def test_a_truncated_gzip_predictions_file_is_named(tmp_path: Path, capsys) -> None:
    data = gzip.compress(b'{"instance_id": "a__b-1", "model_patch": "", "model_name_or_path": "m"}\n' * 200)
    bad = tmp_path / "preds.jsonl.gz"
    bad.write_bytes(data[: len(data) // 2])
    code, err = import_run(bad, capsys, "--format", "swebench", "--repos", str(tmp_path))
    assert code == 2 and f"{bad}: cannot read: corrupt or truncated gzip data" in err


# -- HumanEval importer honesty --------------------------------------------------------------------


def test_solutions_that_are_bodies_are_read_as_completions_with_one_warning(tmp_path: Path, capsys) -> None:
    base = humaneval_pair(tmp_path / "he", [
        {"task_id": "Tiny/0", "id": "body-1", "solution": "    return a + b\n"},
        {"task_id": "Tiny/0", "id": "whole", "solution": "def add(a, b):\n    return a + b\n"},
        {"task_id": "Tiny/0", "id": "body-2", "solution": "    return b + a\n"},
    ])
    db = tmp_path / "s.db"
    assert main(["import", str(base), "--store", str(db)]) == 0
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if "warning:" in line]
    assert warnings == [
        f"testjack: warning: {base / 'samples.jsonl'}: 2 of 3 samples gave a solution that does not define its "
        "entry point at top level: read as a body completing the prompt (prompt + solution); first: line 1 (body-1)"
    ]
    store = Store(db)
    (run_id,) = [r.id for r in store.list_runs()]
    trials = {t.id: t for t in store.list_trial_objects(run_id)}
    task = store.get_task(run_id, "Tiny/0")
    got = world(task.snapshot, tmp_path / "w", trials["body-1"].patch)
    assert (got / "solution.py").read_text() == PROMPT + "    return a + b\n"
    compile((got / "solution.py").read_text(), "solution.py", "exec")


def test_a_completion_that_is_a_whole_program_is_read_as_one(tmp_path: Path, capsys) -> None:
    bare = {**PROBLEM, "prompt": "def add(a, b):\n"}  # prompt + program would not compile
    base = tmp_path / "he"
    base.mkdir()
    (base / "problems.jsonl").write_text(json.dumps(bare) + "\n")
    (base / "samples.jsonl").write_text(json.dumps(
        {"task_id": "Tiny/0", "completion": "def add(a, b):\n    return a + b\n"}) + "\n")
    code, err = import_run(base, capsys)
    assert code == 0, err
    assert (f"warning: {base / 'samples.jsonl'}: 1 of 1 samples gave a completion that is a whole program, "
            "not a body: read as that program; first: line 1 (Tiny/0)") in err


def test_a_solution_that_is_neither_program_nor_body_is_refused_naming_its_line(tmp_path: Path, capsys) -> None:
    base = humaneval_pair(tmp_path / "he", [
        {"task_id": "Tiny/0", "solution": "def add(a, b):\n    return a + b\n"},
        {"task_id": "Tiny/0", "id": "garbage", "solution": "    return a +\n"},
    ])
    code, err = import_run(base, capsys)
    assert code == 2
    assert (f"{base / 'samples.jsonl'}: line 2 (garbage): solution is neither a program defining add() at top "
            "level nor a body completing the prompt") in err


@pytest.mark.parametrize(("verdict", "message"), [
    ({"passed": "maybe"}, "passed must be true or false, not 'maybe'"),
    ({"passed": 1}, "passed must be true or false, not 1"),
    ({"base_status": "flaky"}, "base_status must be \"pass\", \"fail\", \"timeout\" or \"error\", not 'flaky'"),
    ({"result": "maybe"}, "result must be \"passed\", \"timed out\" or \"failed: ...\", not 'maybe'"),
    ({"official": "perhaps"}, "official must be \"passed\", \"failed\" or \"unknown\", not 'perhaps'"),
])
def test_a_verdict_outside_the_known_values_is_refused_naming_its_line(tmp_path: Path, capsys, verdict, message) -> None:
    base = humaneval_pair(tmp_path / "he", [
        {"task_id": "Tiny/0", "solution": "def add(a, b):\n    return a + b\n", "passed": True},
        {"task_id": "Tiny/0", "id": "odd", "solution": "def add(a, b):\n    return a + b\n", **verdict},
    ])
    code, err = import_run(base, capsys)
    assert code == 2  # was imported as "unknown" (or "failed"), exit 0
    assert f"{base / 'samples.jsonl'}: line 2 (odd): {message}" in err


def test_known_verdicts_are_read(tmp_path: Path, capsys) -> None:
    rows = [{"passed": False}, {"base_status": "timeout"}, {"result": "failed: AssertionError"},
            {"result": "timed out"}, {"passed": True}, {"base_status": "pass"}, {}]
    sol = "def add(a, b):\n    return a + b\n"
    base = humaneval_pair(tmp_path / "he", [{"task_id": "Tiny/0", "id": f"s{n}", "solution": sol, **r}
                                             for n, r in enumerate(rows)])
    code, err = import_run(base, capsys)
    assert code == 0, err
    trials = Store(tmp_path / "s.db").list_trial_objects("he")
    assert [str(t.official) for t in sorted(trials, key=lambda t: t.id)] == ["failed"] * 4 + ["passed"] * 2 + ["unknown"]


def test_a_samples_file_whose_first_row_is_bad_is_still_read_and_the_row_named(tmp_path: Path, capsys) -> None:
    base = humaneval_pair(tmp_path / "he", [
        {"task_id": "Tiny/0", "id": "first", "passed": True},  # no solution, no completion
        {"task_id": "Tiny/0", "id": "second", "solution": "def add(a, b):\n    return a + b\n"},
    ])
    code, err = import_run(base, capsys)
    assert code == 0, err  # was: 1 tasks, 0 trials, the whole file passed over in silence
    assert (f"{base / 'samples.jsonl'}: line 1 (first): has neither solution (the whole program) nor "
            "completion (the body) as text") in err
    assert [t.id for t in Store(tmp_path / "s.db").list_trial_objects("he")] == ["second"]


def test_a_broken_program_that_defines_the_entry_point_is_the_samples_own_failure(tmp_path: Path, capsys) -> None:
    base = humaneval_pair(tmp_path / "he", [
        {"task_id": "Tiny/0", "solution": "def add(a, b):\n    return a +\n"},
    ])
    code, err = import_run(base, capsys)
    assert code == 0 and "warning" not in err  # imported as written: T0 will fail it, as the benchmark did


# -- Harbor: patches are files of the trial's directory; a bad trial is skipped and named ----------

HARBOR = ROOT / "tests" / "fixtures" / "formats" / "harbor"


@pytest.fixture
def harbor_copy(tmp_path: Path) -> Path:
    dest = tmp_path / "harbor"
    shutil.copytree(HARBOR, dest)
    return dest


def test_a_harbor_patch_that_links_out_of_its_trial_is_skipped_unread(harbor_copy: Path, capsys) -> None:
    outside = harbor_copy.parent / "outside.patch"
    outside.write_text(OUTSIDE_PATCH)
    patch = harbor_copy / "jobs" / "job-1" / "greet__a1" / "patch.diff"
    patch.unlink()
    patch.symlink_to(outside)
    code, err = import_run(harbor_copy, capsys)
    assert code == 0, err
    assert f"{patch.parent}: trial greet__a1: 'patch.diff' leads out of {patch.parent} through a symbolic link" in err
    store = Store(harbor_copy.parent / "s.db")
    trials = {t.id for r in store.list_runs() for t in store.list_trial_objects(r.id)}
    assert "greet__a1" not in trials and "greet__b2" in trials


def test_a_harbor_patch_that_is_not_utf8_is_skipped_and_named(harbor_copy: Path, capsys) -> None:
    patch = harbor_copy / "jobs" / "job-1" / "greet__a1" / "patch.diff"
    patch.write_bytes(patch.read_bytes() + b"\xff\xfe\n")
    code, err = import_run(harbor_copy, capsys)
    assert code == 0, err
    assert f"{patch.parent}: trial greet__a1: patch.diff is not UTF-8 text" in err


def test_a_harbor_environment_file_that_links_out_is_refused(harbor_copy: Path, capsys) -> None:
    outside = harbor_copy.parent / "secret.txt"
    outside.write_text("secret\n")
    (harbor_copy / "tasks" / "greet" / "environment" / "secret.txt").symlink_to(outside)
    second = harbor_copy / "tasks" / "greet-too"
    shutil.copytree(harbor_copy / "tasks" / "greet", second, symlinks=True)
    (second / "environment" / "secret.txt").unlink()  # a sound task does not save the import
    code, err = import_run(harbor_copy, capsys)
    assert code == 2
    link = harbor_copy / "tasks" / "greet" / "environment" / "secret.txt"
    assert f"{link}: task greet: is a symbolic link leading outside environment/ (to {outside}); it was not imported" in err
    assert "greet-too" not in err and "secret\n" not in err


def test_links_in_a_swebench_repository_that_lead_out_of_it_are_refused(tmp_path: Path, capsys) -> None:
    """The same rule as for a native repo/ and a Harbor environment/ (``links_out``): the repository
    at base_commit is written with its links, so each one leading out is named and nothing imported."""
    import subprocess

    clone = tmp_path / "repos" / "acme__calc"
    clone.mkdir(parents=True)
    (clone / "calc.py").write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    (clone / "hostname").symlink_to("/etc/hostname")
    (clone / "docs").mkdir()
    (clone / "docs" / "up").symlink_to("../../..", target_is_directory=True)
    (clone / "docs" / "calc.py").symlink_to("../calc.py")  # inside the repository: kept
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(["git", *args], cwd=clone, check=True, capture_output=True, env=env)
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, check=True, capture_output=True, text=True).stdout.strip()
    data = tmp_path / "data"
    data.mkdir()
    row = {"instance_id": "acme__calc-1", "repo": "acme/calc", "base_commit": base, "version": "0.1",
           "problem_statement": "mean() of an empty list", "patch": OUTSIDE_PATCH, "test_patch": OUTSIDE_PATCH,
           "FAIL_TO_PASS": ["tests/test_calc.py::test_empty"], "PASS_TO_PASS": []}
    (data / "dataset.jsonl").write_text(json.dumps(row) + "\n")
    code, err = import_run(data, capsys, "--format", "swebench", "--repos", str(tmp_path / "repos"))
    assert code == 2
    where = f"{data / 'dataset.jsonl'}: instance acme__calc-1: "
    repo = f"the repository acme/calc at {base[:12]}"
    assert f"{where}hostname is a symbolic link leading outside {repo} (to /etc/hostname); it was not imported" in err
    assert f"{where}docs/up is a symbolic link leading outside {repo} (to ../../..); it was not imported" in err
    assert "docs/calc.py" not in err


@pytest.mark.parametrize("value", ['"sixty"', "0", "-1", "nan"])
def test_a_bad_harbor_verifier_timeout_is_named(harbor_copy: Path, capsys, value: str) -> None:
    toml = harbor_copy / "tasks" / "greet" / "task.toml"
    text = toml.read_text()
    assert "[verifier]\ntimeout_sec = 60.0\n" in text
    toml.write_text(text.replace("[verifier]\ntimeout_sec = 60.0\n", f"[verifier]\ntimeout_sec = {value}\n"))
    code, err = import_run(harbor_copy, capsys)
    assert code == 2
    assert f"{toml}: [verifier] timeout_sec: must be a finite number of seconds greater than 0" in err
