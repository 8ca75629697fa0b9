"""Measure the offline author on real trials: the EvalPlus development slice (HumanEval 0-81).

Imports ``../shared/corpora/evalplus-dev`` (relative to the repository; never copied) with the
humaneval format into a temporary store, audits it per trial with the offline author, and prints:

- refutation recall on the labelled false passes (``labels.jsonl``: ``false_pass``);
- the refuted trials that HumanEval+ passes (each with its witness, to be read by a person: a
  real defect HumanEval+ also missed, or a false refutation);
- executions spent and wall time.

    /root/tjv/bin/python benchmarks/bench_evalplus.py [--workers 2] [--mode per-trial] [--evidence] [--json OUT]

Evidence gathering is off by default (the offline author does not read it), so the executions
counted are T0 on the worlds, the probes, and witness validation and sharing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpora" / "evalplus-dev"


def testjack(store: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "testjack_tui.cli", args[0], "--store", str(store), *args[1:]]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)


def audit(store: Path, mode: str, workers: int, evidence: bool) -> int:
    """The audit through the engine's API (the CLI has no switch for evidence); returns executions run."""
    from store import Store
    from testjack_tui.audit.engine import Audit, AuditOptions

    engine = Audit(Store(store), "evalplus-dev",
                   AuditOptions(mode=mode, author="offline", workers=workers, evidence=evidence))
    status = engine.execute()
    if status != "done":
        raise SystemExit(f"audit ended {status}")
    return engine.service.executed


def shared_defects(labels: dict[str, dict]) -> list[str]:
    """False passes whose labelled failing input most of the task's passing samples also fail."""
    by_task: dict[str, list[dict]] = {}
    for row in labels.values():
        if row.get("base_status") == "pass":
            by_task.setdefault(row["task_id"], []).append(row)
    out = []
    for rows in by_task.values():
        for row in rows:
            if not row.get("false_pass"):
                continue
            for bad in row.get("plus_fail_inputs") or []:
                failing = sum(1 for r in rows if bad in (r.get("plus_fail_inputs") or []))
                if failing / len(rows) > 0.5:
                    out.append(row["id"])
                    break
    return sorted(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", default="2")
    ap.add_argument("--mode", default="per-trial")
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--store", default="", help="keep the store here (default: a temporary directory)")
    ap.add_argument("--evidence", action="store_true",
                    help="also gather evidence (coverage, detectors, mutants); off by default: the author does not use it")
    ap.add_argument("--json", default="", help="write the measured figures and the report here")
    opts = ap.parse_args()
    corpus = Path(opts.corpus)
    labels = {}
    for line in (corpus / "labels.jsonl").read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            labels[row["id"]] = row

    with tempfile.TemporaryDirectory() as tmp:
        store = Path(opts.store) if opts.store else Path(tmp) / "bench.db"
        imported = testjack(store, "import", str(corpus), "--format", "humaneval", "--name", "evalplus-dev")
        if imported.returncode != 0:
            print(imported.stdout, imported.stderr, file=sys.stderr)
            return 1
        started = time.monotonic()
        executions = audit(store, opts.mode, int(opts.workers), opts.evidence)
        wall = time.monotonic() - started
        reported = testjack(store, "report", "evalplus-dev", "--format", "json")
        if reported.returncode != 0:
            print(reported.stdout[-3000:], reported.stderr[-3000:], file=sys.stderr)
            return 1
        report = json.loads(reported.stdout[reported.stdout.index("{"):])

    trials = {t["id"]: t for t in report["trials"]}
    witnesses = {w["id"]: w for w in report["witnesses"]}
    refuted = {tid for tid, t in trials.items() if t["verdict"] in ("refuted", "reward_hack")}
    false_passes = sorted(tid for tid, row in labels.items() if row.get("false_pass"))
    caught = [tid for tid in false_passes if tid in refuted]
    missed = [tid for tid in false_passes if tid not in refuted]
    # a witness fails on it, but A.2 calls that witness ambiguous (most passing trials fail it)
    failed_any = {tid for w in witnesses.values() for tid, o in w["results"].items() if o != "pass"}
    found_ambiguous = [tid for tid in missed if tid in failed_any]
    shared = shared_defects(labels)
    plus_pass_refuted = sorted(tid for tid in refuted if labels.get(tid, {}).get("plus_status") == "pass")
    passing = [tid for tid, t in trials.items() if t["official"] == "passed"]

    figures = {
        "trials": len(trials),
        "passing": len(passing),
        "false_passes": len(false_passes),
        "false_passes_refuted": len(caught),
        "recall": round(len(caught) / len(false_passes), 3) if false_passes else None,
        "missed": missed,
        "missed_but_failing_an_ambiguous_witness": found_ambiguous,
        # from the labels alone: the false passes whose labelled failing input more than half of the
        # task's passing samples fail; a witness on that input has rho > 1/2, so A.2 lets it refute
        # only when P states the case (an explicit requirement)
        "false_passes_shared_by_most_passing_samples": len(shared),
        "divergence_recall": round((len(caught) + len(found_ambiguous)) / len(false_passes), 3) if false_passes else None,
        "refuted": len(refuted),
        "refuted_but_plus_passes": plus_pass_refuted,
        "verdicts": {v: sum(1 for t in trials.values() if t["verdict"] == v)
                     for v in sorted({t["verdict"] for t in trials.values()})},
        "witnesses": len(witnesses),
        "ambiguous_witnesses": report["summary"].get("ambiguous_witnesses"),
        "executions": executions,
        "wall_s": round(wall, 1),
    }
    print(json.dumps(figures, indent=2))
    for tid in plus_pass_refuted + missed:
        t = trials.get(tid)
        if not t:
            continue
        print(f"\n=== {tid}: {t['verdict']} (HumanEval+ {labels.get(tid, {}).get('plus_status')})")
        shown = t["witnesses"] or [w["id"] for w in witnesses.values() if w["results"].get(tid, "pass") != "pass"]
        for wid in shown:
            w = witnesses[wid]
            print(f"--- {wid} {w['classification']} rho={w['rho']}\n{w['code']}")
    if opts.json:
        Path(opts.json).write_text(json.dumps({"figures": figures, "report": report}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
