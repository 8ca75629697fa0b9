"""Work that runs in thread workers: paging a big run, a real audit, a manual witness."""

from __future__ import annotations


from textual.widgets import DataTable, Input, Select, Static, TextArea

from testjack_tui.store import Store
from testjack_tui.app.app import TestJackApp
from testjack_tui.app.screens.manual import ManualWitnessScreen
from testjack_tui.app.screens.trials import PAGE, TrialsScreen
from testjack_tui.model import Verdict, VerdictRecord

from .helpers import settle


async def test_a_run_of_5000_trials_opens_one_page_and_pages_on(big_store):
    app = TestJackApp(big_store, run_id="big")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TrialsScreen)
        table = screen.query_one("#trials", DataTable)
        assert screen.total == 5000
        assert table.row_count == PAGE  # only the first page is in the table
        await pilot.press("ctrl+end")  # cursor to the last loaded row: the next page is fetched
        await settle(pilot)
        assert table.row_count == 2 * PAGE
        assert screen.rows[PAGE].id == f"trial-{PAGE:05d}"
        for _ in range(20):  # paging on through loaded rows fetches more and keeps the table usable
            await pilot.press("pagedown")
        await settle(pilot)
        assert table.row_count >= 2 * PAGE and table.cursor_row > PAGE


async def test_the_refutation_filter_pages_a_big_run_and_counts_what_it_shows(big_store):
    store = Store(big_store)
    refuted = [f"trial-{i:05d}" for i in range(1, 5000, 3) if i % 4 == 1]  # passing trials only
    hacks = [f"trial-{i:05d}" for i in range(2, 5000, 3) if i % 5 == 2]
    store.set_verdicts([VerdictRecord("big", t, Verdict.REFUTED) for t in refuted]
                       + [VerdictRecord("big", t, Verdict.REWARD_HACK) for t in hacks])
    store.close()
    wanted = sorted(refuted + hacks)
    assert len(wanted) > PAGE  # more than one page: paged by the store, not in the screen
    app = TestJackApp(big_store, run_id="big")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.query_one("#f-verdict", Select).value = "refuting"
        await settle(pilot)
        table = screen.query_one("#trials", DataTable)
        assert screen.total == len(wanted) and table.row_count == PAGE
        line = screen.query_one("#filter-summary", Static).render().plain
        assert line == (f"shown: {len(wanted)} of 5000 trials (refuted or reward hack) · {len(refuted)} refuted · "
                        f"{len(hacks)} reward hack")
        assert screen.query_one("#trials-status", Static).render().plain.startswith(f"{PAGE} of {len(wanted)} trials")
        await pilot.press("ctrl+end")  # the next page comes from the store, still filtered
        await settle(pilot)
        assert table.row_count == min(2 * PAGE, len(wanted))
        assert [r.id for r in screen.rows] == wanted[: table.row_count]


async def test_an_audit_runs_in_the_background_with_progress(demo_store):
    app = TestJackApp(demo_store)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        form.query_one("#author").value = "none"
        form.query_one("#rounds", Input).value = "1"
        await pilot.press("ctrl+s")
        await pilot.pause()
        job = app.audits.jobs["demo"]
        assert job.options.author == "none" and job.options.rounds == 1
        # the UI keeps answering while the audit runs in its thread
        await pilot.press("r")
        await job.worker.wait()
        await settle(pilot)
        assert job.status == "done"
        assert job.progress is not None and job.progress.done > 0
        audits = Store(demo_store).list_audits("demo")
        assert audits[-1]["status"] == "done" and audits[-1]["author"] == "none"
        table = app.screen.query_one(DataTable)
        assert str(table.get_cell("demo", "audit")) == "done"
        # the end is announced, with what the run looks like now
        finished = [n for n in app._notifications if n.title == "Audit finished"]
        assert finished and "refuted or reward hack" in finished[-1].message
        assert "resolution" in finished[-1].message


async def test_cancelling_an_audit_stops_it(demo_store):
    app = TestJackApp(demo_store, run_id="demo", audit=True)
    async with app.run_test(size=(160, 40)) as pilot:
        job = app.audits.jobs["demo"]
        await pilot.press("c")
        await job.worker.wait()
        await settle(pilot)
        assert job.status in ("cancelled", "done")
        assert Store(demo_store).list_audits("demo")[-1]["status"] == job.status
        if job.status == "cancelled":  # stopped before its end: offered again, here and next time
            assert "demo" in app.interrupted
            assert "press a to resume" in str(app.screen.query_one("#audit-status").render())
    if job.status == "cancelled":
        again = TestJackApp(demo_store, run_id="demo")
        async with again.run_test(size=(160, 40)) as pilot:
            await settle(pilot)
            assert "demo" in again.interrupted
            assert any("press a to resume" in n.message for n in again._notifications)


async def test_a_manual_witness_is_validated_run_and_shared(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("w")  # on c1, the first trial
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ManualWitnessScreen)
        screen.query_one("#requirement", Input).value = "chunk accepts a range"
        screen.query_one("#kind").value = "implicit"
        screen.query_one("#editor", TextArea).load_text(
            "from listkit.chunk import chunk\n\n\ndef test_range():\n"
            "    assert chunk(range(5), 2) == [[0, 1], [2, 3], [4]]\n"
        )
        await pilot.press("f5")
        await settle(pilot)
        status = str(screen.query_one("#manual-status").render())
        assert "is validated" in status, status
        await pilot.press("f6")
        await settle(pilot)
        assert "on c1: fail" in str(screen.query_one("#manual-status").render())
        await pilot.press("f7")
        await settle(pilot)
        store = Store(demo_store)
        manual = [w for w in store.list_witnesses("demo", "chunk") if w.origin == "manual"]
        assert len(manual) == 1 and manual[0].author == "analyst"
        results = store.witness_results(manual[0].id)
        assert results["c1"].outcome == "fail" and results["c2"].outcome == "pass"
        assert manual[0].rho is not None  # recomputed with the task
