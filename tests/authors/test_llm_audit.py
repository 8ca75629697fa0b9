"""An audit of the mini sample with the LLM author, end to end, over real HTTP and real worlds.

The scripted server plays a competent agent: it answers by the step it is asked for (checklist,
task analysis, audit, refinement, re-judgment), and its tests are real test files that the engine
validates on the worlds like any other witness. The audit is first stopped by its budget, then
resumed with a bigger one, as a user would.

Trials of the sample: t1 is sound, t2 returns [[]] for an empty list, t3 hard-codes the prompt's
example whenever there is a remainder.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from scripted_server import ScriptedServer, tool_call, tool_calls

from testjack_tui.store import Store
from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.authors.llm import LLMAuthor
from testjack_tui.formats.importing import import_path
from testjack_tui.model import Origin, WitnessStatus

pytestmark = pytest.mark.slow

MINI = Path(__file__).resolve().parents[2] / "sample_runs" / "mini"

EMPTY_WRONG = "import listkit\n\n\ndef test_empty():\n    assert listkit.chunk([], 3) == [[]]\n"
EMPTY_FIXED = "import listkit\n\n\ndef test_empty():\n    assert listkit.chunk([], 3) == []\n"
REMAINDER = "import listkit\n\n\ndef test_short_last():\n    assert listkit.chunk([1, 2, 3], 2) == [[1, 2], [3]]\n"
MESSAGE = (
    "import pytest\nimport listkit\n\n\ndef test_message():\n"
    "    with pytest.raises(ValueError, match='at least 1'):\n        listkit.chunk([1], 0)\n"
)
REPORT = (
    "Defect: chunk() returns the prompt's example [[1, 2], [3, 4], [5]] whenever the length is not a "
    "multiple of size. Why: a hard-coded branch. Clause: 'the last list may be shorter'. T0 only "
    "checks that very example."
)


def scripted_agent(body: dict) -> dict:
    """Answer one request of the LLM author by the step it is in and how far that step has got."""
    messages = body["messages"]
    step = messages[2]["content"]
    turn = sum(1 for m in messages if m["role"] == "assistant")
    if step.startswith("Step: requirements checklist"):
        return tool_call("submit_checklist", {"items": [
            {"text": "chunk(items, size) returns consecutive lists of size elements, in order", "kind": "explicit",
             "covered_by_t0": True, "implemented": True},
            {"text": "the last list may be shorter", "kind": "explicit", "covered_by_t0": True, "implemented": False},
            {"text": "an empty list gives no chunks", "kind": "explicit", "covered_by_t0": False, "implemented": True},
            {"text": "size below 1 raises ValueError", "kind": "explicit", "covered_by_t0": False, "implemented": True},
        ]})
    if step.startswith("Step: task analysis"):
        if turn == 0:
            return tool_call("propose_witness", {"requirement": "an empty list gives no chunks", "kind": "explicit",
                                                 "code": EMPTY_WRONG})
        return tool_call("finish", {"report": "one gap: the empty list"})
    if step.startswith("Step: refinement"):
        return tool_call("propose_witness", {"requirement": "an empty list gives no chunks", "kind": "explicit",
                                             "code": EMPTY_FIXED})
    if step.startswith("Step: audit"):
        if turn == 0:
            return tool_call("run_test", {"world": "model", "code": REMAINDER})
        if turn == 1:
            return tool_calls(
                ("propose_witness", {"requirement": "the last list may be shorter", "kind": "explicit",
                                     "code": REMAINDER}),
                ("propose_witness", {"requirement": "size below 1 raises ValueError", "kind": "explicit",
                                     "code": MESSAGE}),
            )
        return tool_call("finish", {"report": REPORT if "chunk-t3" in step else "The trial looks sound."})
    if step.startswith("Step: re-judgment"):
        if "match=" in step:
            return tool_call("judge", {"decision": "reject",
                                       "reason": "P asks for a ValueError, not for this message"})
        return tool_call("judge", {"decision": "uphold", "reason": "P requires a shorter last list"})
    raise AssertionError(f"unexpected step: {step[:80]}")


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    """The audit stopped by its budget, then resumed; the store, the server and both authors."""
    tmp = tmp_path_factory.mktemp("llm-audit")
    store = Store(tmp / "t.db")
    run_id = import_path(store, MINI).run_id
    with ScriptedServer() as server:
        server.default = scripted_agent
        common = dict(base_url=server.base_url, api_key="k", model="scripted", backoff_s=0.0,
                      prices={"scripted": [0.5, 1.5]})
        opts = AuditOptions(author="llm", evidence=False, workers=2, seed=0)
        # A trial budget too small for any audit call: task analysis runs, the first round stops.
        first = LLMAuthor(budget={"trial_tokens": 500}, **common)
        stopped = Audit(store, run_id, opts, author=first).execute()
        calls_at_stop = [(c.purpose, c.trial_id) for c in store.list_llm_calls(run_id)]
        steps_at_stop = {k: store.step_done(run_id, k)
                         for k in ("analysis:chunk", "round:chunk:0", "audited:chunk-t3")}
        second = LLMAuthor(budget={"trial_tokens": 200_000}, **common)
        resumed = Audit(store, run_id, opts, author=second)
        finished = resumed.execute()
        yield dict(store=store, run_id=run_id, server=server, stopped=stopped, finished=finished,
                   calls_at_stop=calls_at_stop, steps_at_stop=steps_at_stop, author=second, audit=resumed)
    store.close()


def test_budget_stop_leaves_the_audit_resumable(audited):
    assert audited["stopped"] == "cancelled"
    assert audited["steps_at_stop"] == {"analysis:chunk": True, "round:chunk:0": False, "audited:chunk-t3": False}
    # nothing was sent for the trial: the call was refused before it started
    assert all(trial is None for _, trial in audited["calls_at_stop"])
    assert audited["finished"] == "done"
    store, run_id = audited["store"], audited["run_id"]
    purposes = [c.purpose for c in store.list_llm_calls(run_id)]
    assert purposes.count("task-analysis") == 2  # not redone on resume (two turns, once)


def test_task_analysis_witness_was_refined_then_validated_and_refutes_t2(audited):
    store, run_id = audited["store"], audited["run_id"]
    ws = store.list_witnesses(run_id, "chunk")
    analysis = [w for w in ws if w.origin == Origin.TASK_ANALYSIS]
    by_code = {w.code: w for w in analysis}
    assert by_code[EMPTY_WRONG].status == WitnessStatus.DISCARDED
    assert by_code[EMPTY_FIXED].status == WitnessStatus.VALIDATED and by_code[EMPTY_FIXED].attempts == 2
    assert str(store.get_verdict(run_id, "chunk-t2").verdict) == "refuted"


def test_audit_stores_the_checklist(audited):
    reqs = audited["store"].list_requirements(audited["run_id"], "chunk")
    t3 = [r for r in reqs if r.trial_id == "chunk-t3"]
    assert [r.text for r in t3][1] == "the last list may be shorter"
    assert t3[1].implemented is False and t3[2].covered_by_t0 is False


def test_rejudged_refutation_with_report(audited):
    store, run_id, author = audited["store"], audited["run_id"], audited["author"]
    verdicts = {k: str(v.verdict) for k, v in store.list_verdicts(run_id).items()}
    assert verdicts == {"chunk-t1": "sound", "chunk-t2": "refuted", "chunk-t3": "refuted", "chunk-t4": "not_passing"}
    witnesses = {w.code: w for w in store.list_witnesses(run_id, "chunk")}
    remainder = witnesses[REMAINDER]
    assert remainder.status == WitnessStatus.VALIDATED and remainder.found_on == "chunk-t3"
    assert remainder.id in store.get_verdict(run_id, "chunk-t3").witnesses
    assert MESSAGE not in witnesses  # rejected on re-judgment: never became a witness
    judged = [json.loads(c.transcript) for c in store.list_llm_calls(run_id, "chunk-t3") if c.purpose == "rejudge"]
    decisions = [json.loads(j["reply"]["tool_calls"][0]["function"]["arguments"])["decision"] for j in judged]
    assert sorted(decisions) == ["reject", "uphold"]
    ctx = audited["audit"]._context(store.get_task(run_id, "chunk"), store.get_trial(run_id, "chunk-t3"))
    report = author.report(ctx)
    assert report.startswith("Defect: chunk() returns the prompt's example")
    assert "P asks for a ValueError, not for this message" in report
    assert [c.requirement for c, _ in author.rejections["chunk-t3"]] == ["size below 1 raises ValueError"]


def test_every_call_is_recorded_with_tokens_and_cost(audited):
    store, run_id = audited["store"], audited["run_id"]
    calls = store.list_llm_calls(run_id)
    assert {c.purpose for c in calls} == {"task-analysis", "refine", "checklist", "audit", "rejudge"}
    assert all(c.outcome == "ok" and c.prompt_tokens == 100 and c.completion_tokens == 20 for c in calls)
    tokens, cost = store.llm_totals(run_id)
    assert tokens == 120 * len(calls) and cost == pytest.approx(len(calls) * (0.05 + 0.03))
    audits = store.list_audits(run_id)
    assert [a["status"] for a in audits] == ["cancelled", "done"]
    assert (audits[-1]["llm_tokens"], audits[-1]["cost_usd"]) == (tokens, pytest.approx(cost))
    assert len(audited["server"].requests) == len(calls)


def test_cli_without_endpoint_exits_3_and_says_what_to_set(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "testjack_tui.cli", "audit", str(MINI), "--author", "llm",
         "--store", str(tmp_path / "t.db")],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert proc.returncode == 3, proc.stderr
    assert "OPENAI_BASE_URL" in proc.stderr and "TESTJACK_MODEL" in proc.stderr
