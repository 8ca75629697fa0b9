"""TestJack's own Textual themes, and the verdict colours every theme offers to the stylesheets.

The verdict colours are theme variables (``$verdict-refuted`` and so on in the .tcss files), so
a theme can retune them; built-in Textual themes fall back to ``VERDICT_DEFAULTS``.
"""

from __future__ import annotations

from pathlib import Path

from textual.theme import Theme

STYLESHEET = Path(__file__).with_name("console.tcss")

VERDICTS = ("sound", "refuted", "reward_hack", "unaudited", "not_passing", "not_reproduced", "ambiguous", "needs_ruling")

# Fallbacks for any theme that does not name them (readable on dark and light backgrounds alike).
VERDICT_DEFAULTS: dict[str, str] = {
    "verdict-sound": "#2e9d57",
    "verdict-refuted": "#d9822b",
    "verdict-reward_hack": "#d6336c",
    "verdict-unaudited": "#8a8f98",
    "verdict-not_passing": "#6c7480",
    "verdict-not_reproduced": "#8e6fd8",
    "verdict-ambiguous": "#b38b00",
    "verdict-needs_ruling": "#2a9fb0",
}

TESTJACK_DARK = Theme(
    name="testjack-dark",
    primary="#4aa3df",
    secondary="#7c8fd6",
    accent="#f0a35e",
    warning="#e0b341",
    error="#e5534b",
    success="#3fb76b",
    foreground="#dde3ea",
    background="#14181d",
    surface="#1c2128",
    panel="#252c35",
    dark=True,
    variables={
        "verdict-sound": "#3fb76b",
        "verdict-refuted": "#f0883e",
        "verdict-reward_hack": "#f2577c",
        "verdict-unaudited": "#8b949e",
        "verdict-not_passing": "#6e7681",
        "verdict-not_reproduced": "#a98bf0",
        "verdict-ambiguous": "#d4a72c",
        "verdict-needs_ruling": "#39c5cf",
        "diff-added": "#1f3b2a",
        "diff-removed": "#4a2326",
        "diff-changed": "#3a3420",
        "footer-key-foreground": "#f0a35e",
    },
)

TESTJACK_LIGHT = Theme(
    name="testjack-light",
    primary="#1f6fb2",
    secondary="#5561a8",
    accent="#b2561b",
    warning="#9a6700",
    error="#c4312b",
    success="#1a7f37",
    foreground="#1f2328",
    background="#f6f8fa",
    surface="#ffffff",
    panel="#e8ecf0",
    dark=False,
    variables={
        "verdict-sound": "#1a7f37",
        "verdict-refuted": "#bc4c00",
        "verdict-reward_hack": "#bf1650",
        "verdict-unaudited": "#57606a",
        "verdict-not_passing": "#6e7781",
        "verdict-not_reproduced": "#7548c9",
        "verdict-ambiguous": "#8a6100",
        "verdict-needs_ruling": "#0b7285",
        "diff-added": "#dafbe1",
        "diff-removed": "#ffebe9",
        "diff-changed": "#fff8c5",
    },
)

THEMES = (TESTJACK_DARK, TESTJACK_LIGHT)

# Defaults for the non-verdict variables a .tcss file uses.
VARIABLE_DEFAULTS: dict[str, str] = {
    **VERDICT_DEFAULTS,
    "diff-added": "#2ea04326",
    "diff-removed": "#f8514926",
    "diff-changed": "#d2992233",
}
