"""A run's figures in words: percentages, intervals, costs and the summary's phrases.

One wording for the command line, the console and the reports, so that a figure reads the same
wherever a user meets it.
"""

from __future__ import annotations

from collections.abc import Sequence

from testjack_tui.model import RunSummary

SEP = " · "


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """A count with its noun, singular for one: ``1 reward hack``, ``2 reward hacks``,
    ``1 ambiguous witness``; ``plural`` where adding an s is wrong (``need ruling``)."""
    if n == 1:
        return f"{n} {singular}"
    return f"{n} {plural or singular + ('es' if singular.endswith(('s', 'sh', 'ch', 'x')) else 's')}"


def pct(fraction: float) -> str:
    """A fraction as a percentage with one decimal: ``0.4815`` is ``48.1%``."""
    return f"{100 * fraction:.1f}%"


def interval(pair: Sequence[float]) -> str:
    """A 95% interval of fractions, in percent: ``[43.7, 48.2]``."""
    return f"[{100 * pair[0]:.1f}, {100 * pair[1]:.1f}]"


def cost(usd: float, digits: int = 4) -> str:
    return f"${usd:.{digits}f}"


def refuted_share(refuted: int, refuted_pct: float, of: str = "") -> str:
    """``9 (40.9%)``, or ``9 (40.9% of passing)`` with ``of="passing"``: refuted_pct is already in percent."""
    return f"{refuted} ({refuted_pct:.1f}%{' of ' + of if of else ''})"


def resolution_change(before: float, after: float, arrow: str = "→") -> str:
    """Resolution before and after the audit: ``81.5% → 48.1%``."""
    return f"{pct(before)} {arrow} {pct(after)}"


def _refuted_phrase(s: RunSummary, share: bool) -> str:
    # refuted counts reward hacks too; the parenthesis says how many of them were hacks
    of_passing = f"{s.refuted_pct:.1f}% of passing; " if share else ""
    return f"{s.refuted} refuted or reward hack ({of_passing}{counted(s.reward_hack, 'reward hack')})"


def _rulings_phrase(s: RunSummary) -> str:
    return (f"{counted(s.ambiguous_witnesses, 'ambiguous witness')}{SEP}"
            f"{counted(s.needs_ruling_witnesses, 'needs ruling', 'need ruling')}{SEP}"
            f"resolution {resolution_change(s.resolution_before, s.resolution_after)}")


def _rare_phrases(s: RunSummary) -> list[str]:
    # counts that are zero in most runs are named only when there is something to see
    outside = counted(s.outside_domain_witnesses, "witness", "witnesses") + " outside the domain"
    named = ((s.malformed_tasks, counted(s.malformed_tasks, "malformed task")),
             (s.not_reproduced, f"{s.not_reproduced} not reproduced"),
             (s.outside_domain_witnesses, outside), (s.slow_findings, counted(s.slow_findings, "slow finding")))
    return [text for count, text in named if count]


def summary_line(s: RunSummary) -> str:
    """The run in one line: the console's header over the trials."""
    return SEP.join([
        counted(s.trials, "trial"), f"{s.passing} passing", _refuted_phrase(s, share=True), f"{s.sound} sound",
        f"{s.unaudited} unaudited", *_rare_phrases(s), _rulings_phrase(s), cost(s.cost_usd, 2),
    ])


def outcome_line(s: RunSummary) -> str:
    """What an audit left the run with, in one line (the end-of-audit notification)."""
    return SEP.join([_refuted_phrase(s, share=False), f"{s.sound} sound", f"{s.unaudited} unaudited",
                     _rulings_phrase(s)])
