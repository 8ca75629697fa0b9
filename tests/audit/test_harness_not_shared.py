"""A trial's harness witness (T0 with its conftest.py dropped) refutes that trial only.

The toolbox's pages task, audited per trial: pages-t5 passes T0 only through its conftest.py
report hook, so evidence gathering makes a harness witness for it (origin audit, found on t5).
The witnesses of t5's own audit step must not pick it up and share it: run on another trial it
has no file to run, errs, and an error there was read as a failure, refuting the sound pages-t1,
t2 and t8 (sample_runs/README.md's answer key).
"""

import json
import shutil
from pathlib import Path

from testjack_tui.store import Store
from testjack_tui.audit import Audit
from testjack_tui.audit.engine import AuditOptions
from testjack_tui.formats.importing import import_path
from testjack_tui.model import Verdict

TOOLBOX = Path(__file__).resolve().parents[2] / "sample_runs" / "toolbox"


def test_a_harness_witness_refutes_only_its_own_trial(tmp_path):
    run = tmp_path / "toolbox"
    shutil.copytree(TOOLBOX, run)
    for task in ("slug", "duration", "roman"):
        shutil.rmtree(run / "tasks" / task)
    rows = [r for r in map(json.loads, (run / "trials.jsonl").read_text().splitlines()) if r["task"] == "pages"]
    (run / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = Store(tmp_path / "s.db")
    run_id = import_path(store, run).run_id
    options = AuditOptions(mode="per-trial", workers=2, mutation_budget_s=0)
    assert Audit(store, run_id, options).execute() == "done"
    verdicts = {t: v.verdict for t, v in store.list_verdicts(run_id).items()}
    assert {t for t, v in verdicts.items() if v == Verdict.SOUND} == {"pages-t1", "pages-t2", "pages-t8"}
    harness = [w for w in store.list_witnesses(run_id, "pages") if not w.path]
    assert harness and all(set(store.witness_results(w.id)) <= {"reference", w.found_on} for w in harness)
