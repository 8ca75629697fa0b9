"""What batching, the Ray executor and warm test processes change: executions, wall and CPU time of whole audits.

For each corpus, mode, executor and batching setting asked for, one fresh store, one import and
one offline audit through the engine's API (``Audit``, ``AuditOptions``), with every request
counted on its way to the executor (a ``run_many`` wrapper around the real executor):

- ``executions``: what the audit ran (cache misses), as its summary counts them;
- ``witness runs``: executions that run witness files, by world: ``reference`` (certification,
  3 runs), ``null`` (1 run) and ``trials`` (the replays: 2 runs on every passing trial);
- ``wall s``: the audit's wall time, import excluded;
- ``cpu s``: the CPU seconds of the audit and every process it started (``cpu_clock``), the
  figure to read on a shared machine, where wall time depends on the load (printed with it).

``--warm off,on`` audits each slice with cold runs (``TESTJACK_WARM=0``: a new interpreter per
execution) and with warm test processes (docs/worlds.md), and says whether both gave the same
verdicts, witnesses and per-witness results.

Then, per corpus and mode, the ratios the manual quotes (docs/scale.md): executions and trial
replays without batching / with batching, per executor; wall time thread executor / Ray; and
whether every audit of that corpus and mode gave the same verdicts, witnesses and per-witness
results (it must).

Corpora:

- ``toolbox``: sample_runs/toolbox (4 tasks, 27 trials);
- ``wide``: the toolbox's ``duration`` task alone with its 7 passing trials copied to 40 (the
  "40 passing trials and 5 shared witnesses" of issue 16: its task analysis shares 5 witnesses);
- ``evalplus-dev``, ``codet-dev``, ``evalperf-dev``: the labelled HumanEval corpora (read from
  ``../shared/corpora/<name>``; never copied into the repository, see corpora.py); ``--half``,
  ``--tasks`` and ``--limit-per-task`` slice them as in bench_evalplus.py (codet-dev has dozens of
  samples per task: ``--limit-per-task 6`` as there).

Per corpus it also prints what the trial replays must cost under the flake guard (``replay_floor``):
2 executions per passing trial for each witness unbatched, and for each step that found witnesses
batched; the measured replays with batching on should be that floor.

``--sum A.json,B.json,...`` prints, from the ``--json`` files of earlier runs, the trial replays
and executions per corpus and over all of them, with batching off and on.

``--executors ray`` starts a real cluster on this machine for the measurement: a head and a second
node (``ray start --head``, ``ray start --address``), one CPU each, each with its own cache
directory (tests/worlds/ray_cluster.py), and stops it at the end. The thread executor runs
``--workers`` threads (default 2): the same parallelism as the two one-CPU nodes.

    .venv/bin/python benchmarks/bench_scale.py [--corpus toolbox,wide,evalplus-dev,codet-dev,evalperf-dev]
        [--modes lightweight,per-trial] [--executors thread,ray] [--batching off,on]
        [--warm on|off,on] [--workers 2] [--half even|odd|both] [--tasks N,M] [--limit-per-task K]
        [--json OUT]
    .venv/bin/python benchmarks/bench_scale.py --sum A.json,B.json,...
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cpu_clock  # noqa: E402

from corpora import CORPORA_ROOT, write_slice  # noqa: E402

TOOLBOX = REPO / "sample_runs" / "toolbox"
WIDE_TRIALS = 40


def wide_run(dest: Path) -> Path:
    """The toolbox's ``duration`` task with its passing trials copied to WIDE_TRIALS trials."""
    dest.mkdir(parents=True)
    (dest / "run.toml").write_text((TOOLBOX / "run.toml").read_text().replace('name = "toolbox"', 'name = "wide"'))
    shutil.copytree(TOOLBOX / "tasks" / "duration", dest / "tasks" / "duration")
    (dest / "trials").mkdir()
    source = [json.loads(line) for line in (TOOLBOX / "trials.jsonl").read_text().splitlines() if line.strip()]
    passing = [t for t in source if t["task"] == "duration" and t["official"] == "passed"]
    rows = []
    for i in range(WIDE_TRIALS):
        trial = dict(passing[i % len(passing)])
        trial["id"] = f"{trial['id']}-c{i // len(passing)}"
        trial["patch"] = f"trials/{trial['id']}.patch"
        shutil.copy(TOOLBOX / passing[i % len(passing)]["patch"], dest / trial["patch"])
        rows.append(json.dumps(trial))
    (dest / "trials.jsonl").write_text("\n".join(rows) + "\n")
    return dest


def source_of(corpus: str, opts: argparse.Namespace, tmp: Path) -> tuple[Path, str]:
    """(the directory to import, its format)."""
    if corpus == "toolbox":
        return TOOLBOX, "native"
    if corpus == "wide":
        return wide_run(tmp / "wide"), "native"
    halves = {"both": None}.get(opts.half, opts.half)
    piece = write_slice(Path(opts.corpora_root) / corpus, tmp / f"{corpus}-slice", half=halves,
                        tasks=opts.task_numbers, limit_per_task=opts.limit_per_task)
    return piece.directory, "humaneval"


def kind_of(request) -> str:
    """What one execution is for: T0, probe, mutant, or a witness run on reference/null/trials."""
    label = request.label or ""
    if not label.startswith("witness "):
        return label.split(" ", 1)[0] if label.startswith(("T0", "offline", "mutant")) else "other"
    names = {p.name.split(":")[0] for p in request.patches}
    if "reference" in names:
        return "witness:reference"
    if "trial" in names or " harness restored" in label:
        return "witness:trials"
    return "witness:null" if " on null" in label else "witness:trials"


def counted(executor, counts: Counter):
    def run_many(requests):
        for request in requests:
            counts[kind_of(request)] += 1
        return executor.run_all(requests)

    return run_many


def outcome(report: dict[str, Any]) -> dict[str, Any]:
    return {
        "verdicts": {t["id"]: (t["verdict"], sorted(t["witnesses"])) for t in report["trials"]},
        "witnesses": {w["id"]: [w["classification"], w["rho"], w["flaky"], sorted(w["results"].items())]
                      for w in report["witnesses"]},
    }


def replay_floor(store, run_id: str) -> dict[str, int]:
    """What the trial replays must cost under the flake guard, from the witnesses the audit shared.

    A step (the task analysis, one trial's audit) shares the witnesses it found with every passing
    trial: 2 separate executions per trial. Batched, that is 2 per trial per step whatever the
    number of witnesses (``floor``); one witness per execution, 2 per trial per witness
    (``unbatched``). Each step's replays are read before the next step starts (the next round's
    sample and its author's context depend on every trial's results), so no two steps can share
    an execution: ``floor`` is the least the batched audit can run.
    """
    steps: dict[tuple, set[str]] = {}
    unbatched = shared = 0
    for w in store.list_witnesses(run_id):
        if not w.path:  # a harness witness runs T0, not a file: never shared
            continue
        trials = set(store.witness_results(w.id)) - {"reference", "null"}
        if trials:
            steps.setdefault((w.task_id, str(w.origin), w.found_on), set()).update(trials)
            unbatched += 2 * len(trials)
            shared += 1
    return {"steps": len(steps), "witnesses": shared, "floor": 2 * sum(len(t) for t in steps.values()),
            "unbatched": unbatched}


def one_audit(corpus: str, mode: str, executor_kind: str, batch: bool, opts, tmp: Path, cluster,
              warm: str = "on") -> dict[str, Any]:
    from testjack_tui.store import Store
    from testjack_tui.audit import Audit, AuditOptions
    from testjack_tui.audit.execution import make_executor
    from testjack_tui.formats.importing import import_path
    from testjack_tui.report import build_report

    os.environ["TESTJACK_WARM"] = "1" if warm == "on" else "0"
    source, fmt = source_of(corpus, opts, tmp / f"src-{corpus}-{mode}-{executor_kind}-{batch}-{warm}")
    store = Store(tmp / f"{corpus}-{mode}-{executor_kind}-{'batch' if batch else 'alone'}-{warm}.db")
    run_id = import_path(store, source, fmt, name=corpus).run_id
    counts: Counter = Counter()
    executor = make_executor("ray" if executor_kind == "ray" else "local", opts.workers,
                             cluster.address if cluster else None)
    evidence = opts.evidence == "on" or (opts.evidence == "auto" and corpus in ("toolbox", "wide"))
    engine = Audit(store, run_id, AuditOptions(mode=mode, author="offline", workers=opts.workers,
                                               evidence=evidence, batch=batch),
                   run_many=counted(executor, counts))
    clock = cpu_clock.Clock()
    own = cpu_clock.own_cpu()
    try:
        status = engine.execute()
    finally:
        nodes = dict(getattr(executor, "ran_on", {}))
        executor.close()
    wall, cpu = clock.read()
    own = cpu_clock.own_cpu() - own
    if status != "done":
        raise SystemExit(f"audit of {corpus} ({mode}, {executor_kind}) ended {status}")
    report = json.loads(json.dumps(build_report(store, run_id)))
    floor = replay_floor(store, run_id)
    store.close()
    witness = {k.split(":", 1)[1]: v for k, v in counts.items() if k.startswith("witness:")}
    return {"corpus": corpus, "mode": mode, "executor": executor_kind, "batching": "on" if batch else "off",
            "warm": warm, "cpu_s": round(cpu, 1), "own_cpu_s": round(own, 1), "load": round(os.getloadavg()[0], 1),
            "executions": engine.service.executed, "requested": dict(counts), "witness_runs": witness,
            "replays": witness.get("trials", 0), "replay_floor": floor, "wall_s": round(wall, 1),
            "nodes": sorted(nodes.values()),
            "summary": {k: report["summary"][k] for k in ("passing", "refuted", "sound", "unaudited")},
            "outcome": outcome(report)}


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "-"


def table(rows: list[dict[str, Any]]) -> str:
    heads = ["corpus", "mode", "executor", "batching", "warm", "executions", "w:reference", "w:null", "w:trials",
             "wall s", "cpu s", "own cpu s", "load", "verdicts"]
    cells = [[r["corpus"], r["mode"], r["executor"], r["batching"], r.get("warm", "on"), str(r["executions"]),
              str(r["witness_runs"].get("reference", 0)), str(r["witness_runs"].get("null", 0)),
              str(r["witness_runs"].get("trials", 0)), f"{r['wall_s']:.0f}", f"{r.get('cpu_s', 0):.0f}",
              f"{r.get('own_cpu_s', 0):.0f}", f"{r.get('load', 0):.1f}",
              " ".join(f"{k}={v}" for k, v in r["summary"].items())] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    lines = [" | ".join(h.ljust(w) for h, w in zip(heads, widths)), "-+-".join("-" * w for w in widths)]
    lines += [" | ".join(c.ljust(w) for c, w in zip(cell, widths)) for cell in cells]
    return "\n".join(lines)


def ratios(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["corpus"], r["mode"]), []).append(r)
    for (corpus, mode), group in groups.items():
        by = {(r["executor"], r["batching"]): r for r in group if r.get("warm", "on") == "on"}
        same = all(r["outcome"] == group[0]["outcome"] for r in group)
        out.append(f"{corpus} {mode}: identical verdicts, witnesses and per-witness results across "
                   f"{len(group)} audits: {'yes' if same else 'NO'}")
        for ex in ("thread", "ray"):
            off, on = by.get((ex, "off")), by.get((ex, "on"))
            if off and on:
                out.append(f"  {ex}: batching cuts executions {ratio(off['executions'], on['executions'])} "
                           f"({off['executions']} -> {on['executions']}), trial replays "
                           f"{ratio(off['replays'], on['replays'])} ({off['replays']} -> {on['replays']}), "
                           f"all witness runs {ratio(sum(off['witness_runs'].values()), sum(on['witness_runs'].values()))}; "
                           f"wall {ratio(off['wall_s'], on['wall_s'])}")
        f = group[0].get("replay_floor")
        if f:
            out.append(f"  trial replays under the flake guard: {f['unbatched']} with one witness per execution "
                       f"(2 x trials x {f['witnesses']} witnesses), {f['floor']} batched (2 x trials x {f['steps']} "
                       f"steps that found witnesses): at most {ratio(f['unbatched'], f['floor'])}, "
                       f"{f['witnesses'] / f['steps']:.2f} witnesses per step")
        for cold in (r for r in group if r.get("warm") == "off"):
            hot = next((r for r in group if r.get("warm") == "on" and r["executor"] == cold["executor"]
                        and r["batching"] == cold["batching"]), None)
            if hot:
                out.append(f"  {cold['executor']}, batching {cold['batching']}: warm test processes cut CPU time "
                           f"{ratio(cold['cpu_s'], hot['cpu_s'])} ({cold['cpu_s']:.0f} s -> {hot['cpu_s']:.0f} s), "
                           f"wall {ratio(cold['wall_s'], hot['wall_s'])} ({cold['wall_s']:.0f} s -> "
                           f"{hot['wall_s']:.0f} s; load {cold['load']} and {hot['load']})")
        for b in ("off", "on"):
            th, ry = by.get(("thread", b)), by.get(("ray", b))
            if th and ry:
                out.append(f"  batching {b}: wall time Ray (2 nodes) / threads {ratio(ry['wall_s'], th['wall_s'])} "
                           f"({ry['wall_s']:.0f} s vs {th['wall_s']:.0f} s); requests per node {ry['nodes']}")
    return out


def summed(paths: list[str]) -> list[str]:
    """Trial replays and executions, batching off and on (thread executor), per corpus and in all."""
    out, total = [], Counter()
    same_everywhere = True
    for path in paths:
        rows = [r for r in json.loads(Path(path).read_text())["rows"] if r["executor"] == "thread"]
        groups: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        for r in rows:
            groups.setdefault((r["corpus"], r["mode"]), {})[r["batching"]] = r
        for (corpus, mode), by in groups.items():
            off, on = by.get("off"), by.get("on")
            if not (off and on):
                continue
            same = off["outcome"] == on["outcome"]
            same_everywhere &= same
            for key, row in (("off", off), ("on", on)):
                total[f"replays {key}"] += row["replays"]
                total[f"executions {key}"] += row["executions"]
            out.append(f"{corpus} {mode} ({path}): trial replays {off['replays']} -> {on['replays']} "
                       f"({ratio(off['replays'], on['replays'])}), executions {off['executions']} -> "
                       f"{on['executions']} ({ratio(off['executions'], on['executions'])}); identical: "
                       f"{'yes' if same else 'NO'}")
    out.append(f"all: trial replays {total['replays off']} -> {total['replays on']} "
               f"({ratio(total['replays off'], total['replays on'])}), executions {total['executions off']} -> "
               f"{total['executions on']} ({ratio(total['executions off'], total['executions on'])}); identical: "
               f"{'yes' if same_everywhere else 'NO'}")
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="toolbox,wide,evalplus-dev")
    ap.add_argument("--modes", default="lightweight,per-trial")
    ap.add_argument("--executors", default="thread,ray")
    ap.add_argument("--batching", default="off,on")
    ap.add_argument("--warm", default="on", help="on, off or off,on: warm test processes (TESTJACK_WARM)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--evidence", default="auto", choices=["auto", "on", "off"],
                    help="gather evidence (detectors, coverage, mutants) as testjack audit does; auto: on for "
                         "toolbox and wide, off for evalplus-dev (as in bench_evalplus.py: its author does not read it)")
    ap.add_argument("--half", default="both", choices=["even", "odd", "both"])
    ap.add_argument("--tasks", default="")
    ap.add_argument("--limit-per-task", type=int, default=None)
    ap.add_argument("--corpora-root", default=str(CORPORA_ROOT))
    ap.add_argument("--json", default="")
    ap.add_argument("--sum", default="", metavar="A.json,B.json",
                    help="print the replays of earlier runs' --json files, per corpus and in all, and stop")
    opts = ap.parse_args(argv)
    opts.task_numbers = {int(x) for x in opts.tasks.split(",") if x} if opts.tasks else None
    for name in ("corpus", "modes", "executors", "batching", "warm"):
        setattr(opts, name, [x for x in getattr(opts, name).split(",") if x])
    return opts


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    if opts.sum:
        for line in summed([x for x in opts.sum.split(",") if x]):
            print(line)
        return 0
    rows: list[dict[str, Any]] = []
    cluster = None
    ray_s = None
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp_name:
        tmp = Path(tmp_name)
        try:
            if "ray" in opts.executors:
                from tests.worlds.ray_cluster import LocalCluster

                started = time.monotonic()
                cluster = LocalCluster(cpus_per_node=1, pythonpath=str(REPO))
                cluster.start_head()
                cluster.add_node("second")
                ray_s = time.monotonic() - started
                for key in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN"):
                    os.environ[key] = cluster.env[key]
                print(f"[ray] a head and a second node up in {ray_s:.0f} s", file=sys.stderr, flush=True)
            for corpus in opts.corpus:
                for mode in opts.modes:
                    for executor in opts.executors:
                        for batching, warm in ((b, w) for b in opts.batching for w in opts.warm):
                            print(f"[{corpus} {mode}] {executor}, batching {batching}, warm {warm} ...",
                                  file=sys.stderr, flush=True)
                            row = one_audit(corpus, mode, executor, batching == "on", opts, tmp,
                                            cluster if executor == "ray" else None, warm)
                            print(f"  {row['executions']} executions, {row['replays']} trial replays, "
                                  f"{row['wall_s']:.0f} s, {row['cpu_s']:.0f} CPU-s", file=sys.stderr, flush=True)
                            rows.append(row)
        finally:
            if cluster is not None:
                cluster.stop()
                cluster.cleanup()
    print(table(rows))
    print()
    for line in ratios(rows):
        print(line)
    if ray_s is not None:
        print(f"ray: starting the two nodes took {ray_s:.0f} s")
    if opts.json:
        options = {k: v for k, v in vars(opts).items() if k != "task_numbers"}
        Path(opts.json).write_text(json.dumps({"options": options, "rows": rows, "ray_start_s": ray_s}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
