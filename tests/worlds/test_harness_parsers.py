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
        # an id that is not cut inside its parameters never stands for the tests it starts
        "tests/test_cli.py::test_help": "missing",
    }
    assert log_failures("swebench-pytest", PYTEST_LOG) == ["tests/test_cli.py::test_other"]


def test_an_id_cut_inside_its_parameters_grades_as_the_tests_it_starts_when_they_agree():
    """swebench 5.0.2 (harness/grading.py, ``_resolve_case``): an id that is no key of the log is
    matched by prefix only when it has more ``[`` than ``]``, and is a failure when the tests it
    starts disagree on passing. A key of the log (the first word after the status) wins first."""
    log = ("PASSED tests/t.py::test_a[x-1 y]\nPASSED tests/t.py::test_a[x-2 z]\n"
           "PASSED tests/t.py::test_b[1-a b]\nFAILED tests/t.py::test_b[1-c d] - boom\n"
           "SKIPPED tests/t.py::test_c[q-r s]\nPASSED tests/t.py::test_c[q-t u]\n"
           "FAILED tests/t.py::test_k[m n] - boom\nPASSED tests/t.py::test_k[m o]\n")
    ids = ["tests/t.py::test_a[x", "tests/t.py::test_b[1", "tests/t.py::test_c[q", "tests/t.py::test_",
           "tests/t.py::test_k[m"]
    assert parse_harness("swebench-pytest", log, ids) == {
        "tests/t.py::test_a[x": "pass", "tests/t.py::test_b[1": "fail", "tests/t.py::test_c[q": "fail",
        "tests/t.py::test_": "missing",  # not cut inside parameters: no prefix match
        "tests/t.py::test_k[m": "pass",  # the harness's key; its last line wins
    }


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
    """As swebench 5.0.2 grades (harness/grading.py: ``test_failed`` counts SKIPPED, ``test_maintained``
    accepts it for pass-to-pass); releases up to 4.1.0 counted a skip neither way."""
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


def test_a_path_parameter_is_graded_by_its_last_part_as_the_harness_shortens_it():
    log = """\
PASSED tests/test_regr.py::test_package[/testbed/tests/regrtest_data/package/__init__.py]
FAILED tests/test_regr.py::test_glob[/testbed/tests/*.py] - AssertionError
PASSED tests/test_regr.py::test_url[//host/share/a.py]
PASSED tests/test_regr.py::test_name[args0-ok]
"""
    graded = ["tests/test_regr.py::test_package[/__init__.py]",  # the id the dataset holds
              "tests/test_regr.py::test_glob[/testbed/tests/*.py]", "tests/test_regr.py::test_glob[/*.py]",
              "tests/test_regr.py::test_url[//host/share/a.py]", "tests/test_regr.py::test_url[/a.py]",
              "tests/test_regr.py::test_name[args0-ok]"]
    assert parse_harness("swebench-pytest", log, graded) == {
        graded[0]: "pass", graded[1]: "fail", graded[2]: "missing", graded[3]: "pass", graded[4]: "missing",
        graded[5]: "pass"}


# pylint 2.15 without astroid in its environment: every test file fails to collect
PYLINT_LOG = """\
============================= test session starts ==============================
collected 0 items / 1 error

==================================== ERRORS ====================================
_____________________ ERROR collecting tests/test_self.py ______________________
ImportError while importing test module '/work/r/tests/test_self.py'.
Hint: make sure your test modules/packages have valid Python names.
Traceback:
tests/test_self.py:30: in <module>
    from pylint import extensions, modify_sys_path
pylint/__init__.py:11: in <module>
    from pylint.__pkginfo__ import __version__
E   ModuleNotFoundError: No module named 'astroid'
=========================== short test summary info ============================
ERROR tests/test_self.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
"""


def test_the_malformed_message_quotes_the_log_s_first_import_error():
    ids = [f"tests/test_self.py::TestRunTC::test_{i}" for i in range(121)]
    task = _task(ids[:1], ids[1:])
    run = ExecResult(status="ok", exit_code=2, stdout=PYLINT_LOG, outcomes={t: "missing" for t in ids})
    summary, _ = reference_failures(task, [run, run, run])
    assert summary.endswith("; the log's first collection or import error: ModuleNotFoundError: No module named 'astroid'")
    assert "\n" not in summary
