"""An author that breaks on one trial leaves that trial unaudited, with the reason, and the audit goes on."""

import json

from testjack_tui.store import Store
from testjack_tui.audit.engine import Audit, AuditOptions
from testjack_tui.authors.base import AuthorFailed
from testjack_tui.authors.offline import OfflineAuthor
from testjack_tui.formats.importing import import_path
from testjack_tui.model import Verdict

PROBLEM = {
    "task_id": "Fail/0", "entry_point": "double",
    "prompt": 'def double(x: int) -> int:\n    """Twice x.\n    >>> double(2)\n    4\n    """\n',
    "canonical_solution": "    return 2 * x\n",
    "test": "def check(candidate):\n    assert candidate(3) == 6\n",
}


class BreaksOnOneTrial(OfflineAuthor):
    """The offline author, except that its session on trial ``broken`` ends in malformed tool calls."""

    def audit_trial(self, ctx):
        if ctx.trial is not None and ctx.trial.id == "broken":
            raise AuthorFailed("the session ended: 4 tool calls with invalid JSON arguments")
        return super().audit_trial(ctx)


class Crashes(OfflineAuthor):
    def audit_trial(self, ctx):
        raise RecursionError("maximum recursion depth exceeded")


def _run(tmp_path, author):
    (tmp_path / "problems.jsonl").write_text(json.dumps(PROBLEM) + "\n")
    samples = [{"id": i, "task_id": "Fail/0", "completion": "    return x + x\n"} for i in ("fine", "broken")]
    (tmp_path / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    store = Store(tmp_path / "t.db")
    run_id = import_path(store, tmp_path).run_id
    audit = Audit(store, run_id, AuditOptions(mode="per-trial", evidence=False), author=author)
    assert audit.execute() == "done"
    return store.list_verdicts(run_id)


def test_a_failed_session_leaves_its_trial_unaudited_with_the_reason(tmp_path):
    verdicts = _run(tmp_path, BreaksOnOneTrial())
    assert verdicts["fine"].verdict == Verdict.SOUND
    assert verdicts["broken"].verdict == Verdict.UNAUDITED
    assert "invalid JSON arguments" in verdicts["broken"].rule


def test_an_author_crash_is_recorded_and_never_ends_the_audit(tmp_path):
    verdicts = _run(tmp_path, Crashes())
    assert {v.verdict for v in verdicts.values()} == {Verdict.UNAUDITED}
    assert all("RecursionError" in v.rule for v in verdicts.values())


class AnalysisBreaks(OfflineAuthor):
    def analyse_task(self, ctx):
        raise TypeError("'>' not supported between instances of 'dict' and 'int'")


def test_a_broken_task_analysis_is_named_in_the_report_and_the_audit_goes_on(tmp_path):
    from testjack_tui.report.build import build_report

    (tmp_path / "problems.jsonl").write_text(json.dumps(PROBLEM) + "\n")
    (tmp_path / "samples.jsonl").write_text(json.dumps({"id": "a", "task_id": "Fail/0", "completion": "    return x + x\n"}) + "\n")
    store = Store(tmp_path / "t.db")
    run_id = import_path(store, tmp_path).run_id
    audit = Audit(store, run_id, AuditOptions(mode="lightweight", evidence=False), author=AnalysisBreaks())
    assert audit.execute() == "done"
    task, = build_report(store, run_id)["tasks"]
    assert task["analysis_error"] and "TypeError" in task["analysis_error"]
    # the randomized loop still audits the trial on its own
    assert store.list_verdicts(run_id)["a"].verdict == Verdict.SOUND
