"""Issue 17: an audit started by another process (``testjack audit``, another console).

The console tells a live audit of another process from a killed one by the process the audit row
names, and shows its progress from the steps the engine keeps in that row. The other process here
is real: it opens the store, starts an audit row and records progress as the engine does, then
waits until the test closes its standard input.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta, timezone

from textual.widgets import DataTable, Static

from testjack_tui.store import Store
from testjack_tui.app.app import TestJackApp
from testjack_tui.review.lifecycle import running_elsewhere
from testjack_tui.app.screens.forms import AuditForm

from .helpers import cell, settle, text_of
from .test_usability import WIDE, messages

OTHER_AUDIT = """
import sys
from testjack_tui.store import Store

store = Store(sys.argv[1])
audit = store.start_audit("demo", "per-trial", "offline", 3, 2, "")
store.audit_progress(audit, 3, 10, "witnesses")
store.close()
print("ready", flush=True)
sys.stdin.read()  # runs until the test closes its input
"""


def start_other_audit(store_path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", OTHER_AUDIT, str(store_path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


async def test_an_audit_running_in_another_process_is_shown_running_with_its_progress(demo_store):
    proc = start_other_audit(demo_store)
    try:
        app = TestJackApp(demo_store, run_id="demo")
        async with app.run_test(size=WIDE) as pilot:
            await settle(pilot)
            said = f"audit running in another process (pid {proc.pid}) at 30%"
            assert any(said in m for m in messages(app))
            assert not any("interrupted" in m for m in messages(app))
            trials = app.screen
            assert text_of(trials.query_one("#audit-status", Static)) == said
            assert trials.query_one("#audit-progress").display
            await pilot.press("a")  # no second audit of the same run
            await pilot.pause()
            assert not isinstance(app.screen, AuditForm)
            assert any("running in another process" in m and "cancel it there first" in m for m in messages(app))
            await pilot.press("escape")
            await settle(pilot)
            assert cell(app.screen.query_one(DataTable), 0, "audit") == "30% running in another process"
            # the other process dies without finishing its audit: now it is an interrupted one
            proc.stdin.close()
            proc.wait(timeout=30)
            app._look_for_interrupted_audits(first=False)
            await settle(pilot)
            assert cell(app.screen.query_one(DataTable), 0, "audit") == "interrupted at 30%: a resumes"
            assert app.interrupted["demo"].describe() == "audit interrupted at 30% — press a to resume"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_an_audit_on_another_host_counts_as_running_while_its_heartbeat_is_recent():
    now = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)
    row = {"status": "running", "pid": 4242, "host": "some-other-host",
           "heartbeat": (now - timedelta(minutes=2)).isoformat()}
    assert running_elsewhere(row, now) == "pid 4242 on some-other-host"
    assert running_elsewhere({**row, "heartbeat": (now - timedelta(hours=1)).isoformat()}, now) == ""
    assert running_elsewhere({**row, "status": "cancelled"}, now) == ""
    assert running_elsewhere({**row, "pid": None}, now) == ""  # a row from before the store kept it


def test_the_engine_keeps_its_progress_in_the_audit_row(demo_store):
    from testjack_tui.audit import Audit, AuditOptions

    store = Store(demo_store)
    try:
        Audit(store, "demo", AuditOptions(author="none", rounds=1)).execute()
        (row,) = store.list_audits("demo")
        assert row["status"] == "done" and 0 < row["done"] <= row["total"]
        assert row["phase"] == "witnesses" and row["heartbeat"]
        assert running_elsewhere(row) == ""  # finished (and this very process ran it)
    finally:
        store.close()
