"""Issue 41, item 5: the trial list's header and its "audit done" line read one summary.

The audit-done line used to keep the counts announced when the audit ended, under a header that a
ruling since then had moved. Both now show the summary the trial list last read from the store.
"""

from __future__ import annotations

from textual.widgets import Static

from testjack_tui.app.app import TestJackApp
from testjack_tui.audit import AuditOptions
from testjack_tui.figures import outcome_line, summary_line
from testjack_tui.model import RunSummary
from testjack_tui.store import Store

from .helpers import open_trial, settle, text_of
from .test_usability import WIDE


def _summary(path) -> RunSummary:
    store = Store(path)
    try:
        return store.summary("demo")
    finally:
        store.close()


async def test_after_a_ruling_the_audit_done_line_says_what_the_header_says(demo_store):
    app = TestJackApp(demo_store, run_id="demo", analyst="ann")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        app.start_run_audit("demo", AuditOptions(author="none", rounds=1))
        job = app.audits.jobs["demo"]
        await job.worker.wait()
        await settle(pilot)
        trials = app.screen
        before = _summary(demo_store)
        done = text_of(trials.query_one("#audit-status", Static))
        assert done == f"audit done: {outcome_line(before)}"

        trial = await open_trial(pilot, "c1")  # refuted by w-iterable alone
        await pilot.press("4")
        assert trial.witness_id == "w-iterable"
        await pilot.press("A")
        await pilot.pause()
        await pilot.press(*"not in the prompt", "enter")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)

        assert app.screen is trials
        now = _summary(demo_store)
        assert now.refuted == before.refuted - 1  # the ruling moved the counts
        assert text_of(trials.query_one("#run-summary", Static)) == summary_line(now)
        assert text_of(trials.query_one("#audit-status", Static)) == f"audit done: {outcome_line(now)}"
        assert text_of(trials.query_one("#audit-status", Static)) != done
