"""Entry point of the review console, called by ``testjack open`` and ``testjack`` with no arguments."""

from __future__ import annotations

from pathlib import Path

from testjack_tui.app.app import TestJackApp


def run_console(store_path: str | Path, run_id: str | None = None, audit: bool = False,
                analyst: str | None = None, executor: str = "local", ray_address: str | None = None) -> None:
    """Open the console on the store (on the run's trial list when ``run_id`` is given), and with
    ``audit`` start auditing that run with default options in a background worker. ``analyst``
    (``--by``) is the name stored on rulings, over $TESTJACK_ANALYST and the settings. Every audit
    of the session runs its tests on ``executor`` (``local`` threads, or ``ray`` at ``ray_address``)."""
    TestJackApp(store_path, run_id=run_id, audit=audit, analyst=analyst, executor=executor,
                ray_address=ray_address).run()
