"""How fast the store lists what the console shows, on a run of 100,000 trials.

    python benchmarks/bench_store.py [--trials 100000]

Builds a synthetic run in a temporary store (one task snapshot, N trials spread over 50 tasks and
8 models, verdicts of every kind, evidence on a tenth of the trials), then times the page queries
the console makes: a page of trials by verdict, by task, by model and by evidence kind, deep in the
list, and the run summary.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from testjack_tui.store import Store
from testjack_tui.formats import tree_digest
from testjack_tui.model import (
    Evidence,
    EvidenceKind,
    Official,
    Run,
    Task,
    TestSpec,
    Trial,
    Verdict,
    VerdictRecord,
)


def build(store: Store, n: int) -> None:
    snap = store.staging_dir() / "repo"
    snap.mkdir()
    (snap / "mod.py").write_text("x = 1\n")
    digest = tree_digest(snap)
    tasks = [
        Task(run_id="", id=f"task-{i:02d}", title=f"task {i}", prompt="p", snapshot=str(snap), snapshot_digest=digest,
             reference_patch="", test_patch="", tests=TestSpec(command="true", fail_to_pass=["t"]))
        for i in range(50)
    ]
    rng = random.Random(0)
    trials = [
        Trial(run_id="", id=f"trial-{i:06d}", task_id=f"task-{i % 50:02d}", model=f"model-{i % 8}", agent="a",
              patch="", official=Official.PASSED if rng.random() < 0.6 else Official.FAILED)
        for i in range(n)
    ]
    store.import_run(Run(id="", name="big", digest="big"), tasks, trials)
    kinds = [Verdict.REFUTED, Verdict.REWARD_HACK, Verdict.SOUND, Verdict.UNAUDITED]
    store.set_verdicts([
        VerdictRecord(run_id="big", trial_id=t.id,
                      verdict=rng.choice(kinds) if t.official == Official.PASSED else Verdict.NOT_PASSING)
        for t in trials
    ])
    for t in trials[::10]:
        store.replace_evidence("big", t.id, [Evidence(run_id="big", trial_id=t.id, kind=EvidenceKind.DETECTOR,
                                                      detail="d", file="f.py", line=1, detector="stub")])


def timed(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        start = time.perf_counter()
        build(store, args.trials)
        print(f"built a run of {args.trials} trials in {time.perf_counter() - start:.1f} s")
        page = dict(limit=100, offset=5000)
        cases = {
            "page of refuted trials (offset 5000)": lambda: store.list_trials("big", verdict="refuted", **page),
            "page of one task's trials": lambda: store.list_trials("big", task="task-07", limit=100, offset=1000),
            "page of one model's trials": lambda: store.list_trials("big", model="model-3", **page),
            "page of trials with detector evidence": lambda: store.list_trials("big", evidence_kind="detector",
                                                                                limit=100, offset=2000),
            "first page, run order": lambda: store.list_trials("big", limit=100),
            "run summary (counts)": lambda: store.summary("big"),
        }
        print(f"{'query':<42} {'median ms':>10}")
        for name, fn in cases.items():
            print(f"{name:<42} {timed(fn):>10.1f}")


if __name__ == "__main__":
    main()
