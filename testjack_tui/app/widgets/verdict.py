"""Verdict labels coloured by the theme's ``$verdict-*`` variables, for table cells and headers."""

from __future__ import annotations

from rich.text import Text
from textual.app import App
from textual.binding import Binding

from testjack_tui.model import LABELS
from testjack_tui.themes.testjack import VERDICT_DEFAULTS


def verdict_colour(app: App, verdict: str) -> str:
    name = f"verdict-{verdict}"
    return app.get_css_variables().get(name) or VERDICT_DEFAULTS.get(name, "")


def verdict_text(app: App, verdict: str, bold: bool = True) -> Text:
    colour = verdict_colour(app, verdict)
    style = f"{'bold ' if bold else ''}{colour}".strip()
    return Text(LABELS.get(verdict, verdict), style=style)


def theme_text(app: App, text: str, variable: str, bold: bool = False) -> Text:
    """``text`` in the colour of one of the theme's variables (``warning``, ``text-muted``...)."""
    colour = app.get_css_variables().get(variable, "")
    return Text(text, style=f"{'bold ' if bold else ''}{colour}".strip())


def add_keyed(table, *labels: str) -> None:
    """Add columns whose keys are their labels, so cells can be addressed by column name."""
    for label in labels:
        table.add_column(label, key=label)


# The first bindings of every screen, so the footer shows them first whatever else it has room
# for. The app's own F1 and ctrl+p are priority bindings (they answer even where a widget would
# take the key) and take these places in the footer.
HELP_BINDING = Binding("f1", "app.help", "Help", tooltip="What this screen is for, and its keys (F1 or ? closes it)")
PALETTE_BINDING = Binding("ctrl+p", "app.command_palette", "Palette", tooltip="Every command of the console, by name")
HELP_BINDINGS = [HELP_BINDING, PALETTE_BINDING]


def source_text(v) -> str:
    """Where a verdict came from: ``auto``, or ``analyst, ruling #N`` when an override decided it."""
    if getattr(v, "ruling_id", None):
        return f"analyst, ruling #{v.ruling_id}"
    return str(v.source)
