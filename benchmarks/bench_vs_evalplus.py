"""EvalPlus and TestJack on the same samples, in one run: both walls, both CPU times, the ratios.

The samples are a slice of evalplus-dev (``--tasks``, ``--half``; read from
``../shared/corpora/evalplus-dev``, never copied into the repository, see corpora.py):

1. **TestJack** imports the slice and audits it as ``testjack audit --mode per-trial --no-mutation
   --workers 2`` does (``--mode`` and ``--mutation`` change that), warm or cold as
   ``TESTJACK_WARM`` says (``--warm off`` for a new interpreter per execution).
2. The audited run is exported in EvalPlus's format (``testjack export --format evalplus``: T0's
   calls as ``base_input``, T1's witnesses as ``plus_input``), and **EvalPlus** 0.3
   (``evalplus.evaluate``, the ``evalplus`` package of the test extra) grades the same samples
   against it, ``--parallel 2``: once to compute and cache the ground truth (not timed, as in
   issue 43's measurement), then again, timed.

Both are timed with ``cpu_clock`` (wall, and CPU seconds of every process each started). The
per-sample figures divide by the slice's samples (EvalPlus grades all of them; TestJack recomputes
T0 on all and audits those that pass). The ratios are TestJack / EvalPlus.

EvalPlus here grades T0's inputs and TestJack's witness inputs, not HumanEval+'s own extended
inputs (about 1,000 per task, which the corpus leaves out and which this machine cannot download):
its time per sample is lower than with HumanEval+, so the ratio is against a cheaper EvalPlus.

    .venv/bin/python benchmarks/bench_vs_evalplus.py [--tasks 0,1,2] [--half even|odd|both]
        [--mode per-trial] [--mutation] [--warm on|off] [--workers 2] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cpu_clock  # noqa: E402
from corpora import CORPORA_ROOT, write_slice  # noqa: E402


def audit(source: Path, db: Path, opts) -> dict:
    """Import and audit the slice; the run's id, its figures and its clock."""
    from testjack_tui.audit import Audit, AuditOptions
    from testjack_tui.formats.importing import import_path
    from testjack_tui.store import Store

    os.environ["TESTJACK_WARM"] = "1" if opts.warm == "on" else "0"
    clock = cpu_clock.Clock()
    store = Store(db)
    run_id = import_path(store, source).run_id
    options = AuditOptions(mode=opts.mode, workers=opts.workers, mutation_budget_s=20.0 if opts.mutation else 0)
    engine = Audit(store, run_id, options)
    if engine.execute() != "done":
        raise SystemExit("the audit did not finish")
    wall, cpu = clock.read()
    trials = store.list_trial_objects(run_id)
    store.close()
    return {"run_id": run_id, "wall_s": wall, "cpu_s": cpu, "executions": engine.service.executed,
            "samples": len(trials), "audited": sum(t.recomputed == "passed" for t in trials)}


def evalplus(db: Path, run_id: str, out: Path, cache: Path) -> dict:
    """Export the run in EvalPlus's format and grade its samples twice; the second run's clock."""
    from testjack_tui.export import export_run
    from testjack_tui.export.evalplus import PROBLEMS_FILE, SAMPLES_FILE
    from testjack_tui.store import Store

    store = Store(db)
    export_run(store, run_id, "evalplus", out)
    store.close()
    samples = out / SAMPLES_FILE
    env = {**os.environ, "HUMANEVAL_OVERRIDE_PATH": str(out / PROBLEMS_FILE), "XDG_CACHE_HOME": str(cache)}
    argv = [sys.executable, "-m", "evalplus.evaluate", "--dataset", "humaneval", "--samples", str(samples),
            "--parallel", "2"]
    results = samples.with_name(samples.stem + "_eval_results.json")
    figures = {}
    for timed in (False, True):
        results.unlink(missing_ok=True)  # else evalplus reads the previous results back
        clock = cpu_clock.Clock()
        done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=out, timeout=3600)
        if done.returncode != 0:
            raise SystemExit(f"evalplus failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
        if timed:
            figures["wall_s"], figures["cpu_s"] = clock.read()
    graded = json.loads(results.read_text())["eval"]
    figures["samples"] = sum(len(v) for v in graded.values())
    figures["plus_inputs"] = sum(len(json.loads(line)["plus_input"])
                                 for line in (out / PROBLEMS_FILE).read_text().splitlines())
    return figures


def report(tj: dict, ep: dict, load: float) -> list[str]:
    n = tj["samples"]
    lines = [
        f"samples: {n} ({tj['audited']} pass T0 and are audited); load average {load:.1f}",
        f"TestJack: {tj['wall_s']:.1f} s wall, {tj['cpu_s']:.1f} CPU-s, {tj['executions']} executions; "
        f"{tj['wall_s'] / n:.3f} s and {tj['cpu_s'] / n:.3f} CPU-s a sample",
        f"EvalPlus: {ep['wall_s']:.1f} s wall, {ep['cpu_s']:.1f} CPU-s ({ep['samples']} samples, "
        f"{ep['plus_inputs']} plus inputs); {ep['wall_s'] / n:.3f} s and {ep['cpu_s'] / n:.3f} CPU-s a sample",
        f"ratio TestJack / EvalPlus: wall {tj['wall_s'] / ep['wall_s']:.2f}, CPU {tj['cpu_s'] / ep['cpu_s']:.2f}",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", default="")
    ap.add_argument("--half", default="both", choices=["even", "odd", "both"])
    ap.add_argument("--mode", default="per-trial")
    ap.add_argument("--mutation", action="store_true", help="mutation testing on (testjack audit's default)")
    ap.add_argument("--warm", default="on", choices=["on", "off"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--corpora-root", default=str(CORPORA_ROOT))
    ap.add_argument("--json", default="")
    opts = ap.parse_args(argv)
    tasks = {int(x) for x in opts.tasks.split(",") if x} or None
    with tempfile.TemporaryDirectory(prefix="bench-vs-evalplus-") as tmp_name:
        tmp = Path(tmp_name)
        write_slice(Path(opts.corpora_root) / "evalplus-dev", tmp / "slice",
                    half=None if opts.half == "both" else opts.half, tasks=tasks)
        tj = audit(tmp / "slice", tmp / "s.db", opts)
        print(f"[testjack] {tj['wall_s']:.0f} s, {tj['cpu_s']:.0f} CPU-s", file=sys.stderr, flush=True)
        ep = evalplus(tmp / "s.db", tj["run_id"], tmp / "ep", tmp / "cache")
    lines = report(tj, ep, cpu_clock.load())
    print("\n".join(lines))
    if opts.json:
        Path(opts.json).write_text(json.dumps({"options": vars(opts), "testjack": tj, "evalplus": ep,
                                               "lines": lines}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
