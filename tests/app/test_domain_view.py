"""The input domain in the console: the constraints on the Prompt tab, each witness's grounding,
ruling a constraint wrong (and undoing it), not_reproduced verdicts and slow findings.

The store is conftest's demo store, with an input domain set on task ``chunk``: a stated
constraint (``items`` is non-empty) and an observed one (``items`` is a list of ints). The
witnesses are rewritten to call ``chunk`` with literal arguments so the domain can place them:
``w-iterable`` passes a tuple, so the observed constraint puts it outside the domain, and c1
(refuted by that witness alone in the plain demo store) is sound until the constraint is ruled
wrong.
"""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Static

from testjack_tui.store import Store
from testjack_tui.app.app import TestJackApp
from testjack_tui.app.screens.rulings import RulingsScreen
from testjack_tui.audit.verdicts import recompute_run
from testjack_tui.model import Constraint, Evidence, EvidenceKind, Grounding

from .helpers import cell, open_trial, settle, text_of

SIGNATURE = ["items", "size"]
STATED_SENTENCE = ("Add `listkit.chunk.chunk(items, size)` that splits `items` into consecutive pieces of `size` "
                   "elements.")
OBSERVED = "P's examples and T0's inputs"

DOMAIN = [
    Constraint(id="c-nonempty", kind="non_empty", text="items is non-empty", source=STATED_SENTENCE,
               params=["items"], stated=True,
               check={"op": "min_len", "param": "items", "n": 1, "function": "chunk", "signature": SIGNATURE}),
    Constraint(id="c-list", kind="type", text="items takes list[int] values", source=OBSERVED,
               params=["items"], stated=False,
               check={"op": "shape", "param": "items", "shapes": {"kinds": ["list"], "list": {"kinds": ["int"]}},
                      "function": "chunk", "signature": SIGNATURE}),
]

CALLS = {  # the literal call each witness makes
    "w-explicit": "chunk([1, 2, 3], 0)",
    "w-iterable": "chunk((0, 1, 2, 3, 4), 2)",
    "w-shorter": "chunk([0, 1, 2, 3, 4], 2)",
}


@pytest.fixture
def domain_store(demo_store):
    store = Store(demo_store)
    for wid, call in CALLS.items():
        w = store.get_witness(wid)
        w.code = f"from listkit.chunk import chunk\n\n\ndef test_{wid.replace('-', '_')}():\n    {call}\n"
        store.put_witness(w)
    store.set_task_domain("demo", "chunk", DOMAIN)
    recompute_run(store, "demo")
    assert store.get_witness("w-iterable").grounding == Grounding.OUTSIDE_DOMAIN
    assert store.get_verdict("demo", "c1").verdict == "sound"
    store.close()
    return demo_store


async def test_the_domain_is_shown_beside_the_checklist(domain_store):
    app = TestJackApp(domain_store, run_id="demo")
    async with app.run_test(size=(160, 45)) as pilot:
        trial = await open_trial(pilot, "c1")
        domain = trial.query_one("#domain", DataTable)
        assert domain.row_count == 2
        assert [cell(domain, i, "constraint") for i in range(2)] == ["items is non-empty", "items takes list[int] values"]
        assert [cell(domain, i, "kind") for i in range(2)] == ["non_empty", "type"]
        assert [cell(domain, i, "from") for i in range(2)] == ["stated", "observed"]
        assert cell(domain, 1, "source") == OBSERVED
        assert cell(domain, 1, "broken by") == "w-iterable"
        assert [cell(domain, i, "ruling") for i in range(2)] == ["in force", "in force"]
        assert "1 stated, 1 observed" in text_of(trial.query_one("#domain-title", Static))
        # the highlighted constraint's detail quotes P's sentence in full
        detail = text_of(trial.query_one("#constraint-detail", Static))
        assert "stated in P" in detail and STATED_SENTENCE in detail
        domain.focus()
        await pilot.press("down")
        detail = text_of(trial.query_one("#constraint-detail", Static))
        assert f"observed in {OBSERVED}" in detail
        assert "broken by w-iterable" in detail


async def test_a_task_without_a_domain_says_so(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 45)) as pilot:
        trial = await open_trial(pilot, "c1")
        assert trial.query_one("#domain", DataTable).row_count == 0
        assert "No input domain" in text_of(trial.query_one("#constraint-detail", Static))
        await pilot.press("C")  # nothing to rule: a warning, no form
        await pilot.pause()
        assert app.screen is trial


async def test_a_witness_outside_the_domain_says_it_refutes_nothing(domain_store):
    app = TestJackApp(domain_store, run_id="demo")
    async with app.run_test(size=(160, 45)) as pilot:
        trial = await open_trial(pilot, "c1")
        await pilot.press("4")
        witnesses = trial.query_one("#witnesses", DataTable)
        rows = {cell(witnesses, i, "witness"): i for i in range(witnesses.row_count)}
        # the matrix's column says it in a word; the detail and the legend say it refutes nothing
        assert cell(witnesses, rows["w-iterable"], "domain") == "outside"
        assert cell(witnesses, rows["w-shorter"], "domain") == "in"
        witnesses.focus()
        witnesses.move_cursor(row=rows["w-iterable"])
        await pilot.pause()
        assert trial.witness_id == "w-iterable"
        head = text_of(trial.query_one("#witness-head", Static))
        assert "outside the input domain" in head
        assert "breaks “items takes list[int] values”" in head
        assert "It refutes nothing." in head
        assert "refutes this trial" not in head  # it fails on c1, yet c1 is not refuted
        witnesses.move_cursor(row=rows["w-shorter"])
        await pilot.pause()
        head = text_of(trial.query_one("#witness-head", Static))
        assert "in the input domain: meets “items is non-empty”; “items takes list[int] values”" in head


async def test_ruling_a_constraint_wrong_changes_the_verdict_and_undo_restores_it(domain_store):
    app = TestJackApp(domain_store, run_id="demo")
    async with app.run_test(size=(160, 45)) as pilot:
        trial = await open_trial(pilot, "c1")
        assert "sound" in text_of(trial.query_one("#trial-head", Static))
        titles = {c.title for c in app.get_system_commands(trial)}
        assert "Rule constraint wrong" in titles  # in the palette as well as on C
        domain = trial.query_one("#domain", DataTable)
        domain.focus()
        await pilot.press("down")
        assert trial.constraint_id == "c-list"
        await pilot.press("C")
        await pilot.pause()
        await pilot.press(*"P accepts any iterable", "enter")
        await settle(pilot)
        store = Store(domain_store)
        assert store.get_verdict("demo", "c1").verdict == "refuted"
        assert store.get_witness("w-iterable").grounding == Grounding.IN_DOMAIN
        (ruling,) = store.effective_rulings("demo", "constraint").values()
        assert (ruling.target_id, ruling.value, ruling.reason, ruling.author) == (
            "c-list", "wrong", "P accepts any iterable", "tester")
        # the trial screen re-read the store: the constraint is marked, the verdict changed
        assert app.screen is trial
        assert cell(domain, 1, "ruling") == f"ruled wrong #{ruling.id}"
        assert cell(domain, 1, "broken by") == "none"
        assert "refuted" in text_of(trial.query_one("#trial-head", Static))
        assert "P accepts any iterable" in text_of(trial.query_one("#constraint-detail", Static))
        await pilot.press("C")  # already ruled: no second ruling
        await pilot.pause()
        assert app.screen is trial and len(store.list_rulings("demo")) == 1
        # undo through the rulings history, as any other ruling
        await pilot.press("ctrl+r")
        await settle(pilot)
        rulings = app.screen
        assert isinstance(rulings, RulingsScreen)
        queue = rulings.query_one("#queue", DataTable)
        row = [cell(queue, i, "witness") for i in range(queue.row_count)].index("w-iterable")
        assert cell(queue, row, "would refute") == "1: c1"
        history = rulings.query_one("#history", DataTable)
        assert cell(history, 0, "on") == "constraint c-list “items takes list[int] values”"
        history.focus()
        await pilot.press("u")
        await pilot.pause()
        await pilot.press(*"the prompt does say list", "enter")
        await settle(pilot)
        assert store.get_verdict("demo", "c1").verdict == "sound"
        assert store.effective_rulings("demo", "constraint") == {}
        assert cell(queue, row, "would refute") == "none (outside the domain)"
        await pilot.press("escape")
        await settle(pilot)
        assert cell(domain, 1, "ruling") == "in force"
        assert "sound" in text_of(trial.query_one("#trial-head", Static))


async def test_not_reproduced_and_unaudited_verdicts_say_why(demo_store):
    store = Store(demo_store)
    store.set_trial_recomputed("demo", "s2", "failed", "AssertionError in test_slug")
    recompute_run(store, "demo")
    assert store.get_verdict("demo", "s2").verdict == "not_reproduced"
    store.close()
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        trials = app.screen
        row = next(i for i, r in enumerate(trials.rows) if r.id == "s2")
        assert cell(trials.query_one("#trials", DataTable), row, "verdict") == "not reproduced"
        assert "1 not reproduced" in text_of(trials.query_one("#run-summary", Static))
        trial = await open_trial(pilot, "s2")
        head = text_of(trial.query_one("#trial-head", Static))
        assert "not reproduced (auto): the benchmark says passed, but T0 recomputed here ended failed" in head
        await pilot.press("5")
        detail = text_of(trial.query_one("#verdict-detail", Static))
        assert "why not reproduced: the benchmark says passed" in detail
        assert "AssertionError in test_slug" in detail
        colour = app.get_css_variables()["verdict-not_reproduced"]
        assert colour and colour != app.get_css_variables()["verdict-unaudited"]


async def test_slow_findings_show_in_the_evidence(demo_store):
    store = Store(demo_store)
    detail = "chunk([1, 2, 3], 1): the reference answers in 0.001 s; the trial gives the reference's answer in 2.500 s"
    store.replace_evidence("demo", "c1", [Evidence("demo", "c1", EvidenceKind.SLOW, detail, detector="probe")])
    store.close()
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 45)) as pilot:
        trial = await open_trial(pilot, "c1")
        await pilot.press("3")
        evidence = trial.query_one("#evidence", DataTable)
        assert evidence.row_count == 1
        assert cell(evidence, 0, "kind") == "slow"
        shown = text_of(trial.query_one("#evidence-detail", Static))
        assert "slow finding (probe)" in shown and "never a refutation" in shown
        assert "2.500 s" in shown
        evidence.focus()
        await pilot.press("enter")  # no line to jump to: the tab stays
        assert trial.query_one("#trial-tabs").active == "tab-evidence"
        assert Store(demo_store).get_verdict("demo", "c1").verdict == "refuted"  # slow never refutes, nor clears


UNREAD_SENTENCE = "The pieces of `items` never outnumber the value of `size` plus two."


async def test_an_unread_sentence_is_shown_and_places_what_goes_beyond_the_inputs(demo_store):
    from testjack_tui.domain.observed import envelope

    store = Store(demo_store)
    for wid, call in CALLS.items():
        w = store.get_witness(wid)
        w.code = f"from listkit.chunk import chunk\n\n\ndef test_{wid.replace('-', '_')}():\n    {call}\n"
        store.put_witness(w)
    unread = Constraint(id="c-unread", kind="unread", text=UNREAD_SENTENCE, source=UNREAD_SENTENCE,
                        params=["items", "size"], stated=True,
                        check={"op": "unread", "kind": "unread", "function": "chunk", "signature": SIGNATURE,
                               "envelopes": {"items": envelope([[1, 2, 3], [0, 1]]), "size": envelope([0, 2])}})
    store.set_task_domain("demo", "chunk", [DOMAIN[0], unread])
    recompute_run(store, "demo")
    assert store.get_witness("w-shorter").grounding == Grounding.UNPLACED  # five items: longer than any seen
    assert store.get_witness("w-explicit").grounding == Grounding.IN_DOMAIN
    store.close()
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 45)) as pilot:
        trial = await open_trial(pilot, "c1")
        domain = trial.query_one("#domain", DataTable)
        assert [cell(domain, i, "from") for i in range(2)] == ["stated", "unread"]
        assert cell(domain, 1, "constraint") == UNREAD_SENTENCE
        assert "1 stated, 0 observed, 1 unread" in text_of(trial.query_one("#domain-title", Static))
        domain.focus()
        await pilot.press("down")
        detail = text_of(trial.query_one("#constraint-detail", Static))
        assert detail.startswith("unread") and "did not understand this sentence of P" in detail
