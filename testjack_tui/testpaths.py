"""Whether a repository path is a test: one definition, in the three senses TestJack needs.

The three answer different questions, so they differ on purpose (``tests/test_testpaths.py``
shows each one's answer on ordinary paths):

- ``is_test_module``: a Python file among the task's tests, where a new test file belongs
  (``worlds/placement``). Any ``test*.py`` name counts (``testing.py``, ``tests.py``), and any
  Python file in a ``tests``, ``test`` or ``testing`` folder; a ``conftest.py`` only inside one.
- ``is_harness_file``: a file a trial has no business editing because the grader reads it
  (``evidence``): every file in a test folder (data files too), ``test_*.py`` and
  ``*_test.py`` modules, and every ``conftest.py``, which configures pytest wherever it is; and
  other languages' test files found by name beside the code (``x_test.go``, ``x.test.js``,
  ``x.spec.ts``, ``__tests__/``), so the tampering checks hold for a SWE-bench Pro instance in Go
  or JavaScript too.
- ``is_test_source``: test code rather than code under test, whose functions are never probed
  (``pysource/signatures``). A ``testing`` folder does not count: ``numpy.testing`` and
  ``sympy.testing`` are public library code a patch may well change.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

_TEST_FOLDERS = ("tests", "test", "testing")
# test files that Go, Jest/Mocha/Vitest and the like find by name, wherever they are
_OTHER_LANGUAGE_TEST = re.compile(r"(?:_test\.go|\.(?:test|spec)\.(?:js|jsx|mjs|cjs|ts|tsx|mts|cts))$")


def _in_folder(path: PurePosixPath, folders: tuple[str, ...]) -> bool:
    return any(part in folders for part in path.parts[:-1])


def _pytest_name(name: str) -> bool:
    """The module names pytest collects by default."""
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def is_test_module(path: str) -> bool:
    """A Python file among the tests: a ``test*.py`` name, or in a test folder."""
    p = PurePosixPath(path)
    if p.suffix != ".py":
        return False
    return (p.name.startswith("test") or p.name.endswith("_test.py") or _in_folder(p, _TEST_FOLDERS))


def is_harness_file(path: str) -> bool:
    """A file of the test harness: a test module, any conftest.py, anything in a test folder, and
    a test file by another language's naming convention (Go's ``x_test.go``, ``x.test.js``,
    ``x.spec.ts``, anything under ``__tests__/``), which sits beside the code it tests."""
    p = PurePosixPath(path)
    return (p.name == "conftest.py" or _pytest_name(p.name) or _in_folder(p, _TEST_FOLDERS)
            or _OTHER_LANGUAGE_TEST.search(p.name) is not None or _in_folder(p, ("__tests__",)))


def is_test_source(path: str) -> bool:
    """Test code, not code under test: test modules, conftest.py, files in tests/ or test/."""
    p = PurePosixPath(path)
    # a ``test_`` name of any kind (fixture data too) is the tests'
    return (p.name.startswith("test_") or p.name == "conftest.py" or _pytest_name(p.name)
            or _in_folder(p, ("tests", "test")))
