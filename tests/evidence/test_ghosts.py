"""Ghost branches from real branch coverage of T0 (coverage.py run by the local world backend)."""

from __future__ import annotations


import pytest
from evidence_support import code, make_diff

from testjack_tui.evidence import ghost_branches
from testjack_tui.model import EvidenceKind
from testjack_tui.worlds import run_request
from testjack_tui.worlds.request import ExecRequest, Patch

BEFORE = "def helper():\n    return 1\n"
AFTER = code('''
    def helper():
        return 1


    def clamp(x, lo, hi):
        """Clamp x into [lo, hi].

        A long docstring the tests never "run".
        """
        # reject an empty interval
        if lo > hi:
            message = "empty interval"
            raise ValueError(message)
        if x < lo:
            return lo

        if x > hi:
            return hi
        return x
''')
TESTS = code("""
    from calc import clamp

    def test_inside():
        assert clamp(5, 0, 10) == 5

    def test_above():
        assert clamp(50, 0, 10) == 10
""")
PROMPT = "Add clamp(x, lo, hi). It must raise ValueError for an empty interval (lo > hi)."


@pytest.fixture(scope="module")
def t0(tmp_path_factory):
    repo = tmp_path_factory.mktemp("repo")
    (repo / "calc.py").write_text(BEFORE)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_calc.py").write_text(TESTS)
    patch = make_diff({"calc.py": BEFORE}, {"calc.py": AFTER})
    request = ExecRequest(snapshot=str(repo), snapshot_digest="ghosts-1", patches=(Patch("trial:t", patch),),
                          test_ids=("tests/test_calc.py::test_inside", "tests/test_calc.py::test_above"),
                          coverage=True)
    result = run_request(request)
    assert result.passed(request.test_ids), result.message or result.stdout
    return patch, result.coverage


def read(path: str) -> str | None:
    return AFTER if path == "calc.py" else None


def test_unexecuted_added_lines_are_grouped_and_checked_against_the_prompt(t0):
    patch, coverage = t0
    found = ghost_branches(patch, coverage, read, PROMPT, run_id="r", trial_id="t")
    lines = {e.line: e for e in found}
    # lines 11-13: the empty-interval check body; 15: `return lo`. Docstring, comment, blank: never.
    assert sorted(lines) == [12, 15]
    assert lines[12].detail.startswith("lines 12-13 never run by T0")
    assert lines[12].mentioned_in_prompt is True and "ValueError" in lines[12].detail
    assert lines[15].mentioned_in_prompt is False
    assert all(e.kind == EvidenceKind.GHOST_BRANCH and (e.run_id, e.trial_id) == ("r", "t") for e in found)


def test_a_branch_never_taken_on_an_executed_line_is_reported(tmp_path):
    after = AFTER.replace("        if x > hi:\n            return hi\n", "        if x > hi:\n            x = hi\n")
    patch = make_diff({"calc.py": BEFORE}, {"calc.py": after})
    coverage = {"calc.py": {"lines": [1, 5, 11, 14, 17, 18, 19],
                            "arcs": [[-1, 1], [1, 5], [5, -1], [-5, 11], [11, 14], [14, 17], [17, 18], [18, 19],
                                     [19, -5]]}}
    found = ghost_branches(patch, coverage, lambda p: after, PROMPT)
    branch = [e for e in found if e.detail.startswith("branch")]
    assert [(e.line, e.detail.split(":")[0]) for e in branch] == [
        (17, "branch from line 17 to line 19 never taken by T0")]


def test_a_module_t0_never_imports_is_all_ghost():
    patch = make_diff({}, {"extra.py": "def unused(a):\n    return a * 2\n"})
    [found] = ghost_branches(patch, {"calc.py": {"lines": [1], "arcs": []}},
                             lambda p: "def unused(a):\n    return a * 2\n", "")
    assert found.line == 1 and "lines 1-2" in found.detail and "never imported" in found.detail


def test_no_coverage_means_no_findings():
    patch = make_diff({"calc.py": BEFORE}, {"calc.py": AFTER})
    assert ghost_branches(patch, None, read, PROMPT) == []
    # T0 ran its tests in a process coverage did not follow: nothing was measured, nothing is claimed
    assert ghost_branches(patch, {}, read, PROMPT) == []
