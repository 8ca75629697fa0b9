"""How the console words a task's input domain: constraints, where they come from, grounding.

A witness outside the domain, or one whose input cannot be placed in it, never refutes; the
labels say so wherever a witness's grounding is shown, so an analyst never reads such a
witness's failure as a refutation.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App

from testjack_tui.app.widgets.verdict import theme_text
from testjack_tui.model import Constraint, Grounding, Ruling, Witness

# grounding -> (table label, theme variable for its colour)
GROUNDING = {
    Grounding.IN_DOMAIN.value: ("in domain", "text-success"),
    Grounding.OUTSIDE_DOMAIN.value: ("outside: refutes nothing", "warning"),
    Grounding.UNPLACED.value: ("unplaced: refutes nothing", "text-muted"),
}


# the same, in a word, for narrow table columns (the detail says the rest)
SHORT = {Grounding.IN_DOMAIN.value: "in", Grounding.OUTSIDE_DOMAIN.value: "outside",
         Grounding.UNPLACED.value: "unplaced"}


def grounding_text(app: App, grounding: str | None, short: bool = False) -> Text:
    if grounding is None:
        return Text("not placed", style="dim")
    label, variable = GROUNDING.get(str(grounding), (str(grounding), "foreground"))
    if short:
        label = SHORT.get(str(grounding), label)
    return theme_text(app, label, variable)


UNREAD = "unread"


def is_unread(c: Constraint) -> bool:
    """A sentence of P that constrains inputs in words TestJack did not understand."""
    return c.kind == UNREAD


def origin(c: Constraint) -> str:
    """``stated`` (a sentence of P says it), ``observed`` (P's examples and T0's inputs show it), or
    ``unread`` (a sentence of P about the inputs that no reader understood)."""
    return UNREAD if is_unread(c) else "stated" if c.stated else "observed"


def origin_text(app: App, c: Constraint) -> Text:
    """The origin column: ``unread`` stands out (the theme's warning colour), the others are plain."""
    return theme_text(app, UNREAD, "warning", bold=True) if is_unread(c) else Text(origin(c))


def shorten(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def ruling_text(app: App, ruling: Ruling | None) -> Text:
    if ruling is None:
        return Text("in force", style="dim")
    return theme_text(app, f"ruled wrong #{ruling.id}", "error", bold=True)


def domain_title(domain: list[Constraint], wrong: dict[str, Ruling]) -> str:
    """The title over a task's domain table: how many constraints are stated, observed, ruled wrong."""
    title = "Input domain"
    if domain:
        unread = sum(1 for c in domain if is_unread(c))
        stated = sum(1 for c in domain if c.stated and not is_unread(c))
        title += f": {stated} stated, {len(domain) - stated - unread} observed"
        title += f", {unread} unread (inputs beyond P's examples and T0's refute nothing)" if unread else ""
        title += f", {len(wrong)} ruled wrong" if wrong else ""
        title += " · C: rule wrong"
    return title


def constraint_detail(app: App, c: Constraint, ruling: Ruling | None, breakers: list[str]) -> Text:
    """The detail of one constraint: where it comes from, the witnesses that break it, its ruling."""
    where = (f"stated in P: “{c.source}”" if c.stated else f"observed in {c.source or 'the inputs P and T0 show'}")
    parts: list[Any] = [
        (c.text, "bold strike" if ruling else "bold"), f"  {c.kind} · {c.id}",
        f"\n{where}",
    ]
    if is_unread(c):
        parts = [theme_text(app, "unread", "warning", bold=True), ": ", (c.text, "strike" if ruling else ""),
                 f"  {c.id}\nTestJack did not understand this sentence of P. A witness whose call goes beyond the "
                 "inputs P's examples and T0 pass (a larger number or a longer value, another type, a character, "
                 "a sign or an empty value they never show) is unplaced and refutes nothing."]
    if c.params:
        parts.append(f"\nparameters: {', '.join(c.params)}")
    if breakers:
        parts += ["\nbroken by ", ", ".join(breakers), " (outside the domain, so they refute nothing)"]
    if ruling is not None:
        parts += ["\n", ruling_text(app, ruling),
                  f" by {ruling.author} at {ruling.created_at}: {ruling.reason}",
                  "\nundo it in the rulings (ctrl+r, then u on the ruling)"]
    elif is_unread(c):
        parts.append("\nC rules it wrong (it constrains nothing): the task's witnesses are placed again without it")
    else:
        parts.append("\nC rules it wrong: the task's witnesses are placed again without it")
    return Text.assemble(*parts)


def grounding_line(app: App, w: Witness, texts: dict[str, str]) -> Text:
    """One line for a witness's detail: where its input lies, what it breaks, whether it may refute."""
    order = {cid: i for i, cid in enumerate(texts)}  # the domain's own order, not the ids'

    def named(ids: list[str]) -> str:
        return "; ".join(f"“{texts.get(i, i)}”" for i in sorted(ids, key=lambda i: order.get(i, len(order))))

    g = str(w.grounding) if w.grounding is not None else None
    if g == Grounding.OUTSIDE_DOMAIN.value:
        return Text.assemble(
            theme_text(app, "outside the input domain", "warning", bold=True),
            f": breaks {named(w.breaks) or 'a constraint'}. ",
            theme_text(app, "It refutes nothing.", "warning", bold=True),
        )
    if g == Grounding.UNPLACED.value:
        return Text.assemble(
            theme_text(app, "unplaced", "text-muted", bold=True),
            ": its input cannot be checked against the domain (not a call with literal arguments, or one beyond "
            "the inputs P and T0 show where P has an unread sentence). ",
            theme_text(app, "It refutes nothing.", "text-muted", bold=True),
        )
    if g == Grounding.IN_DOMAIN.value:
        said = (f": meets {named(w.meets)}" if w.meets
                else " (the task's domain states no constraint)" if not texts else ": no constraint applies to its calls")
        return Text.assemble(theme_text(app, "in the input domain", "text-success"), said)
    return Text("not placed against the input domain yet", style="dim")
