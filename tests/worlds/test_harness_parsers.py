"""Graded ids read from logs by the SWE-bench harness's rules, and the exit-code cross-check."""

from __future__ import annotations

from testjack_tui.audit.grading import reference_failures, t0_passes
from testjack_tui.model import Task
from testjack_tui.model import TestSpec as Spec
from testjack_tui.worlds.harness_parsers import log_failures, parse_harness
from testjack_tui.worlds.junit import cross_check
from testjack_tui.worlds.request import ExecResult

PYTEST_LOG = """\
tests/test_cli.py::test_help_msg[args1-No such file] PASSED [ 50%]
=========================== short test summary info ============================
PASSED tests/test_cli.py::test_help_msg[args0-ok]
PASSED tests/test_cli.py::test_help_msg[args1-No such file]
PASSED tests/test_cli.py::test_path[dir/sub.py]
XFAIL tests/test_cli.py::test_later - not yet
SKIPPED [1] tests/test_cli.py:30: no network
FAILED tests/test_cli.py::test_other - AssertionError: x - y
"""


def test_pytest_ids_cut_at_a_space_and_with_a_slash_are_read_as_the_harness_reads_them():
    ids = ["tests/test_cli.py::test_help_msg[args1-No", "tests/test_cli.py::test_path[dir/sub.py]",
           "tests/test_cli.py::test_later", "tests/test_cli.py::test_other", "tests/test_cli.py::test_gone",
           "tests/test_cli.py::test_help_msg[args1-No such file]", "tests/test_cli.py::test_help"]
    assert parse_harness("swebench-pytest", PYTEST_LOG, ids) == {
        "tests/test_cli.py::test_help_msg[args1-No": "pass",  # the harness's own key
        "tests/test_cli.py::test_path[dir/sub.py]": "pass",
        "tests/test_cli.py::test_later": "pass",  # XFAIL counts as passed
        "tests/test_cli.py::test_other": "fail",
        "tests/test_cli.py::test_gone": "missing",
        "tests/test_cli.py::test_help_msg[args1-No such file]": "pass",  # the whole id matches too
        "tests/test_cli.py::test_help": "pass",  # a prefix of node ids: the worst of them
    }
    assert log_failures("swebench-pytest", PYTEST_LOG) == ["tests/test_cli.py::test_other"]


def test_a_non_zero_exit_is_explained_by_an_ungraded_failure_only():
    graded = {"test_a": "pass"}
    assert cross_check(graded, True, 1, ["test_b"]) == (
        graded, "the command exited 1: tests that are not graded failed (test_b)")
    outcomes, note = cross_check(graded, True, 1, [])
    assert outcomes == {"test_a": "error"} and "not counted as a pass" in note


def _task(f2p, p2p, parser="swebench-pytest"):
    return Task(run_id="r", id="t", title="t", prompt="", snapshot="", snapshot_digest="", reference_patch="",
                test_patch="", tests=Spec(command="x", fail_to_pass=f2p, pass_to_pass=p2p, log_parser=parser))


def test_skips_fail_a_fail_to_pass_test_and_pass_a_pass_to_pass_one():
    task = _task(["f"], ["p"])
    assert t0_passes(task, ExecResult(status="ok", exit_code=1, outcomes={"f": "pass", "p": "skip"}))
    assert not t0_passes(task, ExecResult(status="ok", exit_code=0, outcomes={"f": "skip", "p": "pass"}))


def test_the_malformed_message_says_what_happened_per_test_in_one_line():
    ids = [f"tests/test_x.py::test_{i}" for i in range(121)]
    task = _task(ids[:1], ids[1:])
    run = ExecResult(status="ok", exit_code=1, stdout="ERROR tests/test_x.py - ImportError\n",
                     outcomes={t: "missing" for t in ids})
    failed = ExecResult(status="ok", exit_code=1, outcomes={**{t: "pass" for t in ids}, ids[5]: "fail"})
    summary, details = reference_failures(task, [run, run, failed])
    assert summary.startswith("the reference does not pass 121 of 121 graded tests "
                              "(121 not collected (its file failed to import))")
    assert "\n" not in summary and len(summary) < 400
    assert len(details.splitlines()) == 121
    assert "tests/test_x.py::test_5: not collected (its file failed to import) in 2 of 3 runs, failed in 1 of 3 runs" in details
