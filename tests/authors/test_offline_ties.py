"""The offline author and ties: no witness on an input where the reference's answer is a tie-break.

``closest(numbers)`` returns the two closest numbers; when two pairs are equally close P does not
say which wins. The reference keeps the first pair it meets, ``last-tie`` the last, ``first-tie``
the first of the sorted order: all three are correct. ``adjacent`` only compares neighbours, a
real defect on inputs whose closest pair is not adjacent. Run once with the boundary check off
(the control: some probe input is a tie, and its witness refutes correct trials) and once on.
"""



import testjack_tui.authors.offline.boundary as boundary
from tests.authors.conftest import audit_humaneval
from testjack_tui.model import Verdict

PROBLEM = {'task_id': 'Tie/0', 'entry_point': 'closest', 'prompt': 'def closest(numbers: list) -> tuple:\n    """From a list of at least two numbers, return the two closest to each other, smaller first.\n    >>> closest([1.0, 2.0, 3.9, 5.0])\n    (1.0, 2.0)\n    """\n', 'canonical_solution': '    best = None\n    for i in range(len(numbers)):\n        for j in range(i + 1, len(numbers)):\n            a, b = sorted((numbers[i], numbers[j]))\n            if best is None or b - a < best[1] - best[0]:\n                best = (a, b)\n    return best\n', 'test': 'def check(candidate):\n    assert candidate([1.0, 2.0, 3.9, 5.0]) == (1.0, 2.0)\n    assert candidate([1.0, 5.0, 5.9, 3.0]) == (5.0, 5.9)\n    assert candidate([7.5, 1.25, 2.0]) == (1.25, 2.0)\n'}
SAMPLES = [
    {'id': 'last-tie', 'task_id': 'Tie/0', 'completion': '    best = None\n    for i in range(len(numbers)):\n        for j in range(i + 1, len(numbers)):\n            a, b = sorted((numbers[i], numbers[j]))\n            if best is None or b - a <= best[1] - best[0]:\n                best = (a, b)\n    return best\n'},
    {'id': 'first-tie', 'task_id': 'Tie/0', 'completion': '    s = sorted(numbers)\n    pairs = [(s[k], s[k + 1]) for k in range(len(s) - 1)]\n    return min(pairs, key=lambda p: p[1] - p[0])\n'},
    {'id': 'adjacent', 'task_id': 'Tie/0', 'completion': '    pairs = [tuple(sorted((numbers[k], numbers[k + 1]))) for k in range(len(numbers) - 1)]\n    return min(pairs, key=lambda p: p[1] - p[0])\n'},
    {'id': 'ref-a', 'task_id': 'Tie/0', 'completion': '    best = None\n    for i in range(len(numbers)):\n        for j in range(i + 1, len(numbers)):\n            a, b = sorted((numbers[i], numbers[j]))\n            if best is None or b - a < best[1] - best[0]:\n                best = (a, b)\n    return best\n'},
    {'id': 'ref-b', 'task_id': 'Tie/0', 'completion': '    # same as the reference\n    best = None\n    for i in range(len(numbers)):\n        for j in range(i + 1, len(numbers)):\n            a, b = sorted((numbers[i], numbers[j]))\n            if best is None or b - a < best[1] - best[0]:\n                best = (a, b)\n    return best\n'},
]


def _audit(folder):
    store, run_id = audit_humaneval(folder, [PROBLEM], SAMPLES, "per-trial")
    return {k: v.verdict for k, v in store.list_verdicts(run_id).items()}, _why(store, run_id)


def _why(store, run_id) -> str:
    """What refuted each refuted trial: the witness's code and its outcome per world (shown when an
    assertion fails, so a failure on another machine names its cause)."""
    lines = []
    for trial, record in store.list_verdicts(run_id).items():
        if record.verdict != Verdict.REFUTED:
            continue
        lines.append(f"{trial}: {record.rule}")
        for witness in store.list_witnesses(run_id):
            if witness.id in record.witnesses:
                outcomes = {w: str(r.outcome) for w, r in store.witness_results(witness.id).items()}
                lines += [f"  {witness.id} {witness.origin} {outcomes}", witness.code]
    return "\n".join(lines)


def test_without_the_check_a_tie_refutes_correct_trials(tmp_path, monkeypatch):
    monkeypatch.setattr(boundary, "MAX_CHECKED", 0)
    verdicts, why = _audit(tmp_path)
    assert Verdict.REFUTED in (verdicts["last-tie"], verdicts["first-tie"]), why


def test_no_witness_on_a_tie_and_the_real_defect_is_still_refuted(tmp_path):
    verdicts, why = _audit(tmp_path)
    assert verdicts["adjacent"] == Verdict.REFUTED, why
    assert verdicts["last-tie"] == verdicts["first-tie"] == Verdict.SOUND, why
    assert verdicts["ref-a"] == verdicts["ref-b"] == Verdict.SOUND, why

