"""Outcomes come from real pytest JUnit XML, per node id, including parametrised and file ids."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from testjack_tui.worlds.command import PYTEST_ENV, render_command
from testjack_tui.worlds.junit import read_outcomes
from testjack_tui.worlds.request import ExecRequest

TESTS = {
    "tests/test_x.py": (
        "import pytest\n"
        "def test_ok():\n    pass\n"
        "def test_bad():\n    assert 1 == 2\n"
        "@pytest.fixture\ndef broken():\n    raise RuntimeError('fixture')\n"
        "def test_err(broken):\n    pass\n"
        "@pytest.mark.skip(reason='no')\ndef test_skip():\n    pass\n"
        "class TestC:\n"
        "    @pytest.mark.parametrize('a,b', [(1, 2), (3, 3)])\n"
        "    def test_m(self, a, b):\n        assert a != b\n"
        "    class TestInner:\n        def test_deep(self):\n            pass\n"),
    "tests/test_w.py": "def test_one():\n    pass\ndef test_two():\n    pass\n",
    "tests/test_f.py": "def test_one():\n    pass\ndef test_two():\n    assert False\n",
    "tests/test_broken.py": "import nonexistent_module_xyz\ndef test_a():\n    pass\n",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("junitrepo")
    for rel, text in TESTS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _pytest_xml(root, name, *args):
    path = root / name
    env = {**os.environ, **PYTEST_ENV, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    f"--junitxml={path}", *args], cwd=root, env=env, capture_output=True)
    return path


@pytest.fixture(scope="module")
def xml(repo):
    return _pytest_xml(repo, "out.xml", "tests", "--ignore=tests/test_broken.py")


@pytest.fixture(scope="module")
def broken_xml(repo):
    # a collection error stops the whole session, so it gets a run of its own
    return _pytest_xml(repo, "broken.xml", "tests/test_broken.py")


def test_each_node_id_gets_its_outcome(xml):
    ids = ["tests/test_x.py::test_ok", "tests/test_x.py::test_bad", "tests/test_x.py::test_err",
           "tests/test_x.py::test_skip", "tests/test_x.py::TestC::test_m[1-2]",
           "tests/test_x.py::TestC::test_m[3-3]", "tests/test_x.py::TestC::TestInner::test_deep",
           "tests/test_x.py::test_never_written"]
    assert read_outcomes(xml, ids) == {
        "tests/test_x.py::test_ok": "pass", "tests/test_x.py::test_bad": "fail",
        "tests/test_x.py::test_err": "error", "tests/test_x.py::test_skip": "skip",
        "tests/test_x.py::TestC::test_m[1-2]": "pass", "tests/test_x.py::TestC::test_m[3-3]": "fail",
        "tests/test_x.py::TestC::TestInner::test_deep": "pass",
        "tests/test_x.py::test_never_written": "missing"}


def test_whole_file_ids(xml):
    assert read_outcomes(xml, ["tests/test_w.py", "tests/test_f.py", "tests/test_x.py",
                               "tests/test_absent.py"]) == {
        "tests/test_w.py": "pass", "tests/test_f.py": "fail", "tests/test_x.py": "error",
        "tests/test_absent.py": "missing"}


def test_a_module_that_fails_to_import_errors_its_tests(broken_xml):
    assert read_outcomes(broken_xml, ["tests/test_broken.py::test_a", "tests/test_broken.py"]) == {
        "tests/test_broken.py::test_a": "error", "tests/test_broken.py": "error"}


def test_no_ids_lists_every_case_by_node_id(xml):
    outcomes = read_outcomes(xml, [])
    assert outcomes["tests/test_x.py::TestC::test_m[1-2]"] == "pass"
    assert outcomes["tests/test_w.py::test_two"] == "pass"


def test_missing_or_broken_xml_means_missing(tmp_path):
    (tmp_path / "bad.xml").write_text("<testsuite><testcase")
    for path in (tmp_path / "absent.xml", tmp_path / "bad.xml"):
        assert read_outcomes(path, ["t.py::a"]) == {"t.py::a": "missing"}


def test_render_command_quotes_ids_and_junit():
    request = ExecRequest(snapshot="/s", snapshot_digest="d",
                          test_ids=("tests/t.py::test_a[x y]", "tests/t.py::b"),
                          command="python -m pytest --junitxml={junit} {tests} | awk '{print}'")
    assert render_command(request, "/o u/j.xml") == (
        "python -m pytest --junitxml='/o u/j.xml' 'tests/t.py::test_a[x y]' tests/t.py::b"
        " | awk '{print}'")
