"""Keys typed while a dialog opens go to the dialog, never to the screen behind it.

A key such as ``o`` or ``A`` pushes a modal dialog, but the dialog takes a moment to mount and to
focus its field (longer under load). Textual resolves a key's bindings only when the key has
bubbled up to the app, so keys typed right after ``o`` are either lost (nothing in the dialog has
the focus yet) or, already on their way up from the screen behind, resolved against whatever is
on top when they arrive. From the push of any modal screen until it is mounted, the app holds
every key; then it replays them, in order, into the dialog as if they were typed there. A dialog
that names a ``TYPEAHEAD`` field (the reason of a ruling or an override) gets the focus there
first, so a reason typed at once lands in it.

A busy app can mount the dialog before every key typed behind it has come back up: a key first
sent to the screen behind, and back at the app only once the dialog is on top and its held keys
replayed, is a straggler. It goes into the dialog too, as if typed there, after the held ones.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field

from textual import events
from textual.screen import ModalScreen, Screen
from textual.widgets import Input

# How long a dialog may take to mount before the held keys are let go anyway (to the screen on
# top then): a dialog that never mounts must not swallow the keyboard.
MOUNT_TIMEOUT = 10.0
# Keys remembered with the screen they were first sent to, to recognise stragglers; a key some
# widget handles never comes back, so only the latest are kept.
REMEMBERED_KEYS = 64


@dataclass
class HeldKeys:
    """The keys held for one dialog while it mounts: (key, character) in the order typed."""

    dialog: Screen
    keys: list[tuple[str, str | None]] = field(default_factory=list)


class DialogTypeahead:
    """An App mixin: ``push_screen`` of a modal screen holds the keys until it is mounted."""

    held: HeldKeys | None = None
    # id of a key event -> (the event, the screen on top when it was typed); the event is kept
    # so that a reused id never matches another key
    typed_on: OrderedDict[int, tuple[events.Key, Screen]] | None = None

    def push_screen(self, screen, *args, **kwargs):  # type: ignore[no-untyped-def]
        pushed = super().push_screen(screen, *args, **kwargs)  # type: ignore[misc]
        if isinstance(screen, ModalScreen) and not kwargs.get("wait_for_dismiss"):
            self.held = HeldKeys(screen)
            self.run_worker(self._replay_when_mounted(screen, pushed), group="typeahead",
                            exit_on_error=False)
        return pushed

    async def on_event(self, event: events.Event) -> None:
        # every key while a dialog mounts: typed now, or typed before and still bubbling up from
        # the screen behind (where Textual would resolve it against the dialog's bindings, or drop it)
        if isinstance(event, events.Key) and self.held is not None:
            self.held.keys.append((event.key, event.character))
            event.stop()
            return
        if isinstance(event, events.Key) and self._straggler(event):
            event.stop()
            await self._type_into_dialog(event.key, event.character)
            return
        if isinstance(event, events.Key) and not event.is_forwarded:
            self._remember(event)
        await super().on_event(event)  # type: ignore[misc]

    def _remember(self, event: events.Key) -> None:
        if self.typed_on is None:
            self.typed_on = OrderedDict()
        self.typed_on[id(event)] = (event, self.screen)  # type: ignore[attr-defined]
        while len(self.typed_on) > REMEMBERED_KEYS:
            self.typed_on.popitem(last=False)

    def _straggler(self, event: events.Key) -> bool:
        """A key back at the app from a screen a dialog has since covered (see the module)."""
        if not event.is_forwarded or not self.typed_on:
            return False
        typed, screen = self.typed_on.pop(id(event), (None, None))
        top = self.screen  # type: ignore[attr-defined]
        return typed is event and screen is not top and isinstance(top, ModalScreen)

    async def _type_into_dialog(self, key: str, character: str | None) -> None:
        """``key`` as if typed in the dialog on top now (a character into its focused field)."""
        dialog = self.screen  # type: ignore[attr-defined]
        target = _typeahead_field(dialog)
        if target is not None and self.focused is not target:  # type: ignore[attr-defined]
            dialog.set_focus(target)  # typed before the dialog showed: typed ahead, as held keys are
        focused = self.focused  # type: ignore[attr-defined]
        if isinstance(focused, Input) and character and character.isprintable():
            focused.insert_text_at_cursor(character)
            return
        await self._typed(key, character)

    async def _typed(self, key: str, character: str | None) -> None:
        """A key handed to the app as the terminal hands it one (bindings, then the focus)."""
        typed = events.Key(key, character)
        typed.set_sender(self)  # type: ignore[arg-type]
        await self.on_event(typed)

    async def _replay_when_mounted(self, dialog: Screen, mounted) -> None:  # type: ignore[no-untyped-def]
        try:
            await asyncio.wait_for(mounted(), MOUNT_TIMEOUT)
        except asyncio.TimeoutError:
            pass
        self.call_next(self._replay, dialog)  # type: ignore[attr-defined]

    async def _replay(self, dialog: Screen) -> None:
        held = self.held
        if held is None or held.dialog is not dialog:
            return  # a newer dialog holds the keys now
        self.held = None
        target = _typeahead_field(dialog) if held.keys and dialog is self.screen else None  # type: ignore[attr-defined]
        if target is not None:
            dialog.set_focus(target)
        forwarded = False
        for key, character in held.keys:
            focused = self.focused  # type: ignore[attr-defined]
            if (not forwarded and self.held is None and isinstance(focused, Input) and character
                    and character.isprintable()):
                focused.insert_text_at_cursor(character)  # at once, so a ctrl+s after it sees it
                continue
            # any other key goes the way a typed key goes (a dialog it opens holds the rest), and
            # so does every key after it, to keep them in the order typed
            forwarded = True
            await self._typed(key, character)


def _typeahead_field(dialog: Screen) -> Input | None:
    """The field a dialog wants keys typed ahead in (its ``TYPEAHEAD`` selector), if it has one."""
    selector = getattr(dialog, "TYPEAHEAD", None)
    if not selector:
        return None
    found = dialog.query(selector)
    return found.first() if found and isinstance(found.first(), Input) else None
