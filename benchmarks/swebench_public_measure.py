"""Measure one public task (built by ``swebench_public_task.py``) end to end with TestJack.

    python benchmarks/swebench_public_measure.py OUT --task pathspec|sympy|flask [--store S.db]

What a new user does, timed: ``testjack import OUT --format swebench --repos OUT/repos``, then
``testjack audit`` (offline author, lightweight mode: the defaults), then the analyst's witness of
the walkthrough (``Project.analyst_witness``) validated on the reference and run on every passing
trial, as the console's manual-witness screen does (``testjack_tui.review.manual``). Prints, as JSON:

- T0 agreement: for every trial, the harness-style report's verdict (``official``) against the
  verdict of T0 as TestJack ran it on that trial (``recomputed``);
- the audit: wall time, executions, witnesses certified (validated), verdicts;
- the analyst's witness: its outcome on the reference and null worlds and on each passing trial,
  the trials it refutes, its wall time, and the summary after it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from swebench_public_projects import PROJECTS, Project  # noqa: E402


def testjack(*args: str) -> tuple[float, str]:
    """Run the command line as a user would; (wall seconds, its output)."""
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "testjack_tui.cli", *args], capture_output=True, text=True)
    took = time.monotonic() - start
    if done.returncode:
        raise SystemExit(f"testjack {' '.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return took, done.stdout + done.stderr


def report(run: str, store: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        testjack("report", run, "--store", str(store), "--format", "json", "-o", f"{tmp}/r.json")
        return json.loads(Path(tmp, "r.json").read_text())


def measure(out: Path, project: Project, store: Path) -> dict:
    from testjack_tui.store import Store
    from testjack_tui.review.manual import run_manual_on, validate_manual

    run = out.name.lower()  # the import names the run after the folder
    import_s, _ = testjack("import", str(out), "--format", "swebench", "--repos", str(out / "repos"),
                           "--store", str(store))
    audit_s, _ = testjack("audit", run, "--store", str(store))
    before = report(run, store)
    trials = before["trials"]
    agreement = {t["id"]: {"harness": t["official"], "testjack_t0": t["recomputed"]} for t in trials}
    requirement, code = project.analyst_witness
    db = Store(store)
    run_id = db.get_run(run).id
    # every candidate the author proposed, by what became of it (validated = certified)
    candidates = Counter(str(w.status) for w in db.list_witnesses(run_id))
    # the prediction that passes the official tests but misses a stated case (the second one)
    target = next(t["id"] for t in trials if t["model"] == list(project.predictions)[1])
    start = time.monotonic()
    made = validate_manual(db, run_id, target, requirement, "explicit", code)
    shared = run_manual_on(db, run_id, target, code, share=True) if made.witness.status == "validated" else None
    witness_s = time.monotonic() - start
    after = report(run, store)
    return {
        "task": project.dist,
        "run": run,
        "import_s": round(import_s, 1),
        "audit_s": round(audit_s, 1),
        "t0_agreement": f"{sum(a['harness'] == a['testjack_t0'] for a in agreement.values())}/{len(agreement)}",
        "trials": agreement,
        "audit": {k: before["summary"][k] for k in ("trials", "passing", "refuted", "sound", "unaudited",
                                                     "not_reproduced", "malformed_tasks", "executions")},
        "witnesses_certified": len(before["witnesses"]),
        "candidates": dict(candidates),
        "verdicts": {t["id"]: t["verdict"] for t in trials},
        "analyst_witness": {
            "id": made.witness.id,
            "status": str(made.witness.status),
            "reference_null": made.outcomes,
            "on_passing_trials": shared.outcomes if shared else {},
            "message": shared.message if shared else made.message,
            "seconds": round(witness_s, 1),
        },
        "after_witness": {k: after["summary"][k] for k in ("passing", "refuted", "sound", "resolution_before",
                                                            "resolution_after", "executions")},
        "verdicts_after": {t["id"]: t["verdict"] for t in after["trials"]},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder swebench_public_task.py wrote")
    parser.add_argument("--task", choices=sorted(PROJECTS), default="pathspec")
    parser.add_argument("--store", type=Path, help="the store (default: OUT.db beside OUT); must be new")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    store = (args.store or out.with_suffix(".db")).resolve()
    if store.exists():
        raise SystemExit(f"{store} exists: measure on a new store, so that nothing is cached")
    print(json.dumps(measure(out, PROJECTS[args.task], store), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
