"""A full ``--author llm`` audit of sample_runs/toolbox in every dialect of the scripted server
(``scripted_server.DIALECTS``): real HTTP, the real ``openai`` client, real worlds.

The scripted model is a good one: its task analyses write the witnesses a careful reader of P
would (the calls sample_runs/README.md lists, which P's examples and rules give), and it finds the
trials sound on audit. Every dialect must end with exactly the answer key's nine trials refuted,
every call recorded. One more witness, ``sep="+"``, is correct by P but breaks a constraint
observed only in P's examples (``sep`` made of ``_``): it needs a ruling naming that constraint
instead of being set aside (issue 39, item 6).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from scripted_server import DIALECTS, ScriptedServer, tool_call

from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.audit.metrics import REFUTING
from testjack_tui.audit.needs_ruling import undecided
from testjack_tui.formats.importing import import_path
from testjack_tui.store import Store

pytestmark = pytest.mark.slow

TOOLBOX = Path(__file__).resolve().parents[2] / "sample_runs" / "toolbox"
ANSWER_KEY = {"slug-t3", "slug-t4", "slug-t5", "duration-t5", "duration-t6", "pages-t3", "pages-t4", "pages-t5",
              "pages-t6"}  # sample_runs/README.md
PLUS = "from textkit import slugify\n\n\ndef test_plus_sep():\n    assert slugify('Tips & Tricks', sep='+') == 'tips+tricks'\n"


def _test(module: str, name: str, call: str, expected: str) -> str:
    return f"from {module} import {call.split('(')[0]}\n\n\ndef test_{name}():\n    assert {call} == {expected}\n"


WITNESSES = {  # what a good model writes per task: (requirement, test file)
    "slugify": [
        ("accented letters are folded to ASCII",
         _test("textkit", "accents", "slugify('Crème brûlée: a recipe')", "'creme-brulee-a-recipe'")),
        ("words are joined with sep", _test("textkit", "sep", "slugify('Tips & Tricks', sep='_')", "'tips_tricks'")),
        ("words are joined with any sep", PLUS),
    ],
    "parse_duration": [
        ("a string of digits alone is a number of seconds", _test("timeparse", "bare", "parse_duration('90')", "90")),
        ("parts are added up", _test("timeparse", "days", "parse_duration('1d 2h')", "93600")),
    ],
    "parse_pages": [
        ("an open range -B runs from page 1", _test("printq", "open", "parse_pages('-3', 10)", "[1, 2, 3]")),
        ("sorted without repeats", _test("printq", "sorted", "parse_pages('4, 2, 2', 10)", "[2, 4]")),
        ("ranges include both ends", _test("printq", "ends", "parse_pages('1-3,5', 10)", "[1, 2, 3, 5]")),
        ("format_pages gives the shortest selection",
         _test("printq", "format", "format_pages([5, 1, 2, 3, 3])", "'1-3,5'")),
    ],
}


def good_model(body: dict) -> dict:
    """One turn of a careful model, by the step it is asked for and how far that step has got."""
    messages = body["messages"]
    step, task = messages[2]["content"], messages[1]["content"]
    turn = sum(1 for m in messages if m["role"] == "assistant")
    if step.startswith("Step: requirements checklist"):
        return tool_call("submit_checklist", {"items": [{"text": "what P's rules say", "kind": "explicit"}]})
    if step.startswith("Step: task analysis"):
        mine = next((w for name, w in WITNESSES.items() if f"{name}(" in task), [])
        if turn < len(mine):
            requirement, code = mine[turn]
            return tool_call("propose_witness", {"requirement": requirement, "kind": "explicit", "code": code})
        return tool_call("finish", {"report": "the witnesses above"})
    if step.startswith("Step: audit"):
        return tool_call("finish", {"report": "The trial follows P as far as I can see."})
    if step.startswith("Step: re-judgment"):
        return tool_call("judge", {"decision": "uphold", "reason": "P states it"})
    if step.startswith("Step: refinement"):
        return tool_call("finish", {"report": "the witness is right as it is"})
    raise AssertionError(f"unexpected step: {step[:80]}")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """One store for every dialect, so that its execution cache runs each world once: the dialects
    differ in what crosses HTTP, not in what runs."""
    s = Store(tmp_path_factory.mktemp("dialects") / "t.db")
    yield s
    s.close()


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_a_full_audit_refutes_the_answer_key_in_every_dialect(dialect, store):
    run_id = import_path(store, TOOLBOX, name=f"toolbox-{dialect}").run_id
    with ScriptedServer() as server:
        server.dialect = dialect
        server.default = good_model
        options = dict(base_url=server.base_url, api_key="k", model="scripted", backoff_s=0.0,
                       stream=dialect == "ollama-stream")
        audit = Audit(store, run_id, AuditOptions(author="llm", workers=2, seed=0, mutation_budget_s=0.0,
                                                  author_options=options))
        assert audit.execute() == "done"
        # the audit keeps the endpoint it was started with (a resumed one uses the same), never the key
        assert store.list_audits(run_id)[-1]["endpoint"] == {"model": "scripted", "base_url": server.base_url}
        refuted = {t for t, v in store.list_verdicts(run_id).items() if v.verdict in REFUTING}
        assert refuted == ANSWER_KEY
        calls = store.list_llm_calls(run_id)
        assert all(c.prompt_tokens > 0 and c.completion_tokens > 0 for c in calls if c.outcome == "ok")
        assert {c.outcome for c in calls} <= {"ok", "http 400"}
        assert len(calls) == len(server.requests)
        plus = [u for u in undecided(store, run_id) if u.witness.code == PLUS]
        assert [u.would_refute for u in plus] == [["slug-t4"]]
        assert "breaks only constraints observed in P's examples" in plus[0].because
        assert "made of '_'" in plus[0].because
