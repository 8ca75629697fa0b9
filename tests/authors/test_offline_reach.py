"""The offline author on repository code: generators, constructors and properties, private helpers.

A native run made here, three tasks, each with a right trial and one that passes T0 but is wrong
where T0 does not look:

- ``evens``: ``evens(limit)`` is a generator; the wrong trial stops before ``limit`` (T0 only
  tries an odd limit). The probe compares what the two generators yield, not their reprs.
- ``span``: the reference's ``Span.__init__`` puts the ends in order and adds a ``length``
  property; the wrong trial adds the property only. The probe builds ``Span`` objects and reads
  ``length`` (changed by the reference) and ``start``/``stop`` (named by P).
- ``scale``: both trials change the private helper ``_scale``, which the unchanged public
  ``double_abs`` calls. The ``masked`` trial's helper answers otherwise, but ``double_abs`` gives
  every answer the reference gives: a finding, never a refutation. The ``wrong`` trial's helper
  shows through ``double_abs(6)``: refuted, by a witness on the public function.
"""

import json

import pytest

from testjack_tui.store import Store
from tests.patches import diff
from testjack_tui.audit import Audit
from testjack_tui.audit.engine import AuditOptions
from testjack_tui.formats.importing import import_path
from testjack_tui.model import EvidenceKind, Verdict, WitnessStatus

EVENS_REF = ('def evens(limit: int):\n    """The even numbers from 0 up to limit, inclusive."""\n'
             "    n = 0\n    while n <= limit:\n        yield n\n        n += 2\n")
EVENS_RIGHT = "def evens(limit: int):\n    return (i for i in range(0, limit + 1, 2))\n"
EVENS_SHORT = "def evens(limit: int):\n    yield from range(0, limit, 2)\n"

SPAN_BASE = "class Span:\n    def __init__(self, start, stop):\n        self.start = start\n        self.stop = stop\n"
LENGTH = "\n    @property\n    def length(self):\n        return self.stop - self.start\n"
SPAN_REF = ("class Span:\n    def __init__(self, start, stop):\n        if stop < start:\n"
            "            start, stop = stop, start\n        self.start = start\n        self.stop = stop\n" + LENGTH)
SPAN_RIGHT = ("class Span:\n    def __init__(self, start, stop):\n        self.start = min(start, stop)\n"
              "        self.stop = max(start, stop)\n" + LENGTH)
SPAN_UNORDERED = SPAN_BASE + LENGTH

SCALE_BASE = "def _scale(x: int) -> int:\n    return x\n\n\ndef double_abs(x: int) -> int:\n    return abs(_scale(x))\n"
SCALE_REF = SCALE_BASE.replace("    return x\n", "    return x * 2\n", 1)
SCALE_MASKED = SCALE_BASE.replace("    return x\n", "    return -x * 2\n", 1)  # abs() hides the sign
SCALE_WRONG = SCALE_BASE.replace("    return x\n", "    return x * 2 if x <= 5 else x * 2 + 1\n", 1)

TASKS = {
    "evens": {
        "file": "evens.py", "before": "", "reference": EVENS_REF,
        "prompt": "Add a generator `evens(limit)` yielding the even numbers from 0 up to `limit`, inclusive.\n",
        "tests": "from evens import evens\n\n\ndef test_evens():\n    assert list(evens(5)) == [0, 2, 4]\n",
        "trials": {"right": EVENS_RIGHT, "short": EVENS_SHORT},
    },
    "span": {
        "file": "spans.py", "before": SPAN_BASE, "reference": SPAN_REF,
        "prompt": ("`Span(start, stop)` must accept its ends in either order: the smaller becomes start, the larger "
                   "stop. Add a `length` property: stop - start.\n"),
        "tests": "from spans import Span\n\n\ndef test_length():\n    s = Span(2, 5)\n    assert s.length == 3\n",
        "trials": {"right": SPAN_RIGHT, "unordered": SPAN_UNORDERED},
    },
    "scale": {
        "file": "scalekit.py", "before": SCALE_BASE, "reference": SCALE_REF,
        "prompt": "`double_abs(x)` must return twice the absolute value of x.\n",
        "tests": "from scalekit import double_abs\n\n\ndef test_double_abs():\n    assert double_abs(3) == 6\n",
        "trials": {"right": SCALE_REF, "masked": SCALE_MASKED, "wrong": SCALE_WRONG},
    },
}


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    root = tmp_path_factory.mktemp("reach") / "reach"
    rows = []
    (root / "trials").mkdir(parents=True)
    for name, t in TASKS.items():
        task = root / "tasks" / name
        (task / "repo").mkdir(parents=True)
        (task / "repo" / "README").write_text(name + "\n")
        if t["before"]:
            (task / "repo" / t["file"]).write_text(t["before"])
        (task / "prompt.md").write_text(t["prompt"])
        (task / "reference.patch").write_text(diff(t["file"], t["before"], t["reference"]))
        test_file = f"tests/test_{name}.py"
        (task / "tests.patch").write_text(diff(test_file, "", t["tests"]))
        test_name = t["tests"].split("def ")[1].split("(")[0]
        (task / "task.toml").write_text(
            f'id = "{name}"\n\n[tests]\ncommand = "python -m pytest -p no:cacheprovider -q --junitxml={{junit}} {{tests}}"\n'
            f'fail_to_pass = ["{test_file}::{test_name}"]\ntimeout = 60\n')
        for tid, source in t["trials"].items():
            trial = f"{name}-{tid}"
            (root / "trials" / f"{trial}.patch").write_text(diff(t["file"], t["before"], source))
            rows.append({"id": trial, "task": name, "model": tid, "patch": f"trials/{trial}.patch", "official": "passed"})
    (root / "run.toml").write_text('name = "reach"\n\n[defaults]\nbackend = "local"\n')
    (root / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = Store(root.parent / "testjack.db")
    run_id = import_path(store, root).run_id
    # reach, not A.2: with one right and one wrong trial per task one trial decides rho's majority
    # (needs ruling by default), so these tests ask for A.2's letter to see what refutes
    options = AuditOptions(mode="per-trial", author="offline", workers=2, evidence=False, few_trials="ambiguous")
    assert Audit(store, run_id, options).execute() == "done"
    return store, run_id


def _refuting(store, run_id, task, trial):
    return [w for w in store.list_witnesses(run_id, task, status=str(WitnessStatus.VALIDATED))
            if str(store.witness_results(w.id)[trial].outcome) == "fail"]


def test_verdicts(audited):
    store, run_id = audited
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts == {
        "evens-right": Verdict.SOUND, "evens-short": Verdict.REFUTED,
        # Span(2, 0) is below P's and T0's inputs, answered by the reference's own swap: the
        # analyst rules whether P asks for it (it does, in words the offline author cannot read)
        "span-right": Verdict.SOUND, "span-unordered": Verdict.UNAUDITED,
        "scale-right": Verdict.SOUND, "scale-masked": Verdict.SOUND, "scale-wrong": Verdict.REFUTED,
    }


def test_a_generator_is_compared_by_the_items_it_yields(audited):
    store, run_id = audited
    refuting = _refuting(store, run_id, "evens", "evens-short")
    assert refuting and all("list(itertools.islice(evens(" in w.code for w in refuting)


def test_a_constructor_is_compared_by_the_object_it_builds(audited):
    store, run_id = audited
    refuting = _refuting(store, run_id, "span", "span-unordered")
    assert refuting
    code = refuting[0].code
    # the property the reference changes, and the attributes P names, read on the built object
    assert "obj = _answer(5, lambda: Span(" in code and "assert obj.length ==" in code and "assert obj.start ==" in code


def test_a_private_helper_refutes_only_through_public_code(audited):
    store, run_id = audited
    witnesses = store.list_witnesses(run_id, "scale")
    assert witnesses and not any("_scale" in w.code for w in witnesses)  # no witness calls the helper
    assert all("double_abs(" in w.code for w in _refuting(store, run_id, "scale", "scale-wrong"))
    found = [e for e in store.list_evidence(run_id, "scale-masked") if e.kind == EvidenceKind.HELPER]
    assert len(found) == 1 and "_scale(" in found[0].detail and "double_abs" in found[0].detail


def test_targets_of_repository_code_are_found():
    from testjack_tui.authors.offline.bounds import Domain
    from testjack_tui.pysource.calls import CallArgs
    from testjack_tui.authors.offline.inputs import plan_inputs
    from testjack_tui.pysource.signatures import callers_of, functions_in

    found = functions_in(SPAN_REF, "spans.py", classes=True)
    assert found["Span"].binding == "constructor" and [p.name for p in found["Span"].params] == ["start", "stop"]
    assert found["Span"].look == ("length",) and found["Span"].attrs == ("start", "stop")
    # SymPy's style: __new__(cls, *args) has no signature to generate for; T0's calls still fit
    sym = functions_in("class Interval(Basic):\n    def __new__(cls, *args):\n        return Basic.__new__(cls, *args)\n",
                       "sets.py", classes=True)["Interval"]
    calls = plan_inputs(sym, [CallArgs((1, 2)), CallArgs((0, 1, True))], Domain(), 0, budget=12, generate=3)
    assert {"1, 2", "0, 1, True"} <= {c.source() for c in calls}
    # private helpers only when asked for, and the public code that names them
    assert "_scale" not in functions_in(SCALE_REF, "scalekit.py")
    assert "_scale" in functions_in(SCALE_REF, "scalekit.py", private=True)
    assert list(callers_of(SCALE_REF, "scalekit.py", "_scale")) == ["double_abs"]
