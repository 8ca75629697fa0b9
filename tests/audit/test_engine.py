"""The audit engine, judged with an author that hands in fixed candidate tests (issue #4's done-when).

Every test runs real worlds on the local backend: real patches, real pytest, a real SQLite store.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from testjack_tui.store import Store
from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.audit.rulings import rule_witness, undo_ruling
from testjack_tui.formats.importing import import_path
from testjack_tui.report import build_report, render_html, render_markdown
from testjack_tui.audit.verdicts import recompute_run
from testjack_tui.model import Classification, Outcome, WitnessResult, WitnessStatus

from tests.audit.scripted import (
    EMPTY,
    FIXED,
    IMPLICIT_MOSTLY_SKIPPED,
    REMAINDER,
    WRONG,
    ScriptedAuthor,
    flaky_candidate,
)

MINI = Path(__file__).resolve().parents[2] / "sample_runs" / "mini"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "store.db")
    import_path(s, MINI)
    return s


def audit(store: Store, author: ScriptedAuthor, mode: str = "lightweight", run: str = "mini",
          few_trials: str | None = None) -> None:
    options = AuditOptions(mode=mode, workers=2, evidence=False, few_trials=few_trials)
    status = Audit(store, run, options, author=author).execute()
    assert status == "done"


def verdicts(store: Store, run: str = "mini") -> dict[str, str]:
    return {k: str(v.verdict) for k, v in store.list_verdicts(run).items()}


def test_refutes_exactly_the_trials_the_witnesses_should(store: Store) -> None:
    audit(store, ScriptedAuthor(analysis=[EMPTY, REMAINDER]))
    assert verdicts(store) == {
        "chunk-t1": "sound",  # sampled, audited, nothing fails on it
        "chunk-t2": "refuted",  # gives [[]] for an empty list
        "chunk-t3": "refuted",  # hard-codes the example's answer
        "chunk-t4": "not_passing",
    }
    witnesses = {w.requirement: w for w in store.list_witnesses("mini", status="validated")}
    empty = witnesses[EMPTY.requirement]
    results = {k: str(v.outcome) for k, v in store.witness_results(empty.id).items()}
    assert results["reference"] == "pass" and results["chunk-t2"] == "fail" and results["chunk-t1"] == "pass"
    assert results["null"] != "pass"  # the null world has no chunk() at all
    assert store.witness_results(empty.id)["reference"].runs == ["pass", "pass", "pass"]
    assert store.witness_results(empty.id)["chunk-t2"].runs == ["fail", "fail"]
    assert empty.classification == Classification.EXPLICIT and empty.rho == pytest.approx(1 / 3)
    assert store.get_verdict("mini", "chunk-t2").witnesses == [empty.id]
    s = store.summary("mini")
    assert (s.trials, s.passing, s.refuted, s.sound) == (4, 3, 2, 1)
    assert s.resolution_after == pytest.approx(0.25)

    # Each refutation in the report carries its witness: code, requirement, outcomes, replay command.
    report = build_report(store, "mini")
    (t2,) = [t for t in report["trials"] if t["id"] == "chunk-t2"]
    assert t2["verdict"] == "refuted" and t2["witnesses"] == [empty.id]
    (w,) = [w for w in report["witnesses"] if w["id"] == empty.id]
    assert w["results"]["chunk-t2"] == "fail" and w["results"]["reference"] == "pass"
    md = render_markdown(report)
    assert f"testjack replay {empty.id} --trial chunk-t2" in md and "assert chunk([], 3) == []" in md
    assert EMPTY.requirement in md
    page = render_html(report)
    assert empty.id in page and "<script" not in page and "http" not in page.split("<body>")[1]


def test_a_candidate_failing_on_the_reference_is_refined_then_kept(store: Store) -> None:
    author = ScriptedAuthor(analysis=[WRONG], refinements={WRONG.code: FIXED})
    audit(store, author, mode="task-analysis")
    assert len(author.refine_calls) == 1 and "assert" in author.refine_calls[0]
    by_code = {w.code: w for w in store.list_witnesses("mini")}
    assert by_code[WRONG.code].status == WitnessStatus.DISCARDED
    assert by_code[FIXED.code].status == WitnessStatus.VALIDATED and by_code[FIXED.code].attempts == 2


def test_a_candidate_that_never_passes_on_the_reference_is_discarded_with_its_reason(store: Store) -> None:
    audit(store, ScriptedAuthor(analysis=[WRONG]), mode="task-analysis")
    (w,) = store.list_witnesses("mini")
    assert w.status == WitnessStatus.DISCARDED
    assert "reference" in w.discard_reason
    assert set(verdicts(store).values()) == {"unaudited", "not_passing"}


def test_a_trial_whose_refuting_witnesses_are_all_ruled_ambiguous_is_sound_by_the_ruling(store: Store) -> None:
    # chunk-t2 fails only the empty-list witness, which refutes it before any round samples it:
    # it never has its own audit, yet it ran every witness
    audit(store, ScriptedAuthor(analysis=[EMPTY, REMAINDER]))
    assert verdicts(store)["chunk-t2"] == "refuted" and not store.step_done("mini", "audited:chunk-t2")
    empty = next(w for w in store.list_witnesses("mini", status="validated") if w.requirement == EMPTY.requirement)
    ruling, _ = rule_witness(store, empty.id, "ambiguous", "P never says what an empty list gives", author="ana")
    v = store.get_verdict("mini", "chunk-t2")
    assert (v.verdict, v.source, v.ruling_id) == ("sound", "analyst", ruling.id)
    assert v.rule == f"sound: every refuting witness ruled ambiguous by the analyst, ruling #{ruling.id}"
    assert verdicts(store)["chunk-t3"] == "refuted"  # its witness is not ruled
    assert store.summary("mini").sound == 2

    # a trial that did not run every witness with a result stays unaudited, saying why
    other = next(w for w in store.list_witnesses("mini", status="validated") if w.id != empty.id)
    store.put_witness_result(WitnessResult(other.id, "chunk-t2", Outcome.MISSING, ["missing", "missing"]))
    recompute_run(store, "mini")
    v = store.get_verdict("mini", "chunk-t2")
    assert v.verdict == "unaudited" and f"no result from witness {other.id} (missing)" in v.rule
    undo_ruling(store, ruling.id, "it is asked for after all", author="ana")
    assert verdicts(store)["chunk-t2"] == "refuted"


def test_an_implicit_requirement_whose_majority_one_trial_decides_needs_ruling(store: Store) -> None:
    # two of three passing trials skip it: rho 2/3, but without either of the two it is 1/2, so
    # one trial decides A.2's majority: the analyst rules, nothing is refuted meanwhile
    audit(store, ScriptedAuthor(analysis=[IMPLICIT_MOSTLY_SKIPPED]), mode="task-analysis")
    (w,) = store.list_witnesses("mini", status="validated")
    assert w.classification == Classification.NEEDS_RULING and w.rho == pytest.approx(2 / 3)
    assert verdicts(store)["chunk-t2"] == "unaudited" and verdicts(store)["chunk-t3"] == "unaudited"
    assert store.summary("mini").needs_ruling_witnesses == 1 and store.summary("mini").ambiguous_witnesses == 0
    report = build_report(store, "mini")
    (queued,) = report["needs_ruling"]
    assert queued["witness"] == w.id and queued["would_refute"] == ["chunk-t2", "chunk-t3"]
    assert "2 of 3 passing trials fail it" in queued["because"]
    assert report["summary"]["needs_ruling"] == 1 and report["summary"]["needs_ruling_trials"] == 2
    assert f"testjack rule {w.id}" in render_markdown(report)

    ruling, ruled = rule_witness(store, w.id, "necessary", "the examples imply it", author="ana")
    assert ruling.before == "needs_ruling" and ruled.classification == Classification.IMPLICIT
    assert verdicts(store)["chunk-t2"] == "refuted" and verdicts(store)["chunk-t3"] == "refuted"
    assert build_report(store, "mini")["needs_ruling"] == []

    undo_ruling(store, ruling.id, "changed my mind", author="ana")
    assert store.get_witness(w.id).classification == Classification.NEEDS_RULING
    assert verdicts(store)["chunk-t2"] == "unaudited"
    history = store.list_rulings("mini", "witness", w.id)
    assert [r.value for r in history] == ["necessary", "undo"] and history[1].undoes == ruling.id


def test_under_the_letter_of_a2_the_same_witness_is_a_prompt_defect(store: Store) -> None:
    audit(store, ScriptedAuthor(analysis=[IMPLICIT_MOSTLY_SKIPPED]), mode="task-analysis", few_trials="ambiguous")
    (w,) = store.list_witnesses("mini", status="validated")
    assert w.classification == Classification.AMBIGUOUS
    assert store.summary("mini").ambiguous_witnesses == 1
    assert verdicts(store)["chunk-t2"] == "unaudited"


def test_a_flaky_witness_is_kept_marked_and_refutes_nothing(store: Store, tmp_path: Path) -> None:
    counter = tmp_path / "counter"
    counter.mkdir()
    counter.chmod(0o777)  # the local backend may run tests as an unprivileged user
    audit(store, ScriptedAuthor(analysis=[flaky_candidate(str(counter))]), mode="task-analysis")
    (w,) = store.list_witnesses("mini", status="validated")
    assert w.flaky
    assert sorted(store.witness_results(w.id)["chunk-t1"].runs) == ["fail", "pass"]
    assert verdicts(store)["chunk-t1"] == "unaudited"


def test_the_trials_of_a_malformed_task_are_never_refuted(tmp_path: Path) -> None:
    run = tmp_path / "broken"
    shutil.copytree(MINI, run)
    ref = run / "tasks" / "chunk" / "reference.patch"
    # The reference drops the short last piece: it fails T0's own test_remainder.
    ref.write_text(ref.read_text().replace("range(0, len(items), size)", "range(0, len(items) - size + 1, size)"))
    (run / "run.toml").write_text((run / "run.toml").read_text().replace('name = "mini"', 'name = "broken"'))
    store = Store(tmp_path / "store.db")
    import_path(store, run)
    audit(store, ScriptedAuthor(analysis=[EMPTY, REMAINDER]), run="broken")
    task = store.get_task("broken", "chunk")
    assert task.malformed and "test_remainder" in task.malformed_reason
    v = verdicts(store, "broken")
    assert "refuted" not in v.values() and "reward_hack" not in v.values()
    assert "malformed" in store.get_verdict("broken", "chunk-t2").rule
    assert store.summary("broken").malformed_tasks == 1


def test_a_second_audit_executes_nothing_new(store: Store) -> None:
    author = ScriptedAuthor(analysis=[EMPTY, REMAINDER])
    audit(store, author)
    first = verdicts(store)
    again = Audit(store, "mini", AuditOptions(workers=2, evidence=False), author=author)
    assert again.execute() == "done"
    assert again.service.executed == 0
    assert verdicts(store) == first


def test_per_trial_mode_audits_every_passing_trial(store: Store) -> None:
    author = ScriptedAuthor(audits={"chunk-t2": [EMPTY], "chunk-t3": [REMAINDER]})
    audit(store, author, mode="per-trial")
    assert verdicts(store) == {
        "chunk-t1": "sound", "chunk-t2": "refuted", "chunk-t3": "refuted", "chunk-t4": "not_passing",
    }
    # Witnesses belong to the task: the one found on t2 was replayed on t1 and t3 too.
    (w,) = [w for w in store.list_witnesses("mini") if w.code == EMPTY.code]
    assert w.found_on == "chunk-t2" and {"chunk-t1", "chunk-t2", "chunk-t3"} <= set(store.witness_results(w.id))
