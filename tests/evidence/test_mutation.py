"""Mutation testing of the trial's changed lines, run through the real local world backend."""

from __future__ import annotations

import subprocess

import pytest
from evidence_support import code, make_diff

from testjack_tui.evidence import generate_mutants, mutant_request, survivors
from testjack_tui.model import EvidenceKind
from testjack_tui.worlds import Executor
from testjack_tui.worlds.request import ExecRequest, Patch

BEFORE = "LIMIT = 3\n\n\ndef untouched(a, b):\n    return a + b\n"
UNDERSPECIFIED = BEFORE + "\n\ndef is_adult(age):\n    return age >= 18\n"
PINNED = BEFORE + "\n\ndef double(x):\n    return x * 2\n"
TESTS = code("""
    def test_adult():
        from people import is_adult
        assert is_adult(30) is True
        assert is_adult(5) is False

    def test_double():
        from people import double
        assert double(2) == 4
""")


def test_mutants_touch_only_the_changed_lines():
    patch = make_diff({"people.py": BEFORE}, {"people.py": UNDERSPECIFIED})
    mutants = generate_mutants(patch, lambda p: UNDERSPECIFIED, limit=50)
    assert {m.line for m in mutants} == {9}  # `untouched`'s `+` and LIMIT are not mutated
    assert {m.operator for m in mutants} == {"operator", "constant", "return"}
    assert [m.patch.name for m in mutants] == [f"mutant:{i}" for i in range(len(mutants))]
    assert any("`>=` -> `>`" in m.description for m in mutants)


def test_each_mutant_patch_applies_on_top_of_the_trial(tmp_path):
    patch = make_diff({"people.py": BEFORE}, {"people.py": UNDERSPECIFIED})
    for mutant in generate_mutants(patch, lambda p: UNDERSPECIFIED, limit=50):
        (tmp_path / "people.py").write_text(UNDERSPECIFIED)
        done = subprocess.run(["patch", "-p1", "--batch", "--silent"], input=mutant.patch.text, text=True,
                              cwd=tmp_path, capture_output=True)
        assert done.returncode == 0, done.stdout + done.stderr
        changed = [(a, b) for a, b in zip(UNDERSPECIFIED.splitlines(), (tmp_path / "people.py").read_text()
                                          .splitlines()) if a != b]
        assert len(changed) == 1 and changed[0][0].strip() == "return age >= 18"


def test_limit_spreads_mutants_over_lines_first():
    after = BEFORE + "\n\ndef f(a, b):\n    x = a + b\n    y = a - b\n    return x * y\n"
    patch = make_diff({"people.py": BEFORE}, {"people.py": after})
    mutants = generate_mutants(patch, lambda p: after, limit=3)
    assert sorted(m.line for m in mutants) == [9, 10, 11]


def test_mutant_request_only_adds_one_patch():
    base = ExecRequest(snapshot="/x", snapshot_digest="d", patches=(Patch("trial:t", "p"),), coverage=True,
                       test_ids=("a",))
    patch = make_diff({"people.py": BEFORE}, {"people.py": PINNED})
    [mutant, *_] = generate_mutants(patch, lambda p: PINNED, limit=1)
    request = mutant_request(base, mutant)
    assert request.patches == (*base.patches, mutant.patch) and request.test_ids == base.test_ids
    assert request.coverage is False


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("people")
    (root / "people.py").write_text(BEFORE)
    (root / "tests").mkdir()
    (root / "tests" / "test_people.py").write_text(TESTS)
    return root


def _survivors(repo, after: str, test_id: str):
    patch = make_diff({"people.py": BEFORE}, {"people.py": after})
    base = ExecRequest(snapshot=str(repo), snapshot_digest="people-1", patches=(Patch("trial:t", patch),),
                       test_ids=(test_id,))
    mutants = generate_mutants(patch, lambda p: after, limit=50)
    with Executor(workers=2) as executor:
        return mutants, survivors(mutants, base, executor.run_all, 300.0, run_id="r", trial_id="t")


def test_mutants_survive_where_t0_underspecifies_and_die_where_it_pins(repo):
    mutants, found = _survivors(repo, UNDERSPECIFIED, "tests/test_people.py::test_adult")
    assert len(mutants) == 3
    assert sorted(e.detail for e in found) == [
        "mutant survives T0: `>=` -> `>` in `return age >= 18`",
        "mutant survives T0: constant 18 -> 19 in `return age >= 18`",
    ]
    assert all(e.kind == EvidenceKind.MUTANT and (e.file, e.line) == ("people.py", 9) for e in found)

    mutants, found = _survivors(repo, PINNED, "tests/test_people.py::test_double")
    assert len(mutants) == 3 and found == []


def test_an_exhausted_budget_runs_no_more_batches(repo):
    patch = make_diff({"people.py": BEFORE}, {"people.py": UNDERSPECIFIED})
    mutants = generate_mutants(patch, lambda p: UNDERSPECIFIED, limit=50)
    asked = []

    def execute(requests):
        asked.extend(requests)
        return []

    base = ExecRequest(snapshot=str(repo), snapshot_digest="people-1", patches=(Patch("trial:t", patch),))
    assert survivors(mutants, base, execute, budget_s=0.0) == [] and asked == []
    survivors(mutants, base, execute, budget_s=60.0, batch_size=2)
    assert len(asked) == 3
