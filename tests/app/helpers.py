"""Waiting for the console's thread workers and the messages they post, without sleeping."""

from __future__ import annotations

from textual.pilot import Pilot


async def settle(pilot: Pilot, rounds: int = 20) -> None:
    """Wait until no worker runs and every message they posted has been handled."""
    app = pilot.app
    for _ in range(rounds):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not any(w.is_running for w in app.workers):
            await pilot.pause()
            if not any(w.is_running for w in app.workers):
                return
