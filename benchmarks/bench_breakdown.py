"""What a per-trial audit spends its CPU on, by what each execution is for (issue 43).

1. Audits a slice of evalplus-dev as ``testjack audit --mode per-trial --no-mutation --workers 2``
   does (``--mode`` and ``--mutation-budget`` change that; warm test processes, ``TESTJACK_WARM``),
   through the engine's API with the default thread executor, and counts every execution it runs
   (cache misses) by kind: the kind is the request's label with the task, trial and witness ids
   taken out (``T0 null``, ``T0 reference``, ``T0 model``, ``offline probe on reference``,
   ``witness on <trial>``, ...). CPU seconds of the audit's own process (the engine's threads: the
   author, the store, the runner's side of every run) and of the processes it started are read
   apart.
2. Replays up to ``--replays`` of the executed requests of each kind, one after another in a fresh
   interpreter inside a ``cpuacct`` cgroup of its own (``bench_warm.in_cgroup``: the warm processes'
   CPU counts too; root and cgroup v1 only, skipped otherwise): all of them minus the first one
   gives the CPU of one more execution of that kind, and of that the runner's own process.

Counts times CPU per execution, summed over the kinds, should come near the audit's own figure for
its test processes; the difference is the warm processes' start and the load.

3. Where the audit's wall time goes: each execution's start and end on its worker thread (the
   executor's ``run`` timed), so how long 0, 1 or 2 (or more) runs were in flight, and the slowest
   runs. ``--replays 0`` prints this and the counts without replaying anything.

    .venv/bin/python benchmarks/bench_breakdown.py [--half odd] [--tasks 1,3] [--replays 10]
        [--workers 2] [--mode per-trial] [--mutation-budget 0] [--json OUT]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cpu_clock  # noqa: E402
from bench_warm import CPUACCT, in_cgroup  # noqa: E402
from corpora import CORPORA_ROOT, write_slice  # noqa: E402

# one interpreter replays the requests of a file, the first ``argv[2]`` of them; its last line is
# the CPU seconds of its own process (the runner's side of every run)
_REPLAY = """\
import json, resource, sys
from testjack_tui.worlds.backends import run_request
from testjack_tui.worlds.request import ExecRequest
for data in json.loads(open(sys.argv[1]).read())[:int(sys.argv[2])]:
    result = run_request(ExecRequest.from_dict(data))
    assert result.status == "ok", (result.status, result.message)
own = resource.getrusage(resource.RUSAGE_SELF)
print(own.ru_utime + own.ru_stime)
"""


def kind(label: str) -> str:
    """The label without the ids of tasks, trials and witnesses: what the execution is for."""
    text = re.sub(r"\bmutant:\d+ \S+:\d+", "mutant", label)  # its number, file and line
    text = re.sub(r"#\d+|\b[wh]-[0-9a-f]+\b", "", text)  # the repetition, a witness's id
    text = re.sub(r"(?<=\s)\++(?=\s)", "", text)  # what joined a batch's witness ids
    text = re.sub(r"[\w.-]+/HumanEval/\d+", "a trial", text)
    text = re.sub(r"(?:\bof)?\s*\bHumanEval/\d+", "", text)
    return re.sub(r"\s+", " ", text).strip() or "(no label)"


def audit(source: Path, db: Path, workers: int, mode: str = "per-trial",
          mutation_budget_s: float = 0) -> tuple[dict, dict[str, list]]:
    """Import and audit the slice; its figures and the executed requests by kind."""
    from testjack_tui.audit import Audit, AuditOptions
    from testjack_tui.formats.importing import import_path
    from testjack_tui.store import Store
    from testjack_tui.worlds.backends import run_request
    from testjack_tui.worlds.executor import Executor

    spans: list[tuple[float, float, str]] = []  # start, end, label of every execution

    def timed(request):
        start = time.monotonic()
        try:
            return run_request(request)
        finally:
            spans.append((start, time.monotonic(), request.label))

    executor = Executor(workers=workers, run=timed)
    executed: dict[str, list] = collections.defaultdict(list)

    timeouts: collections.Counter = collections.Counter()

    def run_many(requests):
        for request, result in executor.run_all(requests):
            executed[kind(request.label)].append(request)
            timeouts[kind(request.label)] += result.status == "timeout"
            yield request, result

    store = Store(db)
    run_id = import_path(store, source).run_id
    clock, own, began = cpu_clock.Clock(), cpu_clock.own_cpu(), time.monotonic()
    engine = Audit(store, run_id, AuditOptions(mode=mode, workers=workers, mutation_budget_s=mutation_budget_s),
                   run_many=run_many)
    status = engine.execute()
    executor.close()  # the warm processes end with the worker threads; the clock waits for them
    wall, cpu = clock.read()
    own = cpu_clock.own_cpu() - own
    figures = {"status": status, "wall_s": wall, "own_cpu_s": own, "children_cpu_s": cpu - own,
               "trials": len(store.list_trial_objects(run_id)),
               "audited": sum(t.recomputed == "passed" for t in store.list_trial_objects(run_id)),
               "in_flight_s": in_flight(spans, began, began + wall),
               "timeouts": {name: n for name, n in timeouts.items() if n},
               "slowest": [(round(end - start, 1), label) for start, end, label
                           in sorted(spans, key=lambda s: s[0] - s[1])[:5]]}
    store.close()
    return figures, executed


def in_flight(spans: list[tuple[float, float, str]], began: float, ended: float) -> dict[str, float]:
    """Seconds of the audit's wall time with 0, 1, 2, ... executions running."""
    edges = sorted([(start, 1) for start, _, _ in spans] + [(end, -1) for _, end, _ in spans])
    seconds: dict[str, float] = collections.defaultdict(float)
    running, last = 0, began
    for at, step in edges:
        seconds[str(running)] += at - last
        running, last = running + step, at
    seconds[str(running)] += max(0.0, ended - last)
    return dict(sorted(seconds.items()))


def per_execution(requests: list, replays: int, tmp: Path) -> tuple[float, float] | None:
    """(CPU, of which the runner's process) of one more execution of these requests, or None."""
    chosen = requests[:replays + 1]
    if len(chosen) < 2:
        return None
    file = tmp / "replay.json"
    file.write_text(json.dumps([r.to_dict() for r in chosen]))
    argv = [sys.executable, "-c", _REPLAY, str(file)]
    _, one_cpu, one_own = in_cgroup([*argv, "1"], dict(os.environ))
    _, all_cpu, all_own = in_cgroup([*argv, str(len(chosen))], dict(os.environ))
    n = len(chosen) - 1
    return (all_cpu - one_cpu) / n, (all_own - one_own) / n


def table(figures: dict, executed: dict[str, list], costs: dict[str, tuple[float, float] | None]) -> list[str]:
    audited = max(figures["audited"], 1)
    lines = [f"audit: {figures['wall_s']:.0f} s wall; own process {figures['own_cpu_s']:.1f} CPU-s, "
             f"test processes {figures['children_cpu_s']:.1f} CPU-s; {sum(map(len, executed.values()))} "
             f"executions; {figures['trials']} trials, {figures['audited']} audited; "
             f"per audited trial {(figures['own_cpu_s'] + figures['children_cpu_s']) / audited:.2f} CPU-s "
             f"(own {figures['own_cpu_s'] / audited:.2f})",
             "", "| execution | count | per audited trial | CPU each | of which the runner | CPU in all |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    total = 0.0
    for name, requests in sorted(executed.items(), key=lambda kv: -len(kv[1])):
        cost = costs.get(name)
        row = f"| {name} | {len(requests)} | {len(requests) / audited:.2f} | "
        if cost is None:  # a kind run once, or no cgroup to count in
            lines.append(row + "- | - | - |")
            continue
        total += len(requests) * cost[0]
        lines.append(row + f"{cost[0] * 1000:.0f} ms | {cost[1] * 1000:.0f} ms | {len(requests) * cost[0]:.1f} s |")
    lines.append(f"| all replayed kinds | | | | | {total:.1f} s |")
    lines += ["", "wall time with N executions running: " + ", ".join(
        f"{n}: {s:.1f} s" for n, s in figures["in_flight_s"].items()),
        "slowest executions: " + "; ".join(f"{s} s {label}" for s, label in figures["slowest"]),
        "runs that reached their time limit: " + (", ".join(
            f"{name} {n}" for name, n in figures["timeouts"].items()) or "none")]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--half", default="odd", choices=["even", "odd", "both"])
    ap.add_argument("--tasks", default="")
    ap.add_argument("--replays", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--mode", default="per-trial", help="the audit's mode (testjack audit's default: lightweight)")
    ap.add_argument("--mutation-budget", type=float, default=0.0,
                    help="seconds of mutation testing per audited trial (testjack audit's default: 20)")
    ap.add_argument("--corpora-root", default=str(CORPORA_ROOT))
    ap.add_argument("--json", default="")
    opts = ap.parse_args(argv)
    os.environ.setdefault("TESTJACK_WARM", "1")
    tasks = {int(x) for x in opts.tasks.split(",") if x} or None
    with tempfile.TemporaryDirectory(prefix="bench-breakdown-") as tmp_name:
        tmp = Path(tmp_name)
        write_slice(Path(opts.corpora_root) / "evalplus-dev", tmp / "slice",
                    half=None if opts.half == "both" else opts.half, tasks=tasks)
        figures, executed = audit(tmp / "slice", tmp / "s.db", opts.workers, opts.mode,
                                  opts.mutation_budget)
        print(f"[audit] {figures['wall_s']:.0f} s, load average {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
        replayable = os.geteuid() == 0 and (CPUACCT / "cpuacct.usage").exists()
        costs = {name: per_execution(requests, opts.replays, tmp) if replayable else None
                 for name, requests in executed.items()}
    lines = table(figures, executed, costs) + [f"load average {os.getloadavg()[0]:.1f}"]
    print("\n".join(lines))
    if opts.json:
        Path(opts.json).write_text(json.dumps({"options": vars(opts), "audit": figures, "lines": lines,
                                               "executions": {k: len(v) for k, v in executed.items()},
                                               "per_execution": costs}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
