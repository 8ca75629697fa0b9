"""The analyst's queue (issue 35, item 5): the witnesses that need a ruling, first in the rulings
screen with what a ruling would refute and why the evidence could not decide, ruled one by one or
marked and ruled together, and the verdicts following at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from testjack_tui.store import Store
from testjack_tui.app.app import TestJackApp
from testjack_tui.app.screens.rulings import RulingsScreen
from testjack_tui.app.screens.runs import RunsScreen
from testjack_tui.audit.needs_ruling import undecided
from testjack_tui.audit.verdicts import recompute_run
from testjack_tui.model import (
    AuthorKind, Classification, Origin, Outcome, RequirementKind, Witness, WitnessResult, WitnessStatus,
)

from .conftest import STAMP, build_demo_store
from .helpers import cell, settle, text_of

# Two implicit witnesses on task slug, each failed by one of its two passing trials: with two
# trials one decides the majority, so each needs a ruling; s1 (sound) and s2 (unaudited) are
# refuted by nothing else, so each ruling would refute one trial nothing else refutes.
SLUG_WITNESSES = {
    "w-slug-case": ("slug keeps digits", {"null": "fail", "reference": "pass", "s1": "pass", "s2": "fail"},
                    'assert slug("Top 10") == "top-10"'),
    "w-slug-space": ("slug squeezes runs of spaces", {"null": "fail", "reference": "pass", "s1": "fail", "s2": "pass"},
                     'assert slug("a  b") == "a-b"'),
}


@pytest.fixture
def queue_store(tmp_path) -> Path:
    path = tmp_path / "store" / "testjack.db"
    store = build_demo_store(path, tmp_path / "work")
    for wid, (req, results, line) in SLUG_WITNESSES.items():
        code = f'from textkit.slug import slug\n\n\ndef test_{wid.replace("-", "_")}():\n    """{req}"""\n    {line}\n'
        store.put_witness(Witness(
            id=wid, run_id="demo", task_id="slug", requirement=req, requirement_kind=RequirementKind.IMPLICIT,
            origin=Origin.TASK_ANALYSIS, author=AuthorKind.OFFLINE, code=code,
            path=f"tests/test_testjack_{wid.replace('-', '_')}.py", status=WitnessStatus.VALIDATED,
            classification=Classification.IMPLICIT, created_at=STAMP,
        ))
        for world, outcome in results.items():
            store.put_witness_result(WitnessResult(wid, world, Outcome(outcome), [outcome] * 2,
                                                   log=f"{wid} on {world}: {outcome}\n", execution_key=""))
    recompute_run(store, "demo")
    store.close()
    return path


async def open_queue(pilot) -> RulingsScreen:
    await settle(pilot)
    await pilot.press("ctrl+r")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, RulingsScreen)
    return screen


def ids(queue: DataTable) -> list[str]:
    return [cell(queue, i, "witness") for i in range(queue.row_count)]


async def test_witnesses_that_need_a_ruling_head_the_queue_with_what_a_ruling_would_refute(queue_store):
    store = Store(queue_store)
    assert [u.witness.id for u in undecided(store, "demo")] == ["w-slug-case", "w-slug-space", "w-shorter"]
    app = TestJackApp(queue_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert "3 need ruling" in text_of(app.screen.query_one("#run-summary", Static))
        screen = await open_queue(pilot)
        queue = screen.query_one("#queue", DataTable)
        # needs ruling first, most trials a ruling would newly refute first (as the report orders them)
        assert ids(queue) == ["w-slug-case", "w-slug-space", "w-shorter", "w-iterable"]
        assert [cell(queue, i, "class") for i in range(4)] == ["needs ruling"] * 3 + ["implicit"]
        assert cell(queue, 0, "would refute") == "1: s2" and cell(queue, 0, "new") == "1"
        assert cell(queue, 2, "would refute") == "2: c2, c3" and cell(queue, 2, "new") == "0"
        assert cell(queue, 0, "failing") == "1/2" and cell(queue, 0, "ref") == "pass"
        assert cell(queue, 0, "input") == "slug('Top 10')" and cell(queue, 0, "expected") == "'top-10'"
        detail = text_of(screen.query_one("#queue-detail", Static))
        assert "1 of 2 passing trials fails it: one trial would decide" in detail
        assert "ruled necessary it refutes 1, 1 of them refuted by nothing else" in detail
        await pilot.press("down", "down")
        assert "2 of 3 passing trials fail it" in text_of(screen.query_one("#queue-detail", Static))
        # f shows only those that need a ruling, and again the whole queue
        await pilot.press("f")
        assert ids(queue) == ["w-slug-case", "w-slug-space", "w-shorter"]
        assert screen.highlighted_witness() == "w-shorter"
        await pilot.press("f")
        assert queue.row_count == 4


async def test_the_runs_screen_counts_them_beside_ambiguous(queue_store):
    app = TestJackApp(queue_store)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)
        table = app.screen.query_one(DataTable)
        assert cell(table, 0, "ambiguous") == "0" and cell(table, 0, "needs_ruling") == "3"


async def test_ruled_necessary_a_witness_refutes_its_trials_at_once(queue_store):
    app = TestJackApp(queue_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        store = Store(queue_store)
        assert store.get_verdict("demo", "s2").verdict == "unaudited"
        screen = await open_queue(pilot)
        await pilot.press("N")
        await pilot.press(*"digits are part of a slug", "enter")
        await settle(pilot)
        assert store.get_witness("w-slug-case").classification == "implicit"
        assert store.get_verdict("demo", "s2").verdict == "refuted"
        assert store.get_verdict("demo", "s2").source == "analyst"
        # the screen re-read the store: the ruled witness left the head of the queue, ruled
        queue = screen.query_one("#queue", DataTable)
        assert ids(queue)[:2] == ["w-slug-space", "w-shorter"]
        row = ids(queue).index("w-slug-case")
        assert cell(queue, row, "class") == "implicit" and cell(queue, row, "ruling") == "necessary"
        assert "To rule on: 2 of 4" in text_of(screen.query_one("#queue-title", Static))
        assert cell(screen.query_one("#history", DataTable), 0, "before") == "needs_ruling"
        await pilot.press("escape")
        await settle(pilot)
        assert next(r for r in app.screen.rows if r.id == "s2").verdict == "refuted"
        assert "2 need ruling" in text_of(app.screen.query_one("#run-summary", Static))


async def test_ruled_ambiguous_it_leaves_them_unrefuted(queue_store):
    app = TestJackApp(queue_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        store = Store(queue_store)
        screen = await open_queue(pilot)
        await pilot.press("down")  # w-slug-space: fails s1, sound
        await pilot.press("A")
        await pilot.press(*"the prompt says nothing of spaces", "enter")
        await settle(pilot)
        assert store.get_witness("w-slug-space").classification == "ambiguous"
        assert store.get_verdict("demo", "s1").verdict == "sound"
        queue = screen.query_one("#queue", DataTable)
        row = ids(queue).index("w-slug-space")
        assert cell(queue, row, "class") == "ambiguous" and cell(queue, row, "ruling") == "ambiguous"
        assert Store(queue_store).summary("demo").needs_ruling_witnesses == 2


async def test_marked_witnesses_are_ruled_together_with_one_reason(queue_store):
    app = TestJackApp(queue_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        store = Store(queue_store)
        screen = await open_queue(pilot)
        queue = screen.query_one("#queue", DataTable)
        await pilot.press("space")  # marks w-slug-case and moves down
        await pilot.press("space")  # marks w-slug-space
        assert [cell(queue, i, "✓") for i in range(3)] == ["✓", "✓", ""]
        assert screen.highlighted_witness() == "w-shorter"  # not marked: not ruled
        await pilot.press("N")
        await pilot.press(*"both follow from the examples", "enter")
        await settle(pilot)
        assert {store.get_verdict("demo", t).verdict for t in ("s1", "s2")} == {"refuted"}
        history = store.list_rulings("demo")
        assert sorted(r.target_id for r in history) == ["w-slug-case", "w-slug-space"]
        assert {r.reason for r in history} == {"both follow from the examples"}
        assert store.get_witness("w-shorter").classification == "needs_ruling"
        assert screen.query_one("#history", DataTable).row_count == 2
        assert not screen.marked and "✓" not in [cell(queue, i, "✓") for i in range(queue.row_count)]


async def test_at_100_columns_the_queue_shows_what_decides_a_ruling_first(queue_store):
    """Issue 41, item 1: class, ρ and what a ruling would refute on screen at 100 columns, the
    outcomes on the reference and the null world beside them, the requirement cut short with the
    full text in the detail pane."""
    store = Store(queue_store)
    long = "slug keeps digits " + "and every other character of its input, " * 8
    w = store.get_witness("w-slug-case")
    w.requirement = long
    store.put_witness(w)
    store.close()
    app = TestJackApp(queue_store, run_id="demo")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_queue(pilot)
        queue = screen.query_one("#queue", DataTable)
        labels = [str(c.label) for c in queue.columns.values()]
        assert labels[:9] == ["✓", "class", "ρ", "would refute", "new", "failing", "ref", "null", "ruling"]
        widths = [c.get_render_width(queue) for c in queue.columns.values()]
        assert sum(widths[:labels.index("would refute") + 1]) < queue.size.width
        assert cell(queue, 0, "class") == "needs ruling" and cell(queue, 0, "ρ") == "0.50"
        assert cell(queue, 0, "ref") == "pass" and cell(queue, 0, "null") == "fail"
        assert len(cell(queue, 0, "requirement")) <= 40 and cell(queue, 0, "requirement").endswith("…")
        assert long.strip() in " ".join(text_of(screen.query_one("#queue-detail", Static)).split())


async def test_the_queue_filters_by_class_and_by_what_a_ruling_would_change_and_sorts(queue_store):
    app = TestJackApp(queue_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_queue(pilot)
        queue = screen.query_one("#queue", DataTable)
        await pilot.press("c")  # needs ruling first among the classes
        assert ids(queue) == ["w-slug-case", "w-slug-space", "w-shorter"]
        await pilot.press("c")
        assert ids(queue) == ["w-iterable"] and cell(queue, 0, "class") == "implicit"
        assert "only implicit" in text_of(screen.query_one("#queue-title", Static))
        await pilot.press("c")  # every class again
        assert queue.row_count == 4
        # v: only the witnesses whose ruling would refute a passing trial (all four fail one here)
        await pilot.press("v")
        assert queue.row_count == 4 and "would refute a trial" in text_of(screen.query_one("#queue-title", Static))
        await pilot.press("v", "s", "s")  # sorted by ρ: needs ruling stays on top
        assert "highest ρ first" in text_of(screen.query_one("#queue-title", Static))
        assert [cell(queue, i, "class") for i in range(4)] == ["needs ruling"] * 3 + ["implicit"]
        rhos = [float(cell(queue, i, "ρ")) for i in range(3)]
        assert rhos == sorted(rhos, reverse=True)


async def test_a_prompt_defect_stands_out_among_implicit_rows(queue_store):
    store = Store(queue_store)
    from testjack_tui.audit.rulings import rule_witness
    rule_witness(store, "w-iterable", "ambiguous", "the prompt never says", "ann")
    store.close()
    app = TestJackApp(queue_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_queue(pilot)
        queue = screen.query_one("#queue", DataTable)
        row = ids(queue).index("w-iterable")
        styled = queue.get_cell_at((row, queue.get_column_index("class")))
        assert styled.plain == "ambiguous" and "reverse" in str(styled.style) and "bold" in str(styled.style)


async def test_the_history_marks_undone_rulings_and_u_never_offers_one(queue_store):
    """Issue 41, item 3: after a witness ruling was undone and an override decided the verdict,
    u on the Verdict tab offers the override, and the undone ruling is struck, "undone by #2"."""
    from testjack_tui.audit.rulings import override_verdict, rule_witness, undo_ruling
    from testjack_tui.app.screens.forms import ReasonForm
    from .helpers import open_trial

    store = Store(queue_store)
    first, _ = rule_witness(store, "w-slug-case", "necessary", "digits matter", "ann")
    undo_ruling(store, first.id, reason="on second thoughts", author="ann", run_ref="demo")
    override = override_verdict(store, "s2", "sound", "checked by hand", author="ann", run_ref="demo")
    store.close()
    app = TestJackApp(queue_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        trial = await open_trial(pilot, "s2")
        await pilot.press("5")
        rulings = trial.query_one("#trial-rulings", DataTable)
        assert [cell(rulings, i, "#") for i in range(rulings.row_count)] == [str(first.id), str(first.id + 1),
                                                                             str(override.id)]
        assert cell(rulings, 0, "value") == f"necessary undone by #{first.id + 1}"
        assert "strike" in str(rulings.get_cell_at((0, 0)).style)
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, ReasonForm)
        assert str(app.screen.title_text) == f"Undo ruling #{override.id}"
        await pilot.press("escape")
        await pilot.press("up", "up", "u")  # the undone ruling, moved onto by hand: refused at once
        await settle(pilot)
        assert not isinstance(app.screen, ReasonForm)
        assert any(f"ruling #{first.id} is already undone (by #{first.id + 1})" in str(n.message)
                   for n in app._notifications)
        screen = await open_queue(pilot)
        history = screen.query_one("#history", DataTable)
        undone_row = [cell(history, i, "#") for i in range(history.row_count)].index(str(first.id))
        assert cell(history, undone_row, "value") == f"necessary undone by #{first.id + 1}"
