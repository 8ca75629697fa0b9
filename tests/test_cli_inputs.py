"""Bad arguments on the command line exit 2 naming the option, before any work; -o makes its folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from testjack_tui.store import Store
from testjack_tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "sample_runs" / "mini"


def usage_error(capsys, *argv: str) -> str:
    """argparse's exit: code 2 and its message on stderr."""
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    assert info.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["audit", "mini", "--workers", "0"], "argument --workers: must be 1 or more, not 0"),
    (["audit", "mini", "--workers", "-3"], "argument --workers: must be 1 or more, not -3"),
    (["audit", "mini", "--rounds", "0"], "argument --rounds: must be 1 or more, not 0"),
    (["audit", "mini", "--rounds", "-1"], "argument --rounds: must be 1 or more, not -1"),
    (["audit", "mini", "--workers", "two"], "argument --workers: 'two' is not a whole number"),
    (["replay", "w-0000000000", "--workers", "0"], "argument --workers: must be 1 or more, not 0"),
])
def test_counts_below_one_are_refused_naming_the_option(tmp_path: Path, capsys, argv: list[str], message: str) -> None:
    db = tmp_path / "s.db"
    err = usage_error(capsys, *argv, "--store", str(db))
    assert message in err
    assert not db.exists()  # refused before the store is opened, let alone a run imported


@pytest.fixture(scope="module")
def store_with_mini(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("inputs") / "s.db"
    assert main(["import", str(MINI), "--store", str(db)]) == 0
    return db


def test_report_into_a_missing_folder_creates_it(store_with_mini: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "reports" / "2024" / "mini.md"
    assert main(["report", "mini", "-o", str(out), "--store", str(store_with_mini)]) == 0
    assert out.read_text().startswith("# TestJack audit: mini")
    assert f"wrote {out}" in capsys.readouterr().err


def test_report_under_a_file_is_refused_naming_it(store_with_mini: Path, tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("not a folder\n")
    out = blocker / "mini.md"
    assert main(["report", "mini", "-o", str(out), "--store", str(store_with_mini)]) == 2
    assert f"-o {out}: cannot create the folder {blocker}: {blocker} is a file, not a folder" in capsys.readouterr().err


def test_report_onto_a_folder_is_refused_naming_it(store_with_mini: Path, tmp_path: Path, capsys) -> None:
    assert main(["report", "mini", "-o", str(tmp_path), "--store", str(store_with_mini)]) == 2
    assert f"-o {tmp_path}: cannot write the report: Is a directory" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["nan", "inf", "-5"])
def test_a_budget_that_is_not_a_finite_amount_is_refused(tmp_path: Path, value: str) -> None:
    import os

    env = {**os.environ, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "TESTJACK_MODEL": "m"}
    db = tmp_path / "s.db"
    proc = subprocess.run(
        [sys.executable, "-m", "testjack_tui.cli", "audit", str(MINI), "--author", "llm",
         "--budget", f"run_usd={value}", "--store", str(db)],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    assert proc.returncode == 2, proc.stderr
    assert f"--budget run_usd={value}: must be a finite number, 0 or more" in proc.stderr
    assert Store(db).summary("mini").executions == 0


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("TESTJACK_LLM_OPTIONS", '{"timeout_s": -1}', "TESTJACK_LLM_OPTIONS: timeout_s must be greater than 0, not -1"),
    ("TESTJACK_LLM_OPTIONS", '{"max_turns": 0}', "TESTJACK_LLM_OPTIONS: max_turns must be greater than 0, not 0"),
    ("TESTJACK_LLM_OPTIONS", '{"max_retries": -2}', "TESTJACK_LLM_OPTIONS: max_retries must be 0 or more, not -2"),
    ("TESTJACK_LLM_OPTIONS", '{"max_tokens": "lots"}', "TESTJACK_LLM_OPTIONS: max_tokens must be a whole number, not 'lots'"),
    ("TESTJACK_LLM_OPTIONS", '{"stream": 1}', "TESTJACK_LLM_OPTIONS: stream must be true or false, not 1"),
    ("TESTJACK_LLM_OPTIONS", '[]', "TESTJACK_LLM_OPTIONS: unknown options []"),
    ("TESTJACK_PRICES", '{"m": [1, 2}', "TESTJACK_PRICES is not valid JSON (Expecting ',' delimiter"),
    ("TESTJACK_PRICES", '{"m": 3}', "TESTJACK_PRICES: 'm' must map to [usd_per_1k_prompt, usd_per_1k_completion], not 3"),
    ("TESTJACK_PRICES", '{"m": [1, -2]}', "TESTJACK_PRICES: 'm': a price must be a finite number, 0 or more, not -2"),
    ("TESTJACK_PRICES", '{"m": ["1", 2]}', "TESTJACK_PRICES: 'm': a price must be a number, not '1'"),
    ("TESTJACK_PRICES", '[]', "TESTJACK_PRICES must map model names to [usd_per_1k_prompt, usd_per_1k_completion], not []"),
    ("TESTJACK_LLM_BUDGET", '{"run_usd": "five"}', "TESTJACK_LLM_BUDGET: run_usd must be a number, not 'five'"),
    ("TESTJACK_LLM_BUDGET", '{"run_usd": -1}', "TESTJACK_LLM_BUDGET: run_usd must be a finite number, 0 or more, not -1"),
    ("TESTJACK_LLM_BUDGET", '{"run_dollars": 5}', "TESTJACK_LLM_BUDGET: unknown budget keys ['run_dollars']"),
    ("TESTJACK_LLM_BUDGET", '5', "TESTJACK_LLM_BUDGET must be a JSON object with any of run_tokens, run_usd"),
    ("TESTJACK_LLM_BUDGET", 'run_usd=5', "TESTJACK_LLM_BUDGET is not valid JSON"),
    ("OPENAI_BASE_URL", "localhost:8000/v1", "OPENAI_BASE_URL must be an http:// or https:// address, not 'localhost:8000/v1'"),
])
def test_llm_settings_that_cannot_work_are_refused_naming_the_variable(
        tmp_path: Path, variable: str, value: str, message: str) -> None:
    import os

    env = {**os.environ, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "TESTJACK_MODEL": "m", variable: value}
    db = tmp_path / "s.db"
    proc = subprocess.run(
        [sys.executable, "-m", "testjack_tui.cli", "audit", str(MINI), "--author", "llm", "--store", str(db)],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    # was: accepted, then every call failed blaming the endpoint; or a traceback; or exit 3
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert Store(db).summary("mini").executions == 0


@pytest.mark.parametrize("address", ["garbage", "head:port", "http://head:6379"])
def test_a_ray_address_that_is_none_is_refused_naming_it(tmp_path: Path, capsys, address: str) -> None:
    db = tmp_path / "s.db"
    assert main(["audit", str(MINI), "--executor", "ray", "--ray-address", address, "--store", str(db)]) == 2
    assert f"--ray-address {address!r} is not a cluster address" in capsys.readouterr().err
    assert not db.exists()  # refused before the store is opened


def test_a_ray_address_without_the_ray_executor_is_refused(tmp_path: Path, capsys) -> None:
    db = tmp_path / "s.db"
    assert main(["audit", str(MINI), "--ray-address", "auto", "--store", str(db)]) == 2
    assert "--ray-address is for --executor ray" in capsys.readouterr().err
    assert not db.exists()


def test_a_mistyped_option_gets_the_command_s_usage_and_the_closest_option(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["report", "mini", "--fromat", "md"])
    said = capsys.readouterr().err
    assert stop.value.code == 2
    assert said.startswith("usage: testjack report") and "did you mean --format for --fromat?" in said


def test_a_read_only_command_never_creates_a_store(tmp_path, capsys) -> None:
    typo = tmp_path / "typo" / "testjack.db"
    for command in (["report", "mini"], ["compare", "mini", "mini"], ["leaderboard", "mini"]):
        assert main([*command, "--store", str(typo)]) == 2, command
        assert "no store here" in capsys.readouterr().err
    assert not typo.parent.exists()


def test_a_run_that_is_neither_in_the_store_nor_on_disk_is_named_as_both(tmp_path, capsys) -> None:
    store = tmp_path / "s.db"
    assert main(["import", str(MINI), "--store", str(store)]) == 0
    capsys.readouterr()
    assert main(["audit", str(MINI) + "x", "--store", str(store), "--author", "none"]) == 2
    said = capsys.readouterr().err
    assert f"no run '{MINI}x'" in said and f"no file or folder '{MINI}x' to import" in said


EVALPLUS = ROOT / "tests" / "fixtures" / "formats" / "evalplus"


def test_a_failed_first_import_leaves_no_store_behind(tmp_path, capsys) -> None:
    bad = tmp_path / "problems.jsonl"
    bad.write_text('{"task_id": "T/0", "prompt": "def f():\\n", "entry_point": "f"}\n')
    store = tmp_path / "new" / "testjack.db"
    assert main(["import", str(bad), "--format", "humaneval", "--store", str(store)]) == 2
    said = capsys.readouterr().err
    assert f"{bad}: line 1 (T/0): missing or non-text field(s): canonical_solution, test" in said
    assert not (tmp_path / "new").exists()
    kept = tmp_path / "kept.db"  # a store that was there before stays, with its runs
    assert main(["import", str(MINI), "--store", str(kept)]) == 0
    assert main(["import", str(bad), "--format", "humaneval", "--store", str(kept)]) == 2
    assert [r.name for r in Store(kept).list_runs()] == ["mini"]


def test_a_samples_file_without_task_ids_is_refused_naming_it(tmp_path, capsys) -> None:
    samples = tmp_path / "samples.jsonl"
    samples.write_text('{"id": "a", "solution": "def larger(a, b):\\n    return a\\n"}\n')
    store = tmp_path / "s.db"
    argv = ["import", str(EVALPLUS / "MbppPlus.jsonl"), "--samples", str(samples), "--store", str(store)]
    assert main(argv) == 2
    said = capsys.readouterr().err
    assert f"{samples}: no record is a sample (first: line 1 (a): missing task_id)" in said
    assert not store.exists()
