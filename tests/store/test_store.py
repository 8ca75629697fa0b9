"""The SQLite store: schema versions, migrations, threads, append-only rulings, the execution cache."""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
from pathlib import Path

import pytest

from testjack_tui.store import NotFound, Store, StoreError, StoreTooNew
from testjack_tui.store.schema import CURRENT_VERSION, MIGRATIONS
from testjack_tui.formats.importing import import_path
from testjack_tui.audit.rulings import override_verdict
from testjack_tui.model import (
    AuthorKind,
    Classification,
    Evidence,
    EvidenceKind,
    Grounding,
    LLMCall,
    Official,
    Origin,
    Outcome,
    Requirement,
    RequirementKind,
    Ruling,
    Verdict,
    VerdictRecord,
    VerdictSource,
    Witness,
    WitnessResult,
    WitnessStatus,
)

MINI = Path(__file__).resolve().parents[2] / "sample_runs" / "mini"


def test_a_new_store_is_at_the_current_version_in_wal_mode(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.db")
    assert s.schema_version() == CURRENT_VERSION
    assert s.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert s.integrity_check() == "ok"


def test_a_store_made_by_an_older_version_is_migrated_and_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.executescript(MIGRATIONS[0][1])
    conn.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    conn.execute(
        "INSERT INTO runs(id, name, created_at) VALUES ('old-run', 'old run', '2026-01-01T00:00:00+00:00')"
    )
    conn.execute(
        "INSERT INTO trials(run_id, id, seq, task_id, official) VALUES ('old-run', 't1', 0, 'task', 'passed')"
    )
    conn.commit()
    conn.close()

    s = Store(path)
    assert s.schema_version() == CURRENT_VERSION
    assert s.get_run("old run").id == "old-run"
    trial = s.get_trial("old-run", "t1")
    assert trial.official == Official.PASSED and trial.reviewed is False  # a column version 2 added
    assert s.list_witnesses("old-run") == []  # a table version 2 added


def test_a_store_made_by_a_newer_version_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(CURRENT_VERSION + 1),))
    conn.commit()
    conn.close()
    with pytest.raises(StoreTooNew, match="newer TestJack"):
        Store(path)


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello, this is not SQLite " * 100)
    with pytest.raises(StoreError, match="notes.txt"):
        Store(path)


def test_each_thread_gets_its_own_connection(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.db")
    import_path(s, MINI)
    seen: list[object] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            seen.append(s.db)
            s.set_reviewed("mini", "chunk-t1", True)
            assert s.get_trial("mini", "chunk-t1").reviewed
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert not errors
    assert seen[0] is not s.db
    assert s.get_trial("mini", "chunk-t1").reviewed


def test_every_record_reads_back_as_it_was_written(tmp_path: Path) -> None:
    """Each kind of record, its fields away from their defaults (enums, lists, flags left unknown),
    comes back from the store equal to what was written."""
    s = Store(tmp_path / "s.db")
    import_path(s, MINI)
    task = s.list_tasks("mini")[0]
    trial = s.list_trial_objects("mini", task.id)[0]

    witness = Witness(
        id="w-back", run_id="mini", task_id=task.id, requirement="chunk(x, 0) raises ValueError",
        requirement_kind=RequirementKind.IMPLICIT, origin=Origin.MANUAL, author=AuthorKind.ANALYST,
        code="def test_back():\n    pass\n", path="tests/test_back.py", status=WitnessStatus.VALIDATED,
        classification=Classification.AMBIGUOUS, rho=0.25, flaky=True, found_on=trial.id,
        discard_reason="", attempts=3, created_at="2026-01-02T03:04:05+00:00", grounding=Grounding.UNPLACED,
        meets=["c-1"], breaks=["c-2"], slow_only=True,
    )
    s.put_witness(witness)
    assert s.get_witness("w-back") == witness

    result = WitnessResult("w-back", trial.id, Outcome.FAIL, runs=["fail", "error"], log="boom", execution_key="k")
    s.put_witness_result(result)
    assert s.witness_results("w-back") == {trial.id: result}

    evidence = [
        Evidence("mini", trial.id, EvidenceKind.GHOST_BRANCH, "never run", file="a.py", line=3, detector="coverage",
                 mentioned_in_prompt=False),
        Evidence("mini", trial.id, EvidenceKind.SLOW, "10x slower", detector="timing"),
    ]
    s.replace_evidence("mini", trial.id, evidence)
    assert [dataclasses.replace(e, id=None) for e in s.list_evidence("mini", trial.id)] == evidence

    requirement = Requirement("mini", task.id, "r-back", "chunk rejects 0", RequirementKind.IMPLICIT,
                              covered_by_t0=False, trial_id=trial.id, implemented=None)
    s.put_requirements([requirement])
    assert [r for r in s.list_requirements("mini", task.id) if r.id == "r-back"] == [requirement]

    ruling = Ruling(run_id="mini", target="witness", target_id="w-back", value="ambiguous", before="implicit",
                    reason="P is silent", author="ana", created_at="2026-01-02T03:04:05+00:00")
    s.add_ruling(ruling)
    assert s.list_rulings("mini", "witness", "w-back") == [ruling]

    verdict = VerdictRecord("mini", trial.id, Verdict.REFUTED, VerdictSource.ANALYST, rule="P is silent",
                            ruling_id=ruling.id, witnesses=["w-back"])
    s.set_verdicts([verdict])
    assert dataclasses.replace(s.get_verdict("mini", trial.id), updated_at="") == verdict
    row = next(r for r in s.list_trials("mini") if r.id == trial.id)  # the trial table reads the same verdict
    assert (row.verdict, row.verdict_source, row.ruling_id, row.reviewed) == ("refuted", "analyst", ruling.id, False)

    audit = s.start_audit("mini", "full", "offline", 7, 2, "local")  # schema 4: who runs it, how far it got
    s.audit_progress(audit, 3, 8, "witnesses")
    (kept,) = s.list_audits("mini")
    assert (kept["pid"] > 0, bool(kept["host"]), kept["done"], kept["total"], kept["phase"], bool(kept["heartbeat"])) \
        == (True, True, 3, 8, "witnesses", True)

    call = LLMCall("mini", trial.id, task.id, "gpt", "witness", 10, 20, 0.5, 1.5, "ok", transcript="hi",
                   created_at="2026-01-02T03:04:05+00:00")
    s.add_llm_call(call)
    assert s.list_llm_calls("mini", trial.id) == [call]


def test_rulings_are_append_only(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.db")
    import_path(s, MINI)
    rid = s.add_ruling(Ruling(run_id="mini", target="trial", target_id="chunk-t1", value="sound",
                              before="unaudited", reason="read it", author="ana"))
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        with s.db.atomic():
            s.db.execute("UPDATE rulings SET value = 'refuted' WHERE id = ?", (rid,))
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        with s.db.atomic():
            s.db.execute("DELETE FROM rulings")
    (r,) = s.list_rulings("mini")
    assert (r.value, r.before, r.author) == ("sound", "unaudited", "ana") and r.created_at


def test_trials_list_by_verdict_with_paging_and_search(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.db")
    import_path(s, MINI)
    assert [r.id for r in s.list_trials("mini", verdict=str(Verdict.NOT_PASSING))] == ["chunk-t4"]
    assert [r.id for r in s.list_trials("mini", limit=2, offset=1)] == ["chunk-t2", "chunk-t3"]
    assert [r.id for r in s.list_trials("mini", search="model-c")] == ["chunk-t3"]
    assert [r.id for r in s.list_trials("mini", sort="id")][0] == "chunk-t1"
    assert s.count_trials("mini") == 4
    assert s.count_trials("mini", verdict="unaudited", sort="model") == 3
    assert s.count_trials("mini", search="model-c") == 1


def test_trials_list_by_a_set_of_verdicts_pages_and_counts_in_sql(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.db")
    import_path(s, MINI)
    s.set_verdicts([VerdictRecord("mini", "chunk-t1", Verdict.REFUTED),
                    VerdictRecord("mini", "chunk-t3", Verdict.REWARD_HACK)])
    refuting = {"refuted", "reward_hack"}
    assert [r.id for r in s.list_trials("mini", verdicts=refuting)] == ["chunk-t1", "chunk-t3"]
    assert s.count_trials("mini", verdicts=refuting) == 2
    assert [r.id for r in s.list_trials("mini", verdicts=refuting, limit=1, offset=1)] == ["chunk-t3"]
    assert [r.id for r in s.list_trials("mini", verdicts=refuting, search="model-c")] == ["chunk-t3"]
    assert s.count_trials("mini", verdicts=("reward_hack", "not_passing")) == 2
    assert s.count_trials("mini", verdicts=()) == 0  # an empty set selects nothing


def test_lists_the_console_shows_use_indexes(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.db")
    plan = " ".join(
        str(row)
        for row in s.db.execute(
            "EXPLAIN QUERY PLAN SELECT trial_id FROM verdicts WHERE run_id = 'r' AND verdict = 'refuted' "
            "ORDER BY trial_id LIMIT 50"
        ).fetchall()
    )
    assert "verdicts_by_verdict" in plan
    plan = " ".join(str(row) for row in s.db.execute(
        "EXPLAIN QUERY PLAN SELECT * FROM witnesses WHERE run_id = 'r' AND task_id = 't' ORDER BY task_id, seq"
    ).fetchall())
    assert "witnesses_task" in plan


def test_executions_are_cached_by_key(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.db")
    assert s.get_execution("abc") is None and not s.has_execution("abc")
    s.put_execution("abc", None, "label", {"command": "x"}, {"status": "ok", "duration": 1.5})
    s.put_execution("abc", None, "label", {"command": "x"}, {"status": "error", "duration": 9})
    assert s.get_execution("abc") == {"status": "ok", "duration": 1.5}  # first result wins
    assert s.has_execution("abc") and not s.has_execution("abd")


def test_unknown_runs_and_trials_are_named_in_the_error(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.db")
    import_path(s, MINI)
    with pytest.raises(NotFound, match="no run 'nope'.*runs: mini"):
        s.get_run("nope")
    with pytest.raises(NotFound, match="no trial 'zzz'"):
        s.find_trial("zzz")


def test_snapshots_are_shared_and_read_only(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.db")
    import_path(s, MINI)
    task = s.get_task("mini", "chunk")
    snap = Path(task.snapshot)
    assert snap.is_dir() and snap.parent.name == "snapshots"
    some_file = next(p for p in snap.rglob("*.py"))
    assert not (some_file.stat().st_mode & 0o222)


def test_a_trials_audit_report_reaches_the_exported_report(tmp_path: Path) -> None:
    from testjack_tui.report import build_report, render_markdown

    s = Store(tmp_path / "s.db")
    import_path(s, MINI)
    s.mark_step("mini", "report:chunk-t2", "chunk([], 3) gives [[]]: the stated empty case is missed")
    s.mark_step("mini", "reporter", "not a report")
    assert s.steps_with_prefix("mini", "report:") == {
        "chunk-t2": "chunk([], 3) gives [[]]: the stated empty case is missed"
    }
    report = build_report(s, "mini")
    by_id = {t["id"]: t["audit_report"] for t in report["trials"]}
    assert by_id["chunk-t2"].startswith("chunk([], 3) gives [[]]") and by_id["chunk-t1"] == ""
    override_verdict(s, "chunk-t2", "refuted", "read it")
    assert "the stated empty case is missed" in render_markdown(build_report(s, "mini"))
