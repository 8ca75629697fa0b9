"""Keys typed at once after the key that opens a dialog (issue 41, item 2): they land in the
dialog, in order, and none reaches the screen behind (where ``m`` marks a trial reviewed).

The keys arrive as a terminal delivers them, one after another on the driver's queue without
waiting for the console to draw (``pilot.press`` waits for it after each key, which hides the race).
"""

from __future__ import annotations

import asyncio

from textual import events
from textual.widgets import Input, Select

from testjack_tui.app.app import TestJackApp
from testjack_tui.app.screens.forms import OverrideForm, ReasonForm
from testjack_tui.app.screens.trial import TrialScreen
from testjack_tui.store import Store

from .helpers import open_trial, settle


def type_fast(app: TestJackApp, *keys: str) -> None:
    """Queue keys as a fast typist's terminal would: all before the console handles the first."""
    for key in keys:
        character = {"space": " ", "enter": "\r"}.get(key, key if len(key) == 1 else None)
        event = events.Key(key, character)
        event.set_sender(app)
        app._driver.send_message(event)


async def test_a_reason_typed_at_once_after_o_is_all_in_the_override_dialog(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_trial(pilot, "c1")
        type_fast(app, "o", *"mx marks it", "space", *"wrong")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, OverrideForm)
        assert dialog.query_one("#reason", Input).value == "mx marks it wrong"
        assert dialog.query_one("#verdict", Select).value == "sound"  # the verdict field left as it was
        assert Store(demo_store).get_trial("demo", "c1").reviewed is False  # m never reached the trial
        assert not screen.reruns  # nor x
        type_fast(app, "enter")
        await settle(pilot)
        assert isinstance(app.screen, TrialScreen)
        assert Store(demo_store).get_verdict("demo", "c1").verdict == "sound"


async def test_a_reason_and_enter_typed_at_once_after_a_rule_on_the_witness_tab(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_trial(pilot, "c1")
        await pilot.press("4")
        type_fast(app, "A", *"mentioned nowhere", "enter")
        await settle(pilot)
        store = Store(demo_store)
        witness = store.get_witness(screen.witness_id)
        assert witness.classification == "ambiguous"
        assert store.list_rulings("demo")[-1].reason == "mentioned nowhere"
        assert isinstance(app.screen, TrialScreen)  # Enter stored the ruling and closed the dialog
        assert store.get_trial("demo", "c1").reviewed is False


async def test_keys_typed_at_once_after_undo_land_in_its_reason(demo_store):
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        await open_trial(pilot, "c1")
        await pilot.press("o", "tab", *"checked by hand", "enter")
        await settle(pilot)
        type_fast(app, "u", *"mistake")
        await settle(pilot)
        assert isinstance(app.screen, ReasonForm)
        assert app.screen.query_one("#reason", Input).value == "mistake"
        assert Store(demo_store).get_trial("demo", "c1").reviewed is False


async def test_keys_still_on_their_way_from_the_trial_when_the_dialog_is_up_land_in_it(demo_store):
    """A busy console: the trial screen has not handled the keys typed after ``o`` when the dialog
    is already mounted. They come back up to the app late, and still go into the dialog's reason."""
    app = TestJackApp(demo_store, run_id="demo")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_trial(pilot, "c1")
        released = asyncio.Event()
        app.focused.call_next(released.wait)  # the widget the keys go to is busy until released
        for character in "mx late":  # the app passes each key on to it (no pilot.pause: it waits for that widget)
            key = events.Key("space" if character == " " else character, character)
            key.set_sender(app)
            await app.on_event(key)
        screen.action_override()  # o, resolved before the keys behind it
        await settle(pilot)  # the dialog is the screen now: this waits for it alone
        assert isinstance(app.screen, OverrideForm)
        released.set()
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, OverrideForm)
        assert dialog.query_one("#reason", Input).value == "mx late"
        assert Store(demo_store).get_trial("demo", "c1").reviewed is False  # m never reached the trial
        assert not screen.reruns  # nor x
