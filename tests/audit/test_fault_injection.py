"""Audit completeness as an invariant: a resumed audit loses nothing (issue 14).

One uninterrupted offline per-trial audit is the reference. Then, for each of the kill points
taken from that audit's own event log (checkpoints, witness rows and witness results, in commit
order; never wall time), a fresh store is audited by a process that SIGKILLs itself right after
that event is committed, and the same command is run again to the end. The resumed store must
hold what the uninterrupted one holds: every verdict, every witness by code with its status,
flakiness, classification, rho and the trial it was found on, its outcome on the reference, the
null world and every passing trial, every checkpoint, and the same report.

The run is the ``duration`` and ``roman`` tasks of sample_runs/toolbox: ``duration`` has seven
passing trials, a witness that refutes two of them and the implicit-requirement witness that must
come out ambiguous (the one issue 14 saw with results on 3 of 7 trials); ``roman`` is malformed.
Each killed audit starts from a store that already holds the uninterrupted audit's executions.
They are cached by content hash, so this only saves time: the audit's own bookkeeping, which is
what is under test, starts from nothing.

Two smaller tests stop an audit in process (an exception right after one write is committed, which
leaves the store as a kill would) at the two moments where one logical step takes two writes: a
flaky result and its flaky mark, a refined candidate's discard and its successor.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from testjack_tui.store import Store
from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.audit.validation import REFINED
from testjack_tui.audit.verdicts import passing_trials
from testjack_tui.formats.importing import import_path
from testjack_tui.model import WitnessStatus
from testjack_tui.report import build_report

from tests.audit.scripted import FIXED, WRONG, ScriptedAuthor, flaky_candidate

ROOT = Path(__file__).resolve().parents[2]
TOOLBOX = ROOT / "sample_runs" / "toolbox"
MINI = ROOT / "sample_runs" / "mini"
TASKS = ("duration", "roman")
RUN = "toolbox"
MIN_KILL_POINTS = 10
PARALLEL = 2  # killed-and-resumed audits run two at a time (each in its own store)


def sub_run(dest: Path) -> Path:
    """The toolbox run cut down to TASKS, in the native format."""
    dest.mkdir()
    shutil.copy(TOOLBOX / "run.toml", dest / "run.toml")
    for task in TASKS:
        shutil.copytree(TOOLBOX / "tasks" / task, dest / "tasks" / task)
    (dest / "trials").mkdir()
    kept = []
    for line in (TOOLBOX / "trials.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and json.loads(line)["task"] in TASKS:
            kept.append(line)
            patch = json.loads(line)["patch"]
            shutil.copy(TOOLBOX / patch, dest / patch)
    (dest / "trials.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")
    return dest


def fresh_store(path: Path, source: Path, executions_from: Path | None = None) -> Path:
    store = Store(path)
    import_path(store, source)
    store.close()
    if executions_from is not None:
        db = sqlite3.connect(path)
        with db:
            db.execute("ATTACH DATABASE ? AS done", (str(executions_from),))
            db.execute("INSERT OR IGNORE INTO executions SELECT * FROM done.executions")
        db.close()
    return path


def audit(db: Path, *, kill_at: int = 0, trace: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("TESTJACK_KILL_AT", "TESTJACK_TRACE")}
    env["TESTJACK_KILL_AT"] = str(kill_at)
    if trace is not None:
        env["TESTJACK_TRACE"] = str(trace)
    return subprocess.run(
        [sys.executable, "-m", "tests.audit.run_killable_audit", str(db), RUN],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )


def finished(proc: subprocess.CompletedProcess) -> bool:
    return proc.returncode == 0 and "status|done" in proc.stdout


def outcome(db: Path) -> dict:
    """Everything resume must not lose, in a form that compares with ==."""
    store = Store(db)
    run_id = store.get_run(RUN).id
    report = json.loads(json.dumps(build_report(store, run_id)))
    report["summary"].pop("executions")  # an execution cut short by the kill is run again
    witnesses = {}
    for w in store.list_witnesses(run_id):
        witnesses[w.code] = {
            "task": w.task_id, "status": str(w.status), "flaky": w.flaky, "found_on": w.found_on,
            "classification": str(w.classification), "rho": w.rho,
            "results": {world: str(r.outcome) for world, r in sorted(store.witness_results(w.id).items())},
        }
    steps = {r["key"]: r["value"] for r in store._rows("SELECT key, value FROM steps WHERE run_id = ?", (run_id,))}
    verdicts = {tid: (str(v.verdict), sorted(v.witnesses)) for tid, v in store.list_verdicts(run_id).items()}
    store.close()
    return {"verdicts": verdicts, "witnesses": witnesses, "steps": steps, "report": report}


def incomplete(db: Path) -> list[str]:
    """Validated, non-flaky witnesses missing a result on the reference, null world or a passing trial."""
    store = Store(db)
    run_id = store.get_run(RUN).id
    gaps = []
    for task in store.list_tasks(run_id):
        trials = [t.id for t in passing_trials(store.list_trial_objects(run_id, task.id))]
        for w in store.list_witnesses(run_id, task.id, status=str(WitnessStatus.VALIDATED)):
            have = store.witness_results(w.id)
            missing = [world for world in ["reference", "null", *trials] if world not in have]
            if missing and not w.flaky:
                gaps.append(f"{w.id} ({task.id}) has no result on {', '.join(missing)}")
    store.close()
    return gaps


def kill_points(events: list[list[str]]) -> dict[int, str]:
    """1-based event numbers to kill after, each with what it is, chosen from the event log.

    Every checkpoint; and for every witness: right after its row is written, after its reference
    result, after it is validated (before its null-world run), after its null-world result
    (validated, not yet shared: the gap issue 14 found), after its third trial result (partly
    shared), after its last one (shared, its trial's audit not yet marked done) and after it is
    discarded (refined, failing on the reference, or set aside as a redundant twin).
    """
    points: dict[int, str] = {}
    shared: dict[str, int] = {}
    for n, (kind, *rest) in enumerate(events, start=1):
        what = " ".join([kind, *rest])
        following = events[n] if n < len(events) else ["end"]
        if kind == "step":
            points[n] = what
        elif kind == "witness" and rest[1] in ("candidate", "validated") and rest[0] not in shared:
            points[n] = what
        elif kind == "witness" and rest[1] == "discarded":  # refined, failed, or set aside as a twin
            points[n] = what
        elif kind == "result" and rest[1] == "reference":
            points[n] = what
        elif kind == "result" and rest[1] == "null":
            shared[rest[0]] = 0
            points[n] = what
        elif kind == "result" and rest[0] in shared:
            shared[rest[0]] += 1
            if shared[rest[0]] == 3 or following[:2] != ["result", rest[0]]:
                points[n] = what
    return points


def kill_and_resume(db: Path, n: int, what: str) -> str:
    """Kill the audit of ``db`` after event ``n``, run it again; what went wrong, or ""."""
    killed = audit(db, kill_at=n)
    if killed.returncode != -signal.SIGKILL:
        return f"no kill after event {n} ({what}): rc {killed.returncode} {killed.stderr[-2000:]}"
    check = Store(db)
    ok = check.integrity_check()
    check.close()
    if ok != "ok":
        return f"store damaged by the kill after event {n} ({what}): {ok}"
    resumed = audit(db)
    if not finished(resumed):
        return f"resume after event {n} ({what}) did not finish: {resumed.stdout[-1000:]} {resumed.stderr[-2000:]}"
    return ""


@pytest.mark.slow
def test_killed_anywhere_in_the_step_log_then_resumed_loses_nothing(tmp_path: Path) -> None:
    source = sub_run(tmp_path / "run")

    straight = fresh_store(tmp_path / "straight.db", source)
    trace = tmp_path / "straight.trace"
    proc = audit(straight, trace=trace)
    assert finished(proc), proc.stdout + proc.stderr
    expected = outcome(straight)
    assert incomplete(straight) == []
    duration = [w for w in expected["witnesses"].values() if w["task"] == "duration" and w["status"] == "validated"]
    assert "ambiguous" in [w["classification"] for w in duration], "the ambiguous witness of issue 14 is gone"
    assert any(v == "refuted" for v, _ in expected["verdicts"].values())

    events = [line.split("\t") for line in trace.read_text(encoding="utf-8").splitlines()]
    points = kill_points(events)
    assert len(points) >= MIN_KILL_POINTS, points

    stores = {n: fresh_store(tmp_path / f"killed-{n}.db", source, executions_from=straight) for n in points}
    with ThreadPoolExecutor(PARALLEL) as pool:
        problems = dict(zip(points, pool.map(lambda n: kill_and_resume(stores[n], n, points[n]), points)))
    failures = [p for p in problems.values() if p]
    for n, what in sorted(points.items()):
        if problems[n]:
            continue
        gaps = incomplete(stores[n])
        got = outcome(stores[n])
        if gaps or got != expected:
            failures.append(f"killed after event {n} ({what}): {describe(expected, got)} {gaps or ''}")
    assert not failures, "\n".join(failures)


def describe(expected: dict, got: dict) -> str:
    """The first few differences, readably."""
    out = []
    for part in ("verdicts", "witnesses", "steps"):
        a, b = expected[part], got[part]
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                out.append(f"{part}[{str(key)[:80]!r}]: expected {a.get(key)!r}, got {b.get(key)!r}")
    if not out and expected["report"] != got["report"]:
        out.append("the reports differ")
    return "; ".join(out[:6])


# ---------------------------------------------------------------------- two writes, one step


class Killed(BaseException):
    """Stands in for SIGKILL: raised right after a write is committed, caught by nothing in the audit."""


def stop_after(monkeypatch: pytest.MonkeyPatch, name: str, when) -> None:
    original = getattr(Store, name)

    def wrapped(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        if when(*args, **kwargs):
            raise Killed(name)
        return result

    monkeypatch.setattr(Store, name, wrapped)


def task_analysis(store: Store, author: ScriptedAuthor) -> str:
    return Audit(store, "mini", AuditOptions(mode="task-analysis", workers=2, evidence=False), author=author).execute()


@pytest.mark.slow
def test_a_kill_between_a_flaky_result_and_its_flaky_mark_still_marks_it(tmp_path: Path, monkeypatch) -> None:
    counter = tmp_path / "counter"
    counter.mkdir()
    counter.chmod(0o777)  # the local backend may run tests as an unprivileged user
    store = Store(tmp_path / "store.db")
    import_path(store, MINI)
    author = ScriptedAuthor(analysis=[flaky_candidate(str(counter))])
    stop_after(monkeypatch, "put_witness_result", lambda r: len(set(r.runs)) > 1)
    with pytest.raises(Killed):
        task_analysis(store, author)
    monkeypatch.undo()
    (w,) = store.list_witnesses("mini", status="validated")
    assert not w.flaky and sorted(store.witness_results(w.id)["chunk-t1"].runs) == ["fail", "pass"]

    assert task_analysis(store, author) == "done"
    (w,) = store.list_witnesses("mini", status="validated")
    assert w.flaky  # and so it refutes nothing: its "error" on chunk-t1 is two runs that disagree
    assert store.get_verdict("mini", "chunk-t1").verdict == "unaudited"


@pytest.mark.slow
def test_a_kill_between_discarding_a_refined_candidate_and_writing_its_successor(tmp_path: Path, monkeypatch) -> None:
    store = Store(tmp_path / "store.db")
    import_path(store, MINI)
    author = ScriptedAuthor(analysis=[WRONG], refinements={WRONG.code: FIXED})
    stop_after(monkeypatch, "put_witness", lambda w: w.discard_reason == REFINED)
    with pytest.raises(Killed):
        task_analysis(store, author)
    monkeypatch.undo()
    assert [w.code for w in store.list_witnesses("mini")] == [WRONG.code]  # the successor is not written

    assert task_analysis(store, author) == "done"
    by_code = {w.code: w for w in store.list_witnesses("mini")}
    assert by_code[WRONG.code].status == WitnessStatus.DISCARDED
    fixed = by_code[FIXED.code]
    assert fixed.status == WitnessStatus.VALIDATED and fixed.attempts == 2
    passing = [t.id for t in passing_trials(store.list_trial_objects("mini", "chunk"))]
    assert set(store.witness_results(fixed.id)) == {"reference", "null", *passing}
