"""Batched witness runs (issue 16): the witnesses of one world share an execution.

Judged on real worlds of the mini sample: what an audit spends (the executions its summary
counts), and that a batch changes no outcome, not even when one of its witnesses hangs or kills
the test process.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from testjack_tui.store import Store
from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.audit.validation import _batches
from testjack_tui.authors.base import Candidate
from testjack_tui.formats.importing import import_path
from testjack_tui.model import RequirementKind, Witness

from tests.audit.scripted import EMPTY, REMAINDER, ScriptedAuthor

MINI = Path(__file__).resolve().parents[2] / "sample_runs" / "mini"
PASSING = ("chunk-t1", "chunk-t2", "chunk-t3")

# chunk-t2 is the trial whose chunk() has ``max(len(items), 1)``, chunk-t3 the one that hard-codes
# the example's answer; both witnesses pass on the reference and on chunk-t1.
HANGS_ON_T2 = Candidate(
    requirement="(hangs on chunk-t2)", kind=RequirementKind.EXPLICIT,
    code=("import time\n\n\ndef test_hangs_on_one_trial():\n"
          "    if 'max(len(items), 1)' in open('listkit/chunk.py').read():\n"
          "        time.sleep(600)\n"),
)
ODD_LENGTH = Candidate(
    requirement="An odd length ends in a short piece", kind=RequirementKind.EXPLICIT,
    code="from listkit import chunk\n\n\ndef test_odd_length():\n    assert chunk([1, 2, 3], 2) == [[1, 2], [3]]\n",
)
KILLS_ON_T3 = Candidate(
    requirement="(kills the test process on chunk-t3)", kind=RequirementKind.EXPLICIT,
    code=("import os\n\n\ndef test_kills_the_process_on_one_trial():\n"
          "    if '[[1, 2], [3, 4], [5]]' in open('listkit/chunk.py').read():\n"
          "        os._exit(3)\n"),
)


def mini_with_timeout(dest: Path, timeout: int) -> Path:
    shutil.copytree(MINI, dest)
    toml = dest / "tasks" / "chunk" / "task.toml"
    toml.write_text(re.sub(r"(?m)^timeout = \d+$", f"timeout = {timeout}", toml.read_text()))
    return dest


def audited(db: Path, source: Path, author: ScriptedAuthor, batch: bool = True) -> tuple[Store, int]:
    store = Store(db)
    import_path(store, source)
    engine = Audit(store, "mini", AuditOptions(workers=2, evidence=False, batch=batch), author=author)
    assert engine.execute() == "done"
    return store, engine.service.executed


def results(store: Store) -> dict[str, dict[str, tuple[str, list[str]]]]:
    """Witness requirement -> world -> (outcome, outcome of each run)."""
    return {
        w.requirement: {world: (str(r.outcome), list(r.runs)) for world, r in store.witness_results(w.id).items()}
        for w in store.list_witnesses("mini", status="validated")
    }


def verdicts(store: Store) -> dict[str, tuple[str, list[str]]]:
    return {k: (str(v.verdict), sorted(v.witnesses)) for k, v in store.list_verdicts("mini").items()}


def test_one_execution_per_world_and_run_whatever_the_number_of_witnesses(tmp_path: Path) -> None:
    batched, spent = audited(tmp_path / "b.db", MINI, ScriptedAuthor(analysis=[EMPTY, REMAINDER]))
    alone, spent_alone = audited(tmp_path / "a.db", MINI, ScriptedAuthor(analysis=[EMPTY, REMAINDER]), batch=False)
    t0 = 1 + 3 + 4  # null, reference x 3, every trial's world
    # both witnesses in each execution: 3 on the reference, 1 on the null world, 2 per passing trial
    assert spent == t0 + 3 + 1 + 2 * len(PASSING)
    assert spent_alone == t0 + 2 * (3 + 1 + 2 * len(PASSING))
    assert batched.summary("mini").executions == spent
    # and nothing else changes: the same witnesses, outcomes, runs and verdicts
    assert results(batched) == results(alone)
    assert verdicts(batched) == verdicts(alone)
    assert verdicts(batched)["chunk-t2"][0] == "refuted" and verdicts(batched)["chunk-t1"][0] == "sound"


def test_a_witness_that_hangs_or_kills_its_batch_takes_no_other_outcome_with_it(tmp_path: Path) -> None:
    source = mini_with_timeout(tmp_path / "mini", timeout=8)
    plain, _ = audited(tmp_path / "plain.db", source, ScriptedAuthor(analysis=[EMPTY, REMAINDER]))
    hostile, _ = audited(tmp_path / "hostile.db", source,
                         ScriptedAuthor(analysis=[EMPTY, HANGS_ON_T2, REMAINDER, KILLS_ON_T3]))
    got, want = results(hostile), results(plain)
    for requirement in (EMPTY.requirement, REMAINDER.requirement):
        assert got[requirement] == want[requirement], requirement
    assert want[EMPTY.requirement]["chunk-t2"][0] == "fail"  # the outcome the hang must not hide
    assert want[REMAINDER.requirement]["chunk-t3"][0] == "fail"  # and the one the crash must not
    hang, kill = got[HANGS_ON_T2.requirement], got[KILLS_ON_T3.requirement]
    assert hang["chunk-t2"][0] == "error" and hang["chunk-t1"][0] == hang["reference"][0] == "pass"
    assert kill["chunk-t3"][0] in ("missing", "error") and kill["chunk-t1"][0] == "pass"
    hang_log = next(w for w in hostile.list_witnesses("mini") if w.requirement == HANGS_ON_T2.requirement)
    assert "killed after 8s" in hostile.witness_results(hang_log.id)["chunk-t2"].log
    assert verdicts(hostile)["chunk-t1"] == verdicts(plain)["chunk-t1"]


def test_files_of_the_same_name_never_share_a_world() -> None:
    def w(wid: str, path: str) -> Witness:
        return Witness(id=wid, run_id="r", task_id="t", requirement="", requirement_kind=RequirementKind.EXPLICIT,
                       origin="audit", author="analyst", code="", path=path)

    groups = _batches([w("a", "tests/test_x.py"), w("b", "tests/test_x.py"), w("c", "test_x.py"), w("d", "tests/test_y.py")])
    assert [[x.id for x in g] for g in groups] == [["a", "d"], ["b"], ["c"]]


def test_a_batch_log_shows_each_witness_its_own_failure(tmp_path: Path) -> None:
    store, _ = audited(tmp_path / "s.db", MINI, ScriptedAuthor(analysis=[REMAINDER, ODD_LENGTH]))
    by_req = {w.requirement: w for w in store.list_witnesses("mini")}  # one is set aside as a twin
    # chunk-t3 fails both, in one execution
    logs = {req: store.witness_results(by_req[req].id)["chunk-t3"].log for req in (REMAINDER.requirement,
                                                                                  ODD_LENGTH.requirement)}
    assert "test_short_last_piece" in logs[REMAINDER.requirement]
    assert "test_odd_length" not in logs[REMAINDER.requirement]
    assert "test_odd_length" in logs[ODD_LENGTH.requirement]
    assert "test_short_last_piece" not in logs[ODD_LENGTH.requirement]
