"""The ``swebench-pro`` log parser: outcomes from the statuses an instance's own parser wrote."""

from __future__ import annotations

import json

from testjack_tui.worlds.instance_statuses import RESULTS_MARK
from testjack_tui.worlds.logparsers import parse


def _log(tests: list[tuple[str, str]], before: str = "", after: str = "") -> str:
    body = json.dumps({"tests": [{"name": n, "status": s} for n, s in tests]})
    return f"{before}{RESULTS_MARK}{body}\n{after}"


def test_graded_names_match_exactly_and_only_passed_passes():
    log = _log([("TestA", "PASSED"), ("TestA/sub", "FAILED"), ("TestB", "SKIPPED"), ("TestC", "ERROR")])
    got = parse("swebench-pro", log, ["TestA", "TestA/sub", "TestB", "TestC", "TestD", "TestA/su"])
    assert got == {"TestA": "pass", "TestA/sub": "fail", "TestB": "skip", "TestC": "error",
                   "TestD": "missing", "TestA/su": "missing"}


def test_a_name_that_passed_once_passes_as_the_release_grades_it():
    log = _log([("t", "FAILED"), ("t", "PASSED"), ("u", "FAILED"), ("u", "ERROR")])
    assert parse("swebench-pro", log, ["t", "u"]) == {"t": "pass", "u": "error"}


def test_a_witness_file_takes_the_worst_of_its_tests_and_is_missing_when_none_ran():
    log = _log([("test/w.test.js | one", "PASSED"), ("test/w.test.js | two", "FAILED"),
                ("tests/test_w.py::test_a", "PASSED"), ("tests/test_w.py::test_b", "SKIPPED")])
    got = parse("swebench-pro", log, ["test/w.test.js", "tests/test_w.py", "tests/test_other.py"])
    assert got == {"test/w.test.js": "fail", "tests/test_w.py": "pass", "tests/test_other.py": "missing"}


def test_only_the_first_results_line_counts_and_a_forged_later_one_is_ignored():
    forged = f"{RESULTS_MARK}" + json.dumps({"tests": [{"name": "t", "status": "PASSED"}]}) + "\n"
    assert parse("swebench-pro", _log([("t", "FAILED")], after=forged), ["t"]) == {"t": "fail"}


def test_no_results_or_broken_json_leaves_every_id_missing():
    assert parse("swebench-pro", "the parser crashed\n", ["t"]) == {"t": "missing"}
    assert parse("swebench-pro", f"{RESULTS_MARK}null\n", ["t"]) == {"t": "missing"}
    assert parse("swebench-pro", f"{RESULTS_MARK}{{not json\n", ["t"]) == {"t": "missing"}
