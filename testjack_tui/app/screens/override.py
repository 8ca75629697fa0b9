"""The override dialog both trial screens open: ask for a verdict and a reason, store the ruling.

Its own module, so that the trial list and the trial screen share it without importing each other.
"""

from __future__ import annotations

from typing import Any

from testjack_tui.app.messages import StoreChanged
from testjack_tui.app.workers import load


def override_with_form(node: Any, run_id: str, trial_id: str, current: str) -> None:
    """Ask for a verdict and a reason, store the override, and let every screen re-read."""
    from testjack_tui.app.screens.forms import OverrideForm
    from testjack_tui.audit.rulings import override_verdict

    author = node.app.analyst()

    def chosen(result: tuple[str, str] | None) -> None:
        if result is None:
            return
        value, reason = result

        def write(store):
            return override_verdict(store, trial_id, value, reason, author=author, run_ref=run_id)

        def done(ruling) -> None:
            node.notify(f"{trial_id}: {ruling.before} → {ruling.value} (ruling #{ruling.id})")
            node.app.post_message(StoreChanged(run_id))

        load(node, f"override {trial_id}", write, done)

    node.app.push_screen(OverrideForm(trial_id, current), chosen)
