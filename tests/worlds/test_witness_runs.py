"""Witness files on tasks whose command names its own tests (runtests.py, bin/test, pytest -rA files).

Each fixture repository has a small runner of the real one's shape; the witness files are run on
the local backend, through the request the audit builds, and their outcomes must be read.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from testjack_tui.audit.execution import ExecutionService
from testjack_tui.model import Run, Task
from testjack_tui.model import TestSpec as Spec
from testjack_tui.worlds.local import LocalBackend
from testjack_tui.worlds.witness_runs import for_witnesses, witness_command

CALC = "def add(a, b):\n    return a + b\n"

# Django's runner, in small: module labels under tests/, unittest at verbosity 2 on stderr, options
# it does not know ignored, exit 1 on a failure. Prints "Ran 0 tests" when a label holds no TestCase.
RUNTESTS = """\
import os, sys, unittest
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.dirname(here)]
labels = [a for a in sys.argv[1:] if not a.startswith("-") and not a.isdigit()]
suite = unittest.defaultTestLoader.loadTestsFromNames(labels)
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(0 if result.wasSuccessful() else 1)
"""

# SymPy's bin/test, in small: the test_ functions of the given files, one verbose line each.
BIN_TEST = """\
import importlib.util, sys, traceback
files = [a for a in sys.argv[1:] if not a.startswith("-")]
passed = failed = 0
for path in files:
    spec = importlib.util.spec_from_file_location("m", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    print(path + "[?] ")
    for name in sorted(n for n in dir(mod) if n.startswith("test_")):
        try:
            getattr(mod, name)()
            print(name + " ok")
            passed += 1
        except AssertionError:
            print(name + " F")
            failed += 1
print("tests finished: %d passed, %s in 0.01 seconds" % (passed, "%d failed," % failed if failed else ""))
sys.exit(1 if failed else 0)
"""

DJANGO_PASSING = ("import unittest\nfrom calc import add\n\n\nclass W(unittest.TestCase):\n"
                  "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n")
DJANGO_FAILING = DJANGO_PASSING.replace("4)", "5)")
PYTEST_PASSING = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
PYTEST_FAILING = PYTEST_PASSING.replace("== 4", "== 5")


@pytest.fixture
def backend(cache_dir):
    return LocalBackend(cache_dir=cache_dir)


def _task(make_request, files: dict[str, str], command: str, log_parser: str) -> Task:
    request = make_request(files)  # writes the repository and its digest
    return Task(run_id="r", id="t", title="t", prompt="", snapshot=request.snapshot,
                snapshot_digest=request.snapshot_digest, reference_patch="", test_patch="",
                tests=Spec(command=command, fail_to_pass=["official"], timeout=60, log_parser=log_parser))


def _witness_request(task: Task, witnesses: dict[str, str]):
    """The request the audit builds for a batch of witness files on the null world."""
    service = ExecutionService(store=None, run=Run(id="r", name="r"))  # world_request reads no store
    return service.world_request(task, "null", extra_files=tuple(witnesses.items()), test_ids=tuple(witnesses))


def test_django_runner_runs_witness_modules_and_their_outcomes_are_read(make_request, backend):
    task = _task(make_request, {"calc.py": CALC, "tests/runtests.py": RUNTESTS},
                 "python tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 official_tests",
                 "django")
    witnesses = {"tests/test_tj_good.py": DJANGO_PASSING, "tests/test_tj_bad.py": DJANGO_FAILING,
                 "tests/test_tj_empty.py": PYTEST_PASSING}  # no TestCase: the runner finds nothing
    result = backend.run(_witness_request(task, witnesses))
    assert result.status == "ok", result.message
    assert result.outcomes == {"tests/test_tj_good.py": "pass", "tests/test_tj_bad.py": "fail",
                               "tests/test_tj_empty.py": "missing"}  # not collected, never a pass
    assert "test_add (test_tj_good.W" in result.stdout  # the runner was given the module label


def test_before_the_rewrite_witness_outcomes_were_missing(make_request, backend):
    task = _task(make_request, {"calc.py": CALC, "tests/runtests.py": RUNTESTS},
                 "python tests/runtests.py --verbosity 2 official_tests", "django")
    request = _witness_request(task, {"tests/test_tj_good.py": DJANGO_PASSING})
    original = replace(request, command=task.tests.command, log_parser="django")  # as the audit sent it
    assert backend.run(original).outcomes == {"tests/test_tj_good.py": "missing"}
    assert backend.run(request).outcomes == {"tests/test_tj_good.py": "pass"}


def test_sympy_runner_runs_witness_files(make_request, backend):
    task = _task(make_request, {"calc.py": CALC, "bin/test": BIN_TEST},
                 "PYTHONWARNINGS='ignore::UserWarning' python bin/test -C --verbose pkg/tests/test_official.py",
                 "sympy")
    witnesses = {"pkg/tests/test_tj_good.py": PYTEST_PASSING, "pkg/tests/test_tj_bad.py": PYTEST_FAILING}
    result = backend.run(_witness_request(task, witnesses))
    assert result.status == "ok", result.message
    assert result.outcomes == {"pkg/tests/test_tj_good.py": "pass", "pkg/tests/test_tj_bad.py": "fail"}


def test_pytest_log_command_runs_witness_files_instead_of_its_own(make_request, backend):
    official = "from calc import add\n\n\ndef test_official():\n    assert add(1, 1) == 3\n"  # always fails
    task = _task(make_request, {"calc.py": CALC, "tests/test_official.py": official},
                 "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python -m pytest -p no:cacheprovider -rA tests/test_official.py",
                 "pytest-log")
    witnesses = {"tests/test_tj_good.py": PYTEST_PASSING, "tests/test_tj_bad.py": PYTEST_FAILING}
    result = backend.run(_witness_request(task, witnesses))
    assert result.status == "ok", result.message
    assert result.outcomes == {"tests/test_tj_good.py": "pass", "tests/test_tj_bad.py": "fail"}
    assert "test_official" not in result.stdout  # the task's own test file was not run


def test_official_runs_and_placeholder_commands_are_left_alone(make_request):
    task = _task(make_request, {"calc.py": CALC}, "python tests/runtests.py --verbosity 2 official_tests", "django")
    service = ExecutionService(store=None, run=Run(id="r", name="r"))
    t0 = service.world_request(task, "null")
    assert t0.command == task.tests.command and t0.log_parser == "django"
    templated = make_request({"calc.py": CALC}, command="python -m pytest -rA {tests}", log_parser="pytest-log",
                             extra_files=(("tests/w.py", PYTEST_PASSING),), test_ids=("tests/w.py",))
    assert for_witnesses(templated) is templated


def test_commands_keep_their_prefix_and_options():
    got = witness_command("cd /testbed && pytest --no-header -rA --tb=no -p no:cacheprovider tests/test_x.py::t",
                          "pytest-log", ["tests/w.py"])
    assert got == "cd /testbed && pytest --no-header -rA --tb=no -p no:cacheprovider -rA --junitxml={junit} {tests}"
    django = witness_command("./tests/runtests.py --settings test_sqlite --parallel 1 utils_tests.test_text",
                             "django", ["tests/utils_tests/test_tj.py"])
    assert "./tests/runtests.py --settings test_sqlite --parallel 1 utils_tests.test_tj " in django
    assert "utils_tests.test_text" not in django
    assert witness_command("tox --current-env -epy39 -- tests/test_x.py", "pytest-log", ["tests/w.py"]) is None
