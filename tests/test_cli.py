"""The command line as a user drives it: exit codes, messages, and what each command prints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from testjack_tui.store import Store
from testjack_tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "sample_runs" / "mini"


def run_cli(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    import os

    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "testjack_tui.cli", *args], capture_output=True, text=True,
                          env=full_env, cwd=cwd or ROOT)


@pytest.fixture(scope="module")
def audited(tmp_path_factory) -> Path:
    """A store where mini was audited with --author none: T0 and evidence, no witnesses."""
    db = tmp_path_factory.mktemp("cli") / "s.db"
    proc = run_cli("audit", str(MINI), "--author", "none", "--workers", "2", "--json", "--store", str(db))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["schema"] == "testjack.report/1" and report["summary"]["trials"] == 4
    return db


def test_audit_json_runs_t0_everywhere_and_keeps_trials_unaudited_without_an_author(audited: Path) -> None:
    s = Store(audited)
    assert {t.id: t.recomputed for t in s.list_trial_objects("mini")} == {
        "chunk-t1": "passed", "chunk-t2": "passed", "chunk-t3": "passed", "chunk-t4": "failed",
    }
    assert s.get_task("mini", "chunk").malformed is False
    assert {str(v.verdict) for v in s.list_verdicts("mini").values()} == {"unaudited", "not_passing"}
    # null, 3 x reference, 4 trials, and T0 rerun twice with its report confirmed on chunk-t3,
    # which a detector flags (gather.harness_check)
    assert s.summary("mini").executions == 10


def test_a_store_named_relative_to_the_working_folder_is_hidden_from_the_tests_it_runs(tmp_path: Path) -> None:
    proc = run_cli("audit", str(MINI), "--author", "none", "--workers", "2", "--store", "s.db", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    s = Store(tmp_path / "s.db")
    assert s.get_task("mini", "chunk").malformed is False  # the reference passes T0 as with an absolute path
    assert s.list_trial_objects("mini")[0].recomputed == "passed"


def test_a_second_audit_executes_nothing_new(audited: Path) -> None:
    before = Store(audited).summary("mini").executions
    proc = run_cli("audit", "mini", "--author", "none", "--store", str(audited))
    assert proc.returncode == 0, proc.stderr
    assert "refuted" in proc.stdout and Store(audited).summary("mini").executions == before


def test_report_formats(audited: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    assert main(["report", "mini", "--format", "html", "-o", str(out), "--store", str(audited)]) == 0
    page = out.read_text()
    assert page.startswith("<!doctype html>") and "chunk-t3" in page and "<link" not in page
    proc = run_cli("report", "mini", "--format", "md", "--store", str(audited))
    assert proc.returncode == 0 and "# TestJack audit: mini" in proc.stdout and "| `chunk-t2` |" in proc.stdout


def test_report_json_is_the_typed_report_and_meets_its_schema(audited: Path) -> None:
    from testjack_tui.report import Report, json_schema

    proc = run_cli("report", "mini", "--format", "json", "--store", str(audited))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert Report.model_validate(report).model_dump(mode="json") == report
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(report, json_schema())
    proc = run_cli("report", "--store", str(audited))
    assert proc.returncode == 2 and "name a RUN (or ask for --schema)" in proc.stderr


def test_verdict_override_is_recorded_with_the_value_before(audited: Path, tmp_path: Path) -> None:
    db = tmp_path / "copy.db"
    Store(audited).db.execute(f"VACUUM INTO '{db}'")
    proc = run_cli("verdict", "chunk-t3", "--set", "reward_hack", "--reason", "hard-codes the example",
                    "--by", "ana", "--store", str(db))
    assert proc.returncode == 0, proc.stderr
    assert "was unaudited" in proc.stdout
    v = Store(db).get_verdict("mini", "chunk-t3")
    assert (str(v.verdict), str(v.source)) == ("reward_hack", "analyst") and "hard-codes" in v.rule
    (ruling,) = Store(db).list_rulings("mini")
    proc = run_cli("undo", str(ruling.id), "--store", str(db))
    assert proc.returncode == 0
    assert str(Store(db).get_verdict("mini", "chunk-t3").verdict) == "unaudited"


def test_unknown_run_witness_and_trial_exit_2_with_a_message(audited: Path) -> None:
    for args, text in [
        (["report", "nope"], "no run 'nope'"),
        (["replay", "w-0000000000"], "no witness 'w-0000000000'"),
        (["rule", "w-0000000000", "--as", "ambiguous", "--reason", "x"], "no witness"),
        (["verdict", "zz", "--set", "sound", "--reason", "x"], "no trial 'zz'"),
    ]:
        proc = run_cli(*args, "--store", str(audited))
        assert proc.returncode == 2 and text in proc.stderr, (args, proc.stderr)


def test_llm_author_without_an_endpoint_exits_3_saying_what_to_set(tmp_path: Path) -> None:
    proc = run_cli("audit", str(MINI), "--author", "llm", "--store", str(tmp_path / "s.db"),
                    env={"OPENAI_BASE_URL": "", "OPENAI_API_KEY": ""})
    assert proc.returncode == 3
    assert "OPENAI_BASE_URL" in proc.stderr and "TESTJACK_MODEL" in proc.stderr


def test_docker_backend_without_an_engine_exits_3(tmp_path: Path) -> None:
    proc = run_cli("audit", str(MINI), "--backend", "docker", "--author", "none", "--store", str(tmp_path / "s.db"),
                    env={"DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock"})
    assert proc.returncode == 3 and "Docker engine" in proc.stderr


def test_bad_usage_exits_2() -> None:
    proc = run_cli("audit")
    assert proc.returncode == 2 and "usage" in proc.stderr


def test_help_prints_for_the_program_and_every_command(capsys) -> None:
    from testjack_tui.cli import build_parser

    commands = build_parser()._subparsers._group_actions[0].choices  # every subcommand argparse knows
    for argv in [[], *([name] for name in commands), ["cache", "prune"]]:
        with pytest.raises(SystemExit) as stop:
            main([*argv, "--help"])
        assert stop.value.code == 0, argv
        assert "usage: testjack" in capsys.readouterr().out, argv


def test_the_console_without_a_terminal_says_so_instead_of_hanging(tmp_path: Path) -> None:
    proc = run_cli("--store", str(tmp_path / "s.db"))
    assert proc.returncode == 2 and "needs a terminal" in proc.stderr


def test_store_may_come_before_or_after_the_command(tmp_path: Path) -> None:
    before, after = tmp_path / "before.db", tmp_path / "after.db"
    assert run_cli("--store", str(before), "import", str(MINI), cwd=tmp_path).returncode == 0
    assert run_cli("import", str(MINI), "--store", str(after), cwd=tmp_path).returncode == 0
    assert [r.id for r in Store(before).list_runs()] == ["mini"] == [r.id for r in Store(after).list_runs()]
    assert not (tmp_path / "testjack.db").exists()


def test_a_bad_llm_budget_is_refused_before_any_call(tmp_path: Path) -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "TESTJACK_MODEL": "m"}
    proc = run_cli("audit", str(MINI), "--author", "llm", "--budget", "run_dollars=5", "--store",
                   str(tmp_path / "s.db"), env=env)
    assert proc.returncode == 2 and "run_usd" in proc.stderr
    proc = run_cli("audit", str(MINI), "--author", "llm", "--budget", "run_usd=lots", "--store",
                   str(tmp_path / "s.db"), env=env)
    assert proc.returncode == 2 and "'lots' is not a number" in proc.stderr
    assert Store(tmp_path / "s.db").summary("mini").executions == 0


def test_the_symbolic_probe_is_refused_where_it_cannot_work(tmp_path: Path) -> None:
    for args, text in [(("--author", "none", "--symbolic", "on"), "use it with --author offline"),
                       (("--symbolic-budget", "30"), "use it with --symbolic on"),
                       (("--mode", "task-analysis", "--symbolic", "on"), "task analysis audits none")]:
        proc = run_cli("audit", str(MINI), *args, "--store", str(tmp_path / "s.db"))
        assert proc.returncode == 2 and text in proc.stderr, (args, proc.stderr)
        assert Store(tmp_path / "s.db").summary("mini").executions == 0


def test_harbor_tasks_without_an_engine_exit_3_naming_the_tasks_whatever_the_backend(tmp_path: Path) -> None:
    harbor = ROOT / "tests" / "fixtures" / "harbor_docker"
    proc = run_cli("audit", str(harbor), "--backend", "local", "--author", "none", "--store", str(tmp_path / "s.db"),
                   env={"DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock"})
    assert proc.returncode == 3
    assert "task(s) wordcount build their own container image (Harbor tasks)" in proc.stderr
    assert "--backend local" not in proc.stderr  # no advice that cannot work for these tasks


def test_audit_json_keeps_progress_lines_on_stderr_when_it_is_a_pipe(tmp_path: Path) -> None:
    proc = run_cli("audit", str(MINI), "--author", "none", "--workers", "2", "--json", "--store", str(tmp_path / "s.db"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["schema"] == "testjack.report/1"  # stdout is the report alone
    steps = [line for line in proc.stderr.splitlines() if line.startswith("[") and "official tests" in line]
    assert steps, proc.stderr
