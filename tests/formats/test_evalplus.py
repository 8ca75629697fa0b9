"""EvalPlus's release files (HumanEval+, MBPP+) import as released, with T0 graded as EvalPlus grades base."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from testjack_tui.formats import ImportError_, detect_format, evalplus, humaneval
from worldkit import world, worlds_failing_t0

FIXTURES = Path(__file__).parent.parent / "fixtures" / "formats" / "evalplus"
MBPP = FIXTURES / "MbppPlus.jsonl"
HUMANEVAL_PLUS = FIXTURES / "HumanEvalPlus.jsonl"
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "mbppplus-dev"


def _failing(imported, root: Path, trials: bool = True) -> set[str]:
    """Which of the run's worlds fail T0: each trial's (by trial id), each reference's and each
    null world's (``ref:`` / ``null:`` and the task id)."""
    tasks = {t.id: t for t in imported.tasks}
    names, roots = {}, []
    for task in imported.tasks:
        for kind, patches in (("ref", (task.reference_patch, task.test_patch)), ("null", (task.test_patch,))):
            names[f"w{len(roots)}"] = f"{kind}:{task.id}"
            roots.append(world(task.snapshot, root / f"w{len(roots)}", *patches))
    for trial in imported.trials if trials else []:
        task = tasks[trial.task_id]
        names[f"w{len(roots)}"] = trial.id
        roots.append(world(task.snapshot, root / f"w{len(roots)}", trial.patch, task.test_patch))
    return {names[n] for n in worlds_failing_t0(roots)}


def test_mbpp_plus_file_imports_as_released_with_t0_the_base_inputs(tmp_path):
    got = evalplus.load(MBPP, tmp_path / "staging", samples=FIXTURES / "samples.jsonl")
    assert (got.run.format, [t.id for t in got.tasks], got.skipped) == ("evalplus", ["Mbpp/9001", "Mbpp/9002", "Mbpp/9003"], [])
    failing = _failing(got, tmp_path / "worlds")
    # the null worlds fail, the references pass; the floor-division mean fails a float input; the
    # answer wrong on an extended input only passes base; the special oracle EvalPlus applies to
    # are_equivalent (any answer) is read from evalplus itself
    assert failing == {"null:Mbpp/9001", "null:Mbpp/9002", "null:Mbpp/9003", "Mbpp/9001#wrong"}


def test_plus_t0_adds_the_extended_inputs(tmp_path):
    got = evalplus.load(MBPP, tmp_path / "staging", samples=FIXTURES / "samples.jsonl", t0="plus")
    assert "Mbpp/9002#plus-wrong" in _failing(got, tmp_path / "worlds")
    base = evalplus.load(MBPP, tmp_path / "staging2", samples=FIXTURES / "samples.jsonl")
    assert got.run.digest != base.run.digest  # another T0 is another run


def test_a_prompt_without_signature_gives_a_null_world_that_imports(tmp_path):
    got = evalplus.load(MBPP, tmp_path / "staging")
    null = world(got.tasks[0].snapshot, tmp_path / "null")
    done = subprocess.run([sys.executable, "-c", "import solution; solution.mean_of([1])"], cwd=null,
                          capture_output=True, text=True)
    assert "NotImplementedError: mean_of is not implemented yet" in done.stderr


def test_humaneval_and_auto_detection_recognise_the_records(tmp_path):
    assert detect_format(MBPP) == "evalplus"
    got = humaneval.load(MBPP, tmp_path / "staging", samples=FIXTURES / "samples.jsonl")
    assert (len(got.tasks), len(got.trials), got.skipped) == (3, 4, [])


def test_humaneval_plus_file_imports_as_is_with_its_base_tests_as_t0(tmp_path):
    got = evalplus.load(HUMANEVAL_PLUS, tmp_path / "staging", samples=FIXTURES / "humaneval_samples.jsonl")
    assert [t.id for t in got.tasks] == ["HumanEval/9001"]
    # the sample is wrong only on the record's extended input (which its ``test`` also holds)
    assert _failing(got, tmp_path / "worlds") == {"null:HumanEval/9001"}


def test_evalplus_format_refuses_a_file_of_other_records_naming_it(tmp_path):
    other = FIXTURES.parent / "humaneval"
    problems = next(f for f in sorted(other.iterdir()) if "canonical_solution" in f.read_text())
    with pytest.raises(ImportError_) as caught:
        evalplus.load(problems, tmp_path / "staging")
    assert str(problems) in str(caught.value) and "no base_input" in str(caught.value)


def test_a_record_whose_reference_fails_is_skipped_naming_it(tmp_path):
    rows = [json.loads(line) for line in MBPP.read_text().splitlines()]
    rows[1]["canonical_solution"] = "\ndef larger(a, b):\n    raise ValueError('no')\n"
    bad = tmp_path / "MbppPlus.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = evalplus.load(bad, tmp_path / "staging")
    assert [t.id for t in got.tasks] == ["Mbpp/9001", "Mbpp/9003"]
    assert [str(p) for p in got.skipped] == [
        f"{bad}: line 2 (Mbpp/9002): EvalPlus record: the reference fails on its inputs: ValueError: no"]


def test_without_the_evalplus_package_the_import_names_the_extra(tmp_path):
    script = (
        "import sys; sys.modules['evalplus'] = None\n"  # as if the package were not installed
        "from testjack_tui.formats import ImportError_, evalplus\n"
        f"try:\n    evalplus.load({str(MBPP)!r}, {str(tmp_path / 'staging')!r})\n"
        "except ImportError_ as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert f"{MBPP}: line 1 (Mbpp/9001)" in done.stdout and "pip install 'testjack[evalplus]'" in done.stdout


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.exists(), reason="../shared/corpora/mbppplus-dev is not present")
def test_mbppplus_dev_t0_agrees_with_evalplus_base_on_every_sample(tmp_path):
    got = evalplus.load(CORPUS / "problems.jsonl", tmp_path / "staging", samples=CORPUS / "samples.jsonl")
    assert (len(got.tasks), len(got.trials), got.skipped) == (190, 190, [])
    labels = [json.loads(line) for line in (CORPUS / "labels.jsonl").read_text().splitlines()]
    failing = _failing(got, tmp_path / "worlds")
    assert {f for f in failing if f.startswith("ref:")} == set()
    assert len({f for f in failing if f.startswith("null:")}) == 190
    assert {f for f in failing if ":" not in f} == {row["id"] for row in labels if row["base_status"] != "pass"}
