"""The offline author probes methods: through the object T0 builds, or through the class.

A native run made here: ``Pager(per_page).pages(total)`` is added by the reference and by two
trials; T0 builds ``Pager(10)`` and checks two totals. One trial is right, the other counts one
page too many when the total is an exact multiple (``total // per_page + 1``), which T0 never
tries. The author must reach the method the way T0 does and write the witness on that object.
"""

import json

import pytest

from testjack_tui.store import Store
from tests.patches import diff
from testjack_tui.audit import Audit
from testjack_tui.audit.engine import AuditOptions
from testjack_tui.pysource.signatures import access_for, functions_in
from testjack_tui.formats.importing import import_path
from testjack_tui.model import Verdict, WitnessStatus

BEFORE = 'class Pager:\n    """Splits a number of items into pages."""\n\n    def __init__(self, per_page):\n        self.per_page = per_page\n'
METHOD = '\n    def pages(self, total: int) -> int:\n        """How many pages `total` items fill."""\n'
RIGHT = BEFORE + METHOD + "        return -(-total // self.per_page)\n"
OFF_BY_ONE = BEFORE + METHOD + "        return total // self.per_page + 1\n"
TESTS = "from pager import Pager\n\n\ndef test_pages():\n    p = Pager(10)\n    assert p.pages(25) == 3\n    assert p.pages(1) == 1\n"


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    root = tmp_path_factory.mktemp("methods") / "pagers"
    task = root / "tasks" / "pages"
    (task / "repo").mkdir(parents=True)
    (task / "repo" / "pager.py").write_text(BEFORE)
    (task / "prompt.md").write_text("Add `Pager.pages(total)`: how many pages `total` items fill.\n")
    (task / "reference.patch").write_text(diff("pager.py", BEFORE, RIGHT))
    (task / "tests.patch").write_text(diff("tests/test_pager.py", "", TESTS))
    (task / "task.toml").write_text(
        'id = "pages"\n\n[tests]\ncommand = "python -m pytest -p no:cacheprovider -q --junitxml={junit} {tests}"\n'
        'fail_to_pass = ["tests/test_pager.py::test_pages"]\ntimeout = 60\n')
    (root / "run.toml").write_text('name = "pagers"\n\n[defaults]\nbackend = "local"\n')
    (root / "trials").mkdir()
    rows = []
    for tid, source in (("right", RIGHT), ("off-by-one", OFF_BY_ONE)):
        (root / "trials" / f"{tid}.patch").write_text(diff("pager.py", BEFORE, source))
        rows.append({"id": tid, "task": "pages", "model": tid, "patch": f"trials/{tid}.patch", "official": "passed"})
    (root / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = Store(root.parent / "testjack.db")
    run_id = import_path(store, root).run_id
    # reach, not A.2: with one right and one wrong trial per task one trial decides rho's majority
    # (needs ruling by default), so these tests ask for A.2's letter to see what refutes
    options = AuditOptions(mode="per-trial", author="offline", workers=2, evidence=False, few_trials="ambiguous")
    assert Audit(store, run_id, options).execute() == "done"
    return store, run_id


def test_methods_are_found_and_reached_the_way_t0_reaches_them():
    found = functions_in(RIGHT, "pager.py")
    assert list(found) == ["Pager.pages"] and [p.name for p in found["Pager.pages"].params] == ["total"]
    assert access_for(found["Pager.pages"], [TESTS]).expr == "Pager(10).pages"
    # no test builds the object and its constructor needs an argument: not reachable
    assert access_for(found["Pager.pages"], []) is None
    statics = functions_in("class Units:\n    @staticmethod\n    def parse(text):\n        return 1\n\n"
                           "    def show(self, n):\n        return n\n", "units.py")
    assert access_for(statics["Units.parse"], []).expr == "Units.parse"
    assert access_for(statics["Units.show"], []).expr == "Units().show"  # a plain class builds bare


def test_a_defect_in_a_method_is_refuted_through_t0s_object(audited):
    store, run_id = audited
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts == {"right": Verdict.SOUND, "off-by-one": Verdict.REFUTED}
    refuting = [w for w in store.list_witnesses(run_id, "pages", status=str(WitnessStatus.VALIDATED))
                if str(store.witness_results(w.id)["off-by-one"].outcome) == "fail"]
    assert refuting and all("Pager(10).pages(" in w.code for w in refuting)
