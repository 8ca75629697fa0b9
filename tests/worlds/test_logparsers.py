"""Outcomes read from console logs: each parser on hand-written logs, and through the local backend."""

from __future__ import annotations

import pytest

from testjack_tui.worlds import logparsers
from testjack_tui.worlds.local import LocalBackend
from testjack_tui.worlds.request import ExecRequest

# -- pytest ------------------------------------------------------------------------------------

PYTEST_LOG = """\
============================= test session starts ==============================
collected 6 items

tests/test_calc.py::test_add PASSED                                      [ 16%]
tests/test_calc.py::test_div FAILED                                      [ 33%]
tests/test_calc.py::test_skipped SKIPPED (no reason)                     [ 50%]
tests/test_calc.py::test_teardown PASSED                                 [ 66%]
tests/test_calc.py::test_teardown ERROR                                  [ 66%]

=========================== short test summary info ============================
PASSED tests/test_calc.py::test_add
PASSED tests/test_calc.py::test_teardown
PASSED tests/test_calc.py::test_param[a - b]
FAILED tests/test_calc.py::test_div - ZeroDivisionError: division by zero
ERROR tests/test_calc.py::test_teardown - RuntimeError: cleanup broke
XFAIL tests/test_calc.py::test_known - not fixed yet
SKIPPED [1] tests/test_calc.py:30: no reason
ERROR tests/test_broken.py - ImportError: cannot import name 'gone'
========== 1 failed, 3 passed, 1 skipped, 1 xfailed, 2 errors in 0.12s =========
"""


def test_pytest_log_reads_summary_and_verbose_lines():
    ids = ["tests/test_calc.py::test_add", "tests/test_calc.py::test_div",
           "tests/test_calc.py::test_teardown", "tests/test_calc.py::test_param[a - b]",
           "tests/test_calc.py::test_known", "tests/test_calc.py::test_absent",
           "tests/test_broken.py::test_x", "tests/test_calc.py"]
    got = logparsers.parse("pytest-log", PYTEST_LOG, ids)
    assert got == {
        "tests/test_calc.py::test_add": "pass",
        "tests/test_calc.py::test_div": "fail",
        "tests/test_calc.py::test_teardown": "error",  # a pass then a teardown error: worst counts
        "tests/test_calc.py::test_param[a - b]": "pass",  # " - " inside brackets is part of the id
        "tests/test_calc.py::test_known": "skip",
        "tests/test_calc.py::test_absent": "missing",
        "tests/test_broken.py::test_x": "error",  # its file failed to collect
        "tests/test_calc.py": "error",  # a whole file: its worst test
    }
    # -v alone (no -rA) still tells a skip
    assert logparsers.parse("pytest-log", PYTEST_LOG, ["tests/test_calc.py::test_skipped"]) == {
        "tests/test_calc.py::test_skipped": "skip"}


# -- Django ------------------------------------------------------------------------------------

DJANGO_LOG = """\
Testing against Django installed in '/testbed/django'
Importing application queries
Creating test database for alias 'default'...
System check identified no issues (1 silenced).
test_exists (queries.tests.ExistsTests) ... ok
test_ticket_123 (queries.tests.Queries1Tests) ... FAIL
test_join (queries.tests.JoinTests) ... ERROR
test_sqlite_only (queries.tests.VendorTests) ... skipped 'Database has feature(s) supports_foo'
test_known (queries.tests.Queries1Tests) ... expected failure
test_new_style (queries.test_q.QTests.test_new_style) ... ok
test_documented (queries.tests.DocTests)
Filtering on a related field keeps the order. ... ok
test_noisy (queries.tests.NoisyTests) ... printing from inside the test
ok

======================================================================
FAIL: test_ticket_123 (queries.tests.Queries1Tests)
----------------------------------------------------------------------
Traceback (most recent call last):
AssertionError: 1 != 2

----------------------------------------------------------------------
Ran 8 tests in 0.051s

FAILED (failures=1, errors=1, skipped=1, expected failures=1)
"""


def test_django_reads_verbosity_two_lines_in_both_name_forms():
    ids = ["test_exists (queries.tests.ExistsTests)",
           "test_ticket_123 (queries.tests.Queries1Tests)",
           "test_join (queries.tests.JoinTests)",
           "test_sqlite_only (queries.tests.VendorTests)",
           "test_known (queries.tests.Queries1Tests)",
           "test_new_style (queries.test_q.QTests)",  # old-form id, new-form log line
           "test_exists (queries.tests.ExistsTests.test_exists)",  # new-form id, old-form line
           "Filtering on a related field keeps the order.",  # an id that is a docstring line
           "test_documented (queries.tests.DocTests)",
           "test_noisy (queries.tests.NoisyTests)",
           "test_other (queries.tests.ExistsTests)"]
    got = logparsers.parse("django", DJANGO_LOG, ids)
    assert got == {
        "test_exists (queries.tests.ExistsTests)": "pass",
        "test_ticket_123 (queries.tests.Queries1Tests)": "fail",
        "test_join (queries.tests.JoinTests)": "error",
        "test_sqlite_only (queries.tests.VendorTests)": "skip",
        "test_known (queries.tests.Queries1Tests)": "skip",
        "test_new_style (queries.test_q.QTests)": "pass",
        "test_exists (queries.tests.ExistsTests.test_exists)": "pass",
        "Filtering on a related field keeps the order.": "pass",
        "test_documented (queries.tests.DocTests)": "pass",
        "test_noisy (queries.tests.NoisyTests)": "pass",
        "test_other (queries.tests.ExistsTests)": "missing",
    }


def test_django_failure_report_counts_when_the_result_line_is_garbled():
    log = "test_a (app.tests.T) ... some output without an outcome\n\n" \
          "ERROR: test_a (app.tests.T)\nTraceback (most recent call last):\n"
    assert logparsers.parse("django", log, ["test_a (app.tests.T)"]) == {"test_a (app.tests.T)": "error"}


# -- SymPy -------------------------------------------------------------------------------------

SYMPY_LOG = """\
============================= test process starts ==============================
executable:         /usr/bin/python3  (3.9.0-final-0) [CPython]
random seed:        12345

sympy/core/tests/test_arith.py[6]
test_add ok
test_mul F
test_pow E
test_known_bug f
test_slow_case Slow  - w
test_last ok                                                              [FAIL]

sympy/core/tests/test_other.py[2]
test_mul ok
test_lonely ok                                                              [OK]

________________________________________________________________________________
__________________ sympy/core/tests/test_arith.py:test_mul ______________________
AssertionError
============= tests finished: 3 passed, 1 failed, 1 exceptions in 0.40 seconds =
DO *NOT* COMMIT!
"""


def test_sympy_reads_verbose_lines_by_function_name():
    ids = ["test_add", "test_mul", "test_pow", "test_known_bug", "test_slow_case", "test_last",
           "test_lonely", "test_nowhere"]
    assert logparsers.parse("sympy", SYMPY_LOG, ids) == {
        "test_add": "pass",
        "test_mul": "fail",  # failed in one file, passed in another: the worst counts
        "test_pow": "error",
        "test_known_bug": "skip",
        "test_slow_case": "skip",
        "test_last": "pass",  # the file's [FAIL] marker is not the test's outcome
        "test_lonely": "pass",
        "test_nowhere": "missing",
    }


def test_unknown_parser_is_refused():
    with pytest.raises(ValueError, match="unknown log parser"):
        logparsers.parse("nose", "", ["t"])


def test_log_parser_is_part_of_the_cache_key():
    plain = ExecRequest(snapshot="/x", snapshot_digest="d", command="run {tests}")
    parsed = ExecRequest(snapshot="/x", snapshot_digest="d", command="run {tests}", log_parser="django")
    assert plain.key() != parsed.key()
    assert ExecRequest.from_dict(parsed.to_dict()) == parsed


# -- through the local backend -----------------------------------------------------------------

CALC = {
    "calc.py": "def div(a, b):\n    return a / b\n",
    "tests/test_calc.py": "from calc import div\n\n"
                          "def test_div():\n    assert div(6, 3) == 2\n\n"
                          "def test_zero():\n    assert div(1, 0) == 0\n",
}

# A stand-in for Django's runner: unittest-style lines on stderr, exit 1 when anything failed.
# FAKE_RESULTS (a file in the world) says what each test does, so a patch can change outcomes.
FAKE_RUNNER = """\
import sys
results = dict(line.split() for line in open("fake_results.txt") if line.strip())
failed = False
for name, outcome in results.items():
    word = {"pass": "ok", "fail": "FAIL", "error": "ERROR"}[outcome]
    failed = failed or word != "ok"
    print(f"{name} (pkg.tests.T) ... {word}", file=sys.stderr)
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else (1 if failed else 0))
"""


@pytest.fixture
def backend(cache_dir):
    return LocalBackend(cache_dir=cache_dir)


def test_local_backend_reads_pytest_log_without_junit(make_request, backend):
    ids = ("tests/test_calc.py::test_div", "tests/test_calc.py::test_zero")
    request = make_request(CALC, test_ids=ids, log_parser="pytest-log",
                           command="PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python -m pytest -p no:cacheprovider "
                                   "-rA {tests}")
    result = backend.run(request)
    assert result.status == "ok" and result.exit_code == 1, result.message
    assert result.outcomes == {"tests/test_calc.py::test_div": "pass", "tests/test_calc.py::test_zero": "fail"}
    # the same command without a log parser: nothing to read, every test missing
    blind = backend.run(make_request(CALC, test_ids=ids, command=request.command))
    assert blind.outcomes == {t: "missing" for t in ids} and "no JUnit XML" in blind.message


def test_local_backend_reads_a_django_style_runner(make_request, backend):
    files = {"runtests.py": FAKE_RUNNER, "fake_results.txt": "test_a pass\ntest_b fail\ntest_c error\n"}
    ids = ("test_a (pkg.tests.T)", "test_b (pkg.tests.T)", "test_c (pkg.tests.T)", "test_d (pkg.tests.T)")
    result = backend.run(make_request(files, test_ids=ids, command="python runtests.py", log_parser="django"))
    assert result.status == "ok" and result.exit_code == 1
    assert result.outcomes == {"test_a (pkg.tests.T)": "pass", "test_b (pkg.tests.T)": "fail",
                               "test_c (pkg.tests.T)": "error", "test_d (pkg.tests.T)": "missing"}


def test_exit_code_cross_check_applies_to_parsed_logs(make_request, backend):
    # every line says ok, but the runner exits 3: not a pass
    files = {"runtests.py": FAKE_RUNNER, "fake_results.txt": "test_a pass\n"}
    result = backend.run(make_request(files, test_ids=("test_a (pkg.tests.T)",),
                                      command="python runtests.py 3", log_parser="django"))
    assert result.outcomes == {"test_a (pkg.tests.T)": "error"}
    assert "exited 3" in result.message and not result.passed(("test_a (pkg.tests.T)",))
    honest = backend.run(make_request(files, test_ids=("test_a (pkg.tests.T)",),
                                      command="python runtests.py", log_parser="django"))
    assert honest.passed(("test_a (pkg.tests.T)",))


def test_log_beyond_max_output_is_parsed_but_not_returned(make_request, backend):
    # 3000 passing tests print ~90 KB to stderr; only 4 KB come back, all are read
    names = [f"test_{i:04d}" for i in range(3000)]
    files = {"runtests.py": FAKE_RUNNER, "fake_results.txt": "".join(f"{n} pass\n" for n in names)}
    ids = (f"{names[-1]} (pkg.tests.T)",)
    result = backend.run(make_request(files, test_ids=ids, command="python runtests.py",
                                      log_parser="django", max_output=4096))
    assert result.outcomes == {ids[0]: "pass"}
    assert len(result.stderr.encode()) <= 4096 and result.truncated


@pytest.mark.docker
def test_docker_backend_reads_the_same_log(make_request, tmp_path_factory):
    import os

    import docker

    from testjack_tui.worlds.docker_backend import BASE_IMAGE, DockerBackend, EngineUnreachable

    docker_backend = DockerBackend(cache_dir=tmp_path_factory.mktemp("dcache"))
    try:
        docker_backend.client().images.get(BASE_IMAGE)
    except (EngineUnreachable, docker.errors.ImageNotFound) as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"no Docker engine or base image: {exc}")
        pytest.skip(f"no Docker engine or base image: {exc}")
    names = [f"test_{i:04d}" for i in range(3000)]
    results = "".join(f"{n} pass\n" for n in names) + "test_bad fail\n"
    ids = (f"{names[-1]} (pkg.tests.T)", "test_bad (pkg.tests.T)")
    request = make_request({"runtests.py": FAKE_RUNNER, "fake_results.txt": results}, test_ids=ids,
                           command="python runtests.py", log_parser="django", max_output=4096,
                           backend="docker")
    result = docker_backend.run(request)
    assert result.status == "ok" and result.exit_code == 1, result.message
    assert result.outcomes == {ids[0]: "pass", ids[1]: "fail"}
    assert len(result.stderr.encode()) <= 4096 and result.truncated
