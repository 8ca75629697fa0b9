"""A quick lab for task analysis's choice of amplified inputs, without the audit pipeline.

For every task of a codet-dev half: T0's calls are mutated as the offline author mutates them
(``mutation.mutations``, kept inside what P's words and T0's inputs admit, frontier inputs left
out), every mutation runs in one probe on the reference and in one probe on each of the first K
base-passing samples, and each selection rule of ``amplify`` picks its witnesses from the
reference's results alone. Per rule and half it prints how many wrong-answer false passes
(HumanEval+ labels) answer otherwise than the reference on a picked input (giving no answer in
time is slowness, not a different answer), and how many samples HumanEval+
passes do too (an upper bound on false refutations: the pipeline's domain model, tie check, A.2
and certification remove most of them).

It answers in about two minutes per half what a full ``bench_evalplus.py`` run answers in
twenty, for one question only: which inputs task analysis should keep. The figures are not the
audit's (no per-trial audits, no stress or size witnesses, no P examples, no grounding on the
task's stored domain model); ``bench_evalplus.py`` gives those.

    .venv/bin/python benchmarks/bench_selection.py [--half even|odd|both] [--limit-per-task 20] [--second-step 200] [--generated 200]
        [--audit bench.json]

With ``--audit``, the JSON of a ``bench_evalplus.py`` run of the same half and K, each rule's row
also counts the wrong-answer false passes caught by the rule or found by that audit (a witness
fails on them, or they are slow): a bound on what the audit would find with those inputs too.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench_evalplus import measure  # noqa: E402
from corpora import CORPORA_ROOT, false_pass_kind, half_of, labels_of, read_jsonl  # noqa: E402

from testjack_tui.authors.offline import amplify  # noqa: E402
from testjack_tui.authors.offline.bounds import Domain, below_floor, seed_floors  # noqa: E402
from testjack_tui.pysource.calls import CallArgs, calls_in_source, literal_ok  # noqa: E402
from testjack_tui.authors.offline.inputs import generated  # noqa: E402
from testjack_tui.authors.offline.mutation import mutations  # noqa: E402
from testjack_tui.authors.offline.probe import Outcome, diverges, parse_output, probe_script  # noqa: E402
from testjack_tui.pysource.signatures import functions_in  # noqa: E402

MAX_MUTATIONS = 160  # per task, smallest first (the author's budget is 120 per function)


def _probe(program: str, cases: list[tuple[str, str]]) -> list[Outcome]:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "subject.py").write_text(program)
        Path(tmp, "probe.py").write_text(probe_script(cases, {"g": ["from subject import *"]}, budget=60))
        try:
            done = subprocess.run([sys.executable, "probe.py"], cwd=tmp, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return parse_output("", len(cases))
        return parse_output(done.stdout, len(cases))


def _params(prompt: str, entry: str) -> list[str]:
    found = re.search(rf"def {re.escape(entry)}\((.*?)\)\s*(?:->[^:]*)?:", prompt, re.S)
    text = found.group(1) if found else ""
    return [p.split(":")[0].split("=")[0].strip() for p in text.split(",") if p.strip()]


def measure_task(problem: dict[str, Any], samples: list[dict[str, Any]], second_step: int = 0,
                 generate: int = 0) -> dict[str, Any]:
    entry, prompt = problem["entry_point"], problem["prompt"]
    source = prompt + problem["canonical_solution"]  # the reference, as one module
    seeds = list({c.key: c for c in calls_in_source(problem["test"], entry, ["candidate"])}.values())
    names = _params(prompt, entry)
    domain = Domain.from_prompt(prompt, names)
    allowed, floors = domain.narrowed_by(seeds), seed_floors(seeds)

    def admitted(m: CallArgs) -> bool:
        return (all(literal_ok(v) and allowed.admits(v) for v in m.values) and domain.admits_call(m, names)
                and not below_floor(m, floors))

    parent: dict[str, CallArgs] = {}
    mutated: dict[str, CallArgs] = {}
    for seed in seeds:
        for m in mutations(seed):
            if m.key in mutated or any(m.key == s.key for s in seeds):
                continue
            if admitted(m):
                mutated[m.key], parent[m.key] = m, seed
    calls = sorted(mutated.values(), key=lambda c: (c.size, c.key))[:MAX_MUTATIONS]
    # mutations of mutations (EvalPlus mutates its pool over and over): a sample of them, the same
    # one on every run, to ask whether a second step would reach more wrong answers
    seen = {c.key for c in [*seeds, *calls]}
    twice = sorted({m.key: m for c in calls for m in mutations(c) if m.key not in seen and m.size < 2000
                    and admitted(m)}.values(), key=lambda c: c.key)
    random.Random(problem["task_id"]).shuffle(twice)
    twice = twice[:second_step]
    # values drawn from the parameters' annotations and the seeds' types (hypothesis), as the
    # author's plan draws 30 per function: a bound on what drawing many more would reach
    target = functions_in(source, "subject.py").get(entry)
    drawn = [] if target is None or not generate else [
        g for g in generated(target, seeds, allowed, generate, 0) if g.key not in seen and admitted(g)]
    cases = [("g", f"{entry}({c.source()})") for c in [*seeds, *calls, *twice, *drawn]]
    reference = _probe(source, cases)
    seed_out = list(zip(seeds, reference[: len(seeds)]))
    mut_out = list(zip(calls, reference[len(seeds):]))
    at = {c.key: len(seeds) + i for i, c in enumerate(calls)}

    def usable(start: int, count: int) -> list[int]:
        """The cases ``start`` .. ``start + count - 1`` whose reference answer a witness could assert."""
        return [i for i in range(start, start + count) if amplify.usable(reference[i], prompt)]

    kept = amplify.picks(seed_out, mut_out, parent, prompt, set())  # paths are not traced here
    rules = {
        "select + sensitive": [at[p.call.key] for p in kept if p.rule in ("select", "sensitive")],
        "+ spread": [at[p.call.key] for p in kept if p.rule in ("select", "sensitive", "spread")],
        "every mutation": usable(len(seeds), len(calls)),
    }
    first = len(seeds) + len(calls)
    if second_step:
        rules["+ two-step sample"] = rules["every mutation"] + usable(first, len(twice))
    if generate:
        rules["+ generated"] = rules["every mutation"] + usable(first, len(twice) + len(drawn))
    outcomes = {s["id"]: _probe(s["solution"], cases) for s in samples}
    # a sample that gives no answer in time is slow there, not different: the audit's result
    # witnesses skip it (witnesses.Spec.patience)
    return {rule: {sid: any(out[i].status != "timeout" and diverges(reference[i], out[i]) is True for i in picks)
                   for sid, out in outcomes.items()} for rule, picks in rules.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", default="both", choices=["even", "odd", "both"])
    ap.add_argument("--limit-per-task", type=int, default=20, metavar="K")
    ap.add_argument("--second-step", type=int, default=0, metavar="N",
                    help="also probe N mutations of mutations per task (a seeded sample) and print "
                         "'+ two-step sample': every one-step mutation and those")
    ap.add_argument("--generated", type=int, default=0, metavar="N",
                    help="also probe N values drawn from the parameters' types per task and print "
                         "'+ generated': the rules above and those")
    ap.add_argument("--audit", metavar="JSON", help="a bench_evalplus.py --json file of the same half and K: "
                    "also print each rule's union with what that audit found")
    ap.add_argument("--corpora-root", default=str(CORPORA_ROOT))
    args = ap.parse_args()
    corpus = Path(args.corpora_root) / "codet-dev"
    labels = labels_of(corpus)
    problems = read_jsonl(corpus / "problems.jsonl")
    samples = read_jsonl(corpus / "samples.jsonl")
    halves = ["even", "odd"] if args.half == "both" else [args.half]
    audited = json.loads(Path(args.audit).read_text())["corpora"]["codet-dev"]["runs"] if args.audit else {}
    for half in halves:
        tasks = [p for p in problems if half_of(p["task_id"]) == half]
        per_task = {p["task_id"]: [s for s in samples if s["task_id"] == p["task_id"]
                                   and labels[s["id"]].get("base_status") == "pass"][: args.limit_per_task]
                    for p in tasks}
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda p: measure_task(p, per_task[p["task_id"]], args.second_step,
                                                           args.generated), tasks))
        wrong = {sid for t in per_task.values() for s in t
                 if false_pass_kind(labels[sid := s["id"]]) == "wrong"}
        plus = {s["id"] for t in per_task.values() for s in t if labels[s["id"]].get("plus_status") == "pass"}
        print(f"codet-dev {half} half, {len(tasks)} tasks, first {args.limit_per_task} base-passing samples each: "
              f"{len(wrong)} wrong-answer false passes, {len(plus)} samples HumanEval+ passes")
        found = None  # what the full audit of this half found (--audit), witnesses and slow findings
        if half in audited:
            found = set(measure("codet-dev", audited[half]["report"], labels)["false_passes"]["wrong"]["found"])
        for rule in results[0] if results else []:
            hit = {sid for r in results for sid, caught in r[rule].items() if caught}
            union = "" if found is None else f"   or found by the audit {len(wrong & (hit | found)):>3}"
            print(f"  {rule:<20} wrong caught {len(hit & wrong):>3}   plus-passing diverging {len(hit & plus):>3}{union}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
