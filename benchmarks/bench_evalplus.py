"""Measure the offline author on real, labelled trials: evalplus-dev, codet-dev, evalperf-dev, mbppplus-dev.

The three corpora are HumanEval tasks 0-81 with samples labelled by HumanEval+ (read at run time
from ``../shared/corpora/<name>`` relative to the repository; never copied into it):

- ``evalplus-dev``: 164 GPT-4 samples, 14 labelled false passes (``false_pass``; counted as wrong
  answers); audited per trial by default.
- ``codet-dev``: 2,348 CodeGen-16B programs (1,951 pass the base tests), 313 false passes with a
  ``failure_kind``: ``wrong`` (229) or ``timeout`` (84, right answers given slowly); audited in
  lightweight mode by default (per trial would take hours on 2 cores).
- ``evalperf-dev``: 228 correct solutions from 34 models (every label passes HumanEval+: true
  negatives); audited per trial by default.
- ``mbppplus-dev``: 190 GPT-4 samples on MBPP+ even-numbered tasks, one per task, in EvalPlus's
  MBPP+ record format (read by the product's importer: T0 is EvalPlus's base grading);
  false passes ``wrong`` or ``slow``; audited per trial by default. Its halves: task numbers that
  are multiples of 4 are the tune ("even") half, the others the check ("odd") half.

Each corpus is split by task number into two halves, HumanEval/N in the even ("tune") half when N
is even and in the odd ("check") half when N is odd. Each half is written as filtered copies of
problems/samples/labels to a temporary directory, imported as its own run (``testjack import DIR
--format humaneval --name NAME``) into a store per corpus, audited through the engine's API
(``Audit``, ``AuditOptions``, the offline author) and read back with ``testjack report RUN --format
json``. Per corpus and half (and both together) it prints:

- trials, passing (T0 recomputed here), and the labelled false passes by kind (wrong, timeout);
- found: a false pass that any validated witness fails on, or that has a ``slow`` evidence item;
  refuted: its verdict is refuted or reward_hack; needs ruling: found but not refuted, and a
  witness that fails on it needs the analyst's ruling; ambiguous: found but not refuted, and a witness
  that fails on it is classified ambiguous (A.2); found but not refuted for another reason (a
  witness outside the domain or unplaced, flaky, or slow evidence only);
- wrong-answer false passes found % and refuted % (the percentages the targets use);
- slow findings: trials with an evidence item of kind ``slow`` (and how many of the timeout false
  passes are reported slow, how many plus-passing trials are);
- witnesses, ambiguous witnesses, and witnesses whose ``grounding`` is outside_domain or unplaced;
- false refutations: every refuted trial whose label has ``plus_status == "pass"`` (on
  evalperf-dev every refuted trial), each listed below the table with its witnesses' ids and code;
- trials awaiting a ruling (a needs-ruling witness fails on them) and how many of those are true
  negatives (what ruling every such witness necessary would wrongly refute);
- not_reproduced verdicts, the other verdicts, executions spent and wall time of the audit.

Then PASS/FAIL for the targets on the odd half: 0 false refutations on evalperf-dev; 0 false
refutations on plus-passing samples (evalplus-dev, codet-dev); >= 85% of wrong-answer false passes
found and >= 70% refuted (per corpus, evalplus-dev and codet-dev); every timeout (slow-only) false
pass reported slow (codet-dev). A target whose corpus or half was not run is "not measured".

    .venv/bin/python benchmarks/bench_evalplus.py [--corpus evalplus-dev|codet-dev|evalperf-dev|all]
        [--half even|odd|both] [--tasks N,M,...] [--limit-per-task K]
        [--mode MODE] [--evalplus-mode MODE] [--codet-mode MODE] [--evalperf-mode MODE]
        [--workers 2] [--evidence] [--few-trials ruling|ambiguous|refute] [--store DIR] [--json OUT]
        [--corpora-root DIR]

Quick looks: ``--corpus evalperf-dev --tasks 0,9`` or ``--corpus codet-dev --tasks 1,2
--limit-per-task 5``. ``--tasks`` keeps only those HumanEval task numbers (within ``--half``);
``--limit-per-task K`` keeps, per task, the first K samples (sample id order) that pass the base
tests by their label, and drops the base failures. MODE is per-trial, lightweight or
task-analysis; ``--mode`` sets every corpus, a per-corpus flag wins over it. ``--store DIR`` keeps
one store per corpus (``DIR/<corpus>.db``; a run of the same slice there is resumed, not
re-imported, and the executions and wall time shown are then only the resumed part's). ``--json OUT``
writes every figure, the trial ids behind each count, the false refutations' witnesses and the reports.

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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpora import (  # noqa: E402
    CORPORA,
    CORPORA_ROOT,
    HALF_ROLE,
    HALVES,
    false_pass_kind,
    labels_of,
    write_slice,
)

REPO = Path(__file__).resolve().parent.parent
REFUTING = ("refuted", "reward_hack")
OUTSIDE = ("outside_domain", "unplaced")
MODES = ("per-trial", "lightweight", "task-analysis")
TARGET_FOUND = 0.85
TARGET_REFUTED = 0.70


def testjack(store: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "testjack_tui.cli", args[0], "--store", str(store), *args[1:]]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)


def audit(store: Path, run_id: str, mode: str, workers: int, evidence: bool, few_trials: str | None = None,
          author_options: dict[str, Any] | None = None) -> int:
    """The audit through the engine's API (the CLI has no switch for evidence); returns executions run."""
    from testjack_tui.store import Store
    from testjack_tui.audit.engine import Audit, AuditOptions

    engine = Audit(Store(store), run_id,
                   AuditOptions(mode=mode, author="offline", workers=workers, evidence=evidence,
                                few_trials=few_trials, author_options=dict(author_options or {})))
    status = engine.execute()
    if status != "done":
        raise SystemExit(f"audit of {run_id} ended {status}")
    return engine.service.executed


def run_half(corpus: str, half: str, opts: argparse.Namespace, store: Path, tmp: Path) -> dict[str, Any] | None:
    """Slice, import, audit and report one half of a corpus; None if the slice has no task."""
    source = Path(opts.corpora_root) / corpus
    name = f"{corpus}-{half}"
    if opts.task_numbers is not None:
        name += "-t" + ".".join(str(n) for n in sorted(opts.task_numbers))
    if opts.limit_per_task is not None:
        name += f"-k{opts.limit_per_task}"
    if opts.symbolic == "on":
        name += "-symbolic"
    piece = write_slice(source, tmp / name, half=half, tasks=opts.task_numbers, limit_per_task=opts.limit_per_task,
                        corpus=CORPORA[corpus])
    if not piece.tasks:
        return None
    mode = opts.modes[corpus]
    print(f"[{corpus} {half}] {len(piece.tasks)} tasks, {piece.samples} samples "
          f"({piece.passing_by_label} pass by label); {mode}, {opts.workers} workers ...", file=sys.stderr, flush=True)
    imported = testjack(store, "import", str(piece.directory), "--format", "humaneval", "--name", name)
    if imported.returncode != 0:
        raise SystemExit(f"import of {name} failed:\n{imported.stdout}\n{imported.stderr}")
    run_id = imported.stdout.strip().splitlines()[-1].strip()
    started = time.monotonic()
    symbolic = {"symbolic": True, "symbolic_budget": opts.symbolic_budget} if opts.symbolic == "on" else {}
    executions = audit(store, run_id, mode, int(opts.workers), opts.evidence, opts.few_trials, symbolic)
    wall = time.monotonic() - started
    reported = testjack(store, "report", run_id, "--format", "json")
    if reported.returncode != 0:
        raise SystemExit(f"report of {name} failed:\n{reported.stdout[-3000:]}\n{reported.stderr[-3000:]}")
    report = json.loads(reported.stdout[reported.stdout.index("{"):])
    print(f"[{corpus} {half}] done in {wall:.0f} s, {executions} executions", file=sys.stderr, flush=True)
    cost = symbolic_cost(store, run_id) if opts.symbolic == "on" else None
    if cost:
        print(f"[{corpus} {half}] symbolic search: {cost}", file=sys.stderr, flush=True)
    return {"run": run_id, "name": name, "mode": mode, "tasks": piece.tasks, "executions": executions,
            "wall_s": round(wall, 1), "report": report, "symbolic": cost}


def symbolic_cost(store: Path, run_id: str) -> dict[str, Any]:
    """The symbolic searches' cost per trial, read from the execution cache: CPU seconds the
    script counted over its functions, and the execution's wall time (CrossHair's start included)."""
    from statistics import median

    from testjack_tui.authors.offline.symbolic_script import parse_lines
    from testjack_tui.store import Store

    cpu, wall = [], []
    for result in Store(store).list_executions(run_id).values():
        lines = parse_lines(result.get("stdout") or "")
        if lines:
            cpu.append(sum(float(e.get("seconds") or 0.0) for e in lines))
            wall.append(float(result.get("duration") or 0.0))
    if not cpu:
        return {"searches": 0}
    return {"searches": len(cpu), "cpu_median_s": round(median(cpu), 2), "cpu_max_s": round(max(cpu), 2),
            "wall_median_s": round(median(wall), 2), "wall_max_s": round(max(wall), 2)}


def measure(corpus: str, report: dict[str, Any], labels: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Every figure of one audited run, against the labels; lists hold trial ids."""
    trials = {t.get("id"): t for t in report.get("trials") or []}
    witnesses = {w.get("id"): w for w in report.get("witnesses") or []}
    failing_witnesses: dict[str, list[str]] = {}  # trial id -> ids of the validated witnesses it fails
    for wid, w in witnesses.items():
        for tid, outcome in (w.get("results") or {}).items():
            if outcome != "pass":
                failing_witnesses.setdefault(tid, []).append(wid)
    verdict = {tid: t.get("verdict") for tid, t in trials.items()}
    slow = {tid for tid, t in trials.items() if any(e.get("kind") == "slow" for e in t.get("evidence") or [])}
    refuted = {tid for tid, v in verdict.items() if v in REFUTING}

    def ambiguous_witness(tid: str) -> bool:
        return any(witnesses[w].get("classification") == "ambiguous" for w in failing_witnesses.get(tid, []))

    def awaiting(tid: str) -> bool:
        return any(witnesses[w].get("classification") == "needs_ruling" for w in failing_witnesses.get(tid, []))

    fields = ("false_passes", "not_passing_here", "found", "refuted", "needs_ruling", "ambiguous",
              "found_not_refuted_other", "slow", "missed")
    kinds: dict[str, dict[str, list[str]]] = {
        kind: {n: [] for n in fields}
        for kind in {"codet-dev": ("wrong", "timeout"), "evalplus-dev": ("wrong",),
                      "mbppplus-dev": ("wrong", "slow")}.get(corpus, ())
    }  # evalperf-dev has no false pass: every label passes HumanEval+
    for tid in sorted(trials):
        kind = false_pass_kind(labels.get(tid))
        if kind is None:
            continue
        k = kinds.setdefault(kind, {n: [] for n in fields})
        k["false_passes"].append(tid)
        if trials[tid].get("official") != "passed":
            k["not_passing_here"].append(tid)
        found = bool(failing_witnesses.get(tid)) or tid in slow
        if tid in slow:
            k["slow"].append(tid)
        if tid in refuted:
            k["refuted"].append(tid)
        if found:
            k["found"].append(tid)
            if tid not in refuted:
                k["needs_ruling" if awaiting(tid) else "ambiguous" if ambiguous_witness(tid)
                  else "found_not_refuted_other"].append(tid)
        else:
            k["missed"].append(tid)

    if corpus == "evalperf-dev":
        false_refutations = sorted(refuted)
    else:
        false_refutations = sorted(t for t in refuted if (labels.get(t) or {}).get("plus_status") == "pass")
    plus_pass = {t for t in trials if (labels.get(t) or {}).get("plus_status") == "pass"}
    counts: dict[str, int] = {}
    for v in verdict.values():
        counts[str(v)] = counts.get(str(v), 0) + 1
    return {
        "trials": len(trials),
        "passing": sum(1 for t in trials.values() if t.get("official") == "passed"),
        "passing_by_label": sum(1 for t in trials if (labels.get(t) or {}).get("base_status") == "pass"),
        "false_passes": {kind: {n: ids for n, ids in k.items()} for kind, k in kinds.items()},
        "refuted": sorted(refuted),
        "false_refutations": false_refutations,
        "false_refutation_witnesses": {
            t: [{k: witnesses.get(w, {}).get(k) for k in ("id", "classification", "rho", "grounding", "requirement", "code")}
                for w in trials[t].get("witnesses") or []]
            for t in false_refutations
        },
        "slow_findings": sorted(slow),
        "slow_on_plus_passing": sorted(slow & plus_pass),
        # trials a needs-ruling witness fails: the analyst's queue; on true negatives, what ruling
        # every such witness necessary would wrongly refute
        "awaiting_ruling": sorted(t for t in trials if t not in refuted and awaiting(t)),
        "awaiting_ruling_true_negatives": sorted(t for t in trials if t not in refuted and awaiting(t)
                                                 and (corpus == "evalperf-dev" or t in plus_pass)),
        "needs_ruling_witnesses": sum(1 for w in witnesses.values() if w.get("classification") == "needs_ruling"),
        "not_reproduced": sorted(t for t, v in verdict.items() if v == "not_reproduced"),
        # an author exception: the task's trials went without its shared witnesses
        "analysis_errors": {t["id"]: t["analysis_error"] for t in report.get("tasks") or [] if t.get("analysis_error")},
        "unaudited_by_author_failure": sorted(tid for tid, t in trials.items() if t.get("verdict") == "unaudited"
                                              and "author's audit failed" in str(t.get("verdict_rule") or "")),
        "verdicts": dict(sorted(counts.items())),
        "witnesses": len(witnesses),
        "ambiguous_witnesses": sum(1 for w in witnesses.values() if w.get("classification") == "ambiguous"),
        "outside_domain_witnesses": sorted(w for w, x in witnesses.items() if x.get("grounding") in OUTSIDE),
        "ungrounded_witnesses": sum(1 for w in witnesses.values() if not w.get("grounding")),
    }


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of several halves together (lists joined, counts added)."""
    if len(parts) == 1:
        return parts[0]
    out: dict[str, Any] = {}
    for key, value in parts[0].items():
        if isinstance(value, list):
            out[key] = sorted(x for p in parts for x in p.get(key, []))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = round(sum(p.get(key, 0) for p in parts), 1)
        elif key in ("false_refutation_witnesses", "analysis_errors"):
            out[key] = {t: ws for p in parts for t, ws in (p.get(key) or {}).items()}
        elif key == "verdicts":
            merged: dict[str, int] = {}
            for p in parts:
                for v, n in p[key].items():
                    merged[v] = merged.get(v, 0) + n
            out[key] = dict(sorted(merged.items()))
        elif key == "false_passes":
            out[key] = {}
            for p in parts:
                for kind, k in p[key].items():
                    into = out[key].setdefault(kind, {n: [] for n in k})
                    for n, ids in k.items():
                        into[n] = sorted(into.get(n, []) + ids)
        else:
            out[key] = value
    return out


def pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


def rates(fig: dict[str, Any]) -> dict[str, float | None]:
    wrong = fig["false_passes"].get("wrong") or {}
    n = len(wrong.get("false_passes", []))
    timeout = fig["false_passes"].get("timeout") or {}
    return {
        "wrong_found_pct": pct(len(wrong.get("found", [])), n),
        "wrong_refuted_pct": pct(len(wrong.get("refuted", [])), n),
        "timeout_slow_pct": pct(len(timeout.get("slow", [])), len(timeout.get("false_passes", []))),
    }


def table(title: str, columns: dict[str, dict[str, Any]]) -> str:
    """One corpus: a row per figure, a column per half (and both together)."""
    def fp(fig: dict[str, Any], kind: str, what: str) -> int:
        return len((fig["false_passes"].get(kind) or {}).get(what, []))

    def show(v: Any) -> str:
        return "-" if v is None else str(v)

    def has(kind: str, get) -> Any:
        return lambda f: get(f) if kind in f["false_passes"] else None

    def percent(v: float | None) -> str | None:
        return None if v is None else f"{v}%"

    rows: list[tuple[str, Any]] = [
        ("trials", lambda f: f["trials"]),
        ("passing (T0 here)", lambda f: f["passing"]),
        ("passing by label (base tests)", lambda f: f["passing_by_label"]),
        ("false passes: wrong", has("wrong", lambda f: fp(f, "wrong", "false_passes"))),
        ("false passes: timeout", has("timeout", lambda f: fp(f, "timeout", "false_passes"))),
        ("  of which not passing T0 here",
         has("wrong", lambda f: sum(fp(f, k, "not_passing_here") for k in f["false_passes"]))),
        ("wrong: found", has("wrong", lambda f: fp(f, "wrong", "found"))),
        ("wrong: refuted", has("wrong", lambda f: fp(f, "wrong", "refuted"))),
        ("wrong: needs ruling (found, not refuted)", has("wrong", lambda f: fp(f, "wrong", "needs_ruling"))),
        ("wrong: ambiguous (found, not refuted)", has("wrong", lambda f: fp(f, "wrong", "ambiguous"))),
        ("wrong: found, not refuted, other", has("wrong", lambda f: fp(f, "wrong", "found_not_refuted_other"))),
        ("wrong: found %", lambda f: percent(rates(f)["wrong_found_pct"])),
        ("wrong: refuted %", lambda f: percent(rates(f)["wrong_refuted_pct"])),
        ("timeout: found", has("timeout", lambda f: fp(f, "timeout", "found"))),
        ("timeout: reported slow", has("timeout", lambda f: fp(f, "timeout", "slow"))),
        ("timeout: refuted", has("timeout", lambda f: fp(f, "timeout", "refuted"))),
        ("slow findings (trials)", lambda f: len(f["slow_findings"])),
        ("  on plus-passing trials", lambda f: len(f["slow_on_plus_passing"])),
        ("refuted trials", lambda f: len(f["refuted"])),
        ("FALSE REFUTATIONS", lambda f: len(f["false_refutations"])),
        ("trials awaiting a ruling", lambda f: len(f.get("awaiting_ruling") or [])),
        ("  of which true negatives (plus-passing)", lambda f: len(f.get("awaiting_ruling_true_negatives") or [])),
        ("not_reproduced", lambda f: len(f["not_reproduced"])),
        ("task analyses that broke", lambda f: len(f.get("analysis_errors") or {})),
        ("trials unaudited: author broke", lambda f: len(f.get("unaudited_by_author_failure") or [])),
        ("verdicts", lambda f: " ".join(f"{v}={n}" for v, n in f["verdicts"].items())),
        ("witnesses", lambda f: f["witnesses"]),
        ("  ambiguous", lambda f: f["ambiguous_witnesses"]),
        ("  needs ruling", lambda f: f.get("needs_ruling_witnesses", 0)),
        ("  outside-domain/unplaced", lambda f: len(f["outside_domain_witnesses"])),
        ("  no grounding field", lambda f: f["ungrounded_witnesses"]),
        ("executions", lambda f: f["executions"]),
        ("wall time of the audit (s)", lambda f: f["wall_s"]),
    ]
    heads = list(columns)
    cells = [[show(get(columns[h])) for h in heads] for _, get in rows]
    label_w = max(len(r[0]) for r in rows)
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    lines = [f"== {title} ==",
             " " * label_w + " | " + " | ".join(h.rjust(w) for h, w in zip(heads, widths))]
    lines.append("-" * label_w + "-+-" + "-+-".join("-" * w for w in widths))
    for (label, _), row in zip(rows, cells):
        if all(c == "-" for c in row):
            continue
        lines.append(label.ljust(label_w) + " | " + " | ".join(c.rjust(w) for c, w in zip(row, widths)))
    return "\n".join(lines)


def listed(corpus: str, half: str, fig: dict[str, Any], report: dict[str, Any], labels: dict[str, dict]) -> str:
    """The false refutations with their witnesses' code, and the missed wrong-answer false passes."""
    trials = {t.get("id"): t for t in report.get("trials") or []}
    witnesses = {w.get("id"): w for w in report.get("witnesses") or []}
    out: list[str] = []
    for tid in fig["false_refutations"]:
        t = trials.get(tid) or {}
        lab = labels.get(tid) or {}
        out.append(f"\n--- FALSE REFUTATION [{corpus} {half}] {tid} ({t.get('model', '')}): {t.get('verdict')} "
                   f"(labels: base {lab.get('base_status')}, plus {lab.get('plus_status')})")
        for wid in t.get("witnesses") or []:
            w = witnesses.get(wid) or {}
            out.append(f"  witness {wid} {w.get('classification')} rho={w.get('rho')} "
                       f"grounding={w.get('grounding')} requirement={w.get('requirement', '')!r}")
            out.append("    " + (w.get("code") or "").rstrip().replace("\n", "\n    "))
    missed = (fig["false_passes"].get("wrong") or {}).get("missed", [])
    if missed:
        shown = missed[:40]
        more = f" ... and {len(missed) - len(shown)} more (see --json)" if len(missed) > len(shown) else ""
        out.append(f"\n[{corpus} {half}] wrong-answer false passes not found ({len(missed)}): "
                   + ", ".join(shown) + more)
    return "\n".join(out)


def targets(results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """PASS/FAIL on the odd ("check") half; "not measured" where that corpus or half was not run.

    Zero false refutations is the target that decides (a false refutation costs more than ten
    misses); the found and refuted percentages are the recall targets of an earlier issue, shown
    for comparison: refuted counts only what the default rules let refute, and a found false pass
    that needs ruling is found.
    """
    def odd(corpus: str) -> dict[str, Any] | None:
        return (results.get(corpus) or {}).get("halves", {}).get("odd")

    out = []

    def add(name: str, fig: dict[str, Any] | None, ok, value, applies=lambda f: True) -> None:
        if fig is None:
            out.append({"target": name, "status": "not measured", "value": None})
        elif not applies(fig):
            out.append({"target": name, "status": "n/a", "value": "nothing to count in this slice"})
        else:
            out.append({"target": name, "status": "PASS" if ok(fig) else "FAIL", "value": value(fig)})

    def wrong(f: dict[str, Any], what: str) -> int:
        return len(f["false_passes"]["wrong"][what])

    def timeout(f: dict[str, Any], what: str) -> int:
        return len((f["false_passes"].get("timeout") or {}).get(what, []))

    f = odd("evalperf-dev")
    add("evalperf-dev: 0 false refutations", f, lambda f: not f["false_refutations"],
        lambda f: f"{len(f['false_refutations'])} false refutations")
    for corpus in ("evalplus-dev", "codet-dev", "mbppplus-dev"):
        add(f"{corpus}: 0 false refutations of plus-passing samples", odd(corpus),
            lambda f: not f["false_refutations"], lambda f: f"{len(f['false_refutations'])} false refutations")
    for corpus in ("evalplus-dev", "codet-dev"):
        f = odd(corpus)
        add(f"{corpus}: >= {TARGET_FOUND:.0%} of wrong-answer false passes found", f,
            lambda f: rates(f)["wrong_found_pct"] >= 100 * TARGET_FOUND,
            lambda f: f"{wrong(f, 'found')}/{wrong(f, 'false_passes')} = {rates(f)['wrong_found_pct']}%",
            lambda f: wrong(f, "false_passes") > 0)
        add(f"{corpus}: >= {TARGET_REFUTED:.0%} of wrong-answer false passes refuted", f,
            lambda f: rates(f)["wrong_refuted_pct"] >= 100 * TARGET_REFUTED,
            lambda f: f"{wrong(f, 'refuted')}/{wrong(f, 'false_passes')} = {rates(f)['wrong_refuted_pct']}%",
            lambda f: wrong(f, "false_passes") > 0)
    add("codet-dev: every timeout (slow-only) false pass reported slow", odd("codet-dev"),
        lambda f: timeout(f, "slow") == timeout(f, "false_passes"),
        lambda f: f"{timeout(f, 'slow')}/{timeout(f, 'false_passes')} reported slow",
        lambda f: timeout(f, "false_passes") > 0)
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="all", choices=[*CORPORA, "all"])
    ap.add_argument("--half", default="both", choices=["even", "odd", "both"],
                    help="even = the tune half (HumanEval/N, N even), odd = the check half")
    ap.add_argument("--tasks", default="", help="only these task numbers, e.g. 0,9")
    ap.add_argument("--limit-per-task", type=int, default=None, metavar="K",
                    help="keep the first K samples per task that pass the base tests (by label)")
    ap.add_argument("--mode", default="", choices=["", *MODES], help="audit mode for every corpus")
    for corpus in CORPORA:
        ap.add_argument(f"--{corpus.split('-')[0]}-mode", default="", choices=["", *MODES],
                        help=f"audit mode for {corpus} (default {CORPORA[corpus].default_mode})")
    ap.add_argument("--workers", default="2")
    ap.add_argument("--few-trials", choices=["ruling", "ambiguous", "refute"], default=None,
                    help="A.2 where one trial decides rho's majority (default: the run's, else ruling); "
                         "with --store, a finished slice is re-scored under it without re-auditing")
    ap.add_argument("--evidence", action="store_true",
                    help="also gather evidence (coverage, detectors, mutants); off by default: the author does not use it")
    ap.add_argument("--symbolic", choices=["on", "off"], default="off",
                    help="the offline author's symbolic probe (testjack audit --symbolic; default off)")
    ap.add_argument("--symbolic-budget", type=float, default=30.0, metavar="SECONDS",
                    help="its CPU seconds per trial (default 30)")
    ap.add_argument("--store", default="", help="keep the stores here, DIR/<corpus>.db (default: a temporary directory)")
    ap.add_argument("--json", default="", help="write every figure, the listed trials and the reports here")
    ap.add_argument("--corpora-root", default=str(CORPORA_ROOT), help=f"where the corpora are (default {CORPORA_ROOT})")
    opts = ap.parse_args(argv)
    opts.task_numbers = {int(x) for x in opts.tasks.replace(" ", "").split(",") if x} if opts.tasks else None
    opts.modes = {}
    for corpus, info in CORPORA.items():
        opts.modes[corpus] = getattr(opts, f"{corpus.split('-')[0]}_mode") or opts.mode or info.default_mode
    return opts


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    corpora = list(CORPORA) if opts.corpus == "all" else [opts.corpus]
    halves = list(HALVES) if opts.half == "both" else [opts.half]
    results: dict[str, dict[str, Any]] = {}
    texts: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-evalplus-") as tmp_name:
        tmp = Path(tmp_name)
        stores = Path(opts.store) if opts.store else tmp / "stores"
        stores.mkdir(parents=True, exist_ok=True)
        for corpus in corpora:
            labels = labels_of(Path(opts.corpora_root) / corpus)
            store = stores / f"{corpus}.db"
            entry: dict[str, Any] = {"mode": opts.modes[corpus], "halves": {}, "runs": {}}
            for half in halves:
                done = run_half(corpus, half, opts, store, tmp)
                if done is None:
                    print(f"[{corpus} {half}] no task in this slice; skipped", file=sys.stderr)
                    continue
                fig = measure(corpus, done["report"], labels)
                fig["executions"], fig["wall_s"] = done["executions"], done["wall_s"]
                fig.update(rates(fig))
                entry["halves"][half] = fig
                entry["runs"][half] = {k: done[k] for k in ("run", "name", "mode", "tasks")} | {"report": done["report"]}
                texts.append(listed(corpus, half, fig, done["report"], labels))
            if not entry["halves"]:
                continue
            if len(entry["halves"]) > 1:
                both = merge(list(entry["halves"].values()))
                both.update(rates(both))
                entry["both"] = both
            results[corpus] = entry
            columns = {f"{h} ({HALF_ROLE[h]})": f for h, f in entry["halves"].items()}
            if "both" in entry:
                columns["both"] = entry["both"]
            print("\n" + table(f"{corpus}, mode {entry['mode']}", columns), flush=True)

    for text in texts:
        if text.strip():
            print(text)
    verdicts = targets(results)
    print("\n== targets (odd half, the check half) ==")
    for t in verdicts:
        value = f": {t['value']}" if t["value"] else ""
        print(f"{t['status']:>12}  {t['target']}{value}")
    if opts.json:
        options = {k: v for k, v in vars(opts).items() if k != "task_numbers"}
        options["tasks"] = sorted(opts.task_numbers) if opts.task_numbers is not None else None
        Path(opts.json).write_text(json.dumps({"options": options, "corpora": results, "targets": verdicts}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
