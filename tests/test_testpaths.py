"""The three senses of "a test path", on ordinary paths: what each caller is told."""

import pytest

from testjack_tui.testpaths import is_harness_file, is_test_module, is_test_source

# path: (is_test_module: where T0's tests live, placement;
#        is_harness_file: the grader's files a trial may not edit, evidence;
#        is_test_source: test code whose functions are never probed, signatures)
TABLE = {
    "tests/test_x.py": (True, True, True),
    "test_x.py": (True, True, True),
    "x_test.py": (True, True, True),
    "conftest.py": (False, True, True),  # a root conftest.py is no place for a witness
    "tests/conftest.py": (True, True, True),
    "testing.py": (True, False, False),  # a test*.py name, but pytest does not collect it
    "tests.py": (True, False, False),  # Django's app-level test module
    "test.py": (True, False, False),
    "testing/util.py": (True, True, False),  # numpy.testing-like: library code to probe
    "src/pkg/test_utils.py": (True, True, True),
    "docs/test.md": (False, False, False),
    "tests/data/input.json": (False, True, True),  # test data: not a module, but the harness's
    "test_data.json": (False, False, True),
    "pkg/testing/test_x.py": (True, True, True),
    "src/pkg/core.py": (False, False, False),
    # other languages' test files, by name beside the code: the grader's, never a place for a witness
    "server/handler_test.go": (False, True, False),
    "src/app/slug.test.js": (False, True, False),
    "web/src/view.spec.tsx": (False, True, False),
    "src/__tests__/slug.js": (False, True, False),
    "server/handler.go": (False, False, False),
    "src/latest.js": (False, False, False),
}


@pytest.mark.parametrize("path", TABLE)
def test_each_variant_on_ordinary_paths(path):
    assert (is_test_module(path), is_harness_file(path), is_test_source(path)) == TABLE[path]
