"""What the trial screen's head line and its Evidence and Verdict tabs say, in cells and texts
built from ``TrialData``; the screen only puts them in its widgets. (The Prompt tab draws itself in
``trial_prompt``, the Witnesses tab in ``trial_witnesses``.)
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App

from testjack_tui.review.trial_data import TrialData
from testjack_tui.app.widgets.domain import shorten
from testjack_tui.app.widgets.verdict import LABELS, source_text, theme_text, verdict_text
from testjack_tui.model import Evidence, EvidenceKind, Ruling, Verdict

# Verdicts whose rule says why the audit could not decide: shown beside the verdict wherever it is.
EXPLAINED = (Verdict.UNAUDITED, Verdict.NOT_REPRODUCED)

EVIDENCE_COLUMNS = ("kind", "detector", "where", "detail", "in prompt")
RULING_COLUMNS = ("#", "on", "value", "before", "by", "at", "reason")

# What an empty table's detail line says (dim), and why it is empty.
NO_EVIDENCE = ("No evidence for this trial: T0 runs every line it changes, no detector fired and no mutant "
               "survived.")
NOT_GATHERED = "No evidence for this trial yet: the audit has not looked (a on the trial list audits the run)."


def head_line(app: App, data: TrialData) -> Text:
    """The line above the tabs: the trial, its task, who made it, its verdict and where that came from."""
    t, v = data.trial, data.verdict
    task = data.task
    malformed = Text(f" (malformed: {shorten(task.malformed_reason or 'the reference fails T0', 50)})",
                     style="bold") if task.malformed else ""
    broken = Text(f" (task analysis failed: {shorten(data.analysis_error, 50)})",
                  style="bold") if data.analysis_error else ""
    return Text.assemble(
        (t.id, "bold"), f"  task {t.task_id}", malformed, broken,
        f" · model {t.model or '?'} · agent {t.agent or '?'} · official {t.official} · ",
        verdict_text(app, str(v.verdict)), " (", source_text(v), ")",
        (f": {v.rule}" if v.verdict in EXPLAINED and v.rule else ""),
        ("  reviewed" if t.reviewed else ""),
    )


# ---------------------------------------------------------------------- Evidence tab


def evidence_cells(app: App, e: Evidence) -> list[Any]:
    """One piece of evidence's row, in the order of ``EVIDENCE_COLUMNS``."""
    where = f"{e.file}:{e.line}" if e.file else ""
    prompt = "" if e.mentioned_in_prompt is None else ("yes" if e.mentioned_in_prompt else "no")
    kind = theme_text(app, "slow", "warning", bold=True) if e.kind == EvidenceKind.SLOW else str(e.kind)
    return [kind, e.detector, where, shorten(e.detail, 90), prompt]


def evidence_detail(app: App, e: Evidence) -> Text:
    """The highlighted evidence in full; a slow finding says it refutes nothing."""
    if e.kind == EvidenceKind.SLOW:
        head = Text.assemble(theme_text(app, "slow finding", "warning", bold=True),
                             f" ({e.detector}): the trial gives the reference's answer far more slowly. "
                             "A finding to read, never a refutation.")
    else:
        where = f" at {e.file}:{e.line}" if e.file else ""
        head = Text.assemble((str(e.kind).replace("_", " "), "bold"), f" ({e.detector}){where}",
                             " · Enter shows the line in the diff" if e.file else "")
    return Text.assemble(head, "\n", e.detail)


# ---------------------------------------------------------------------- Verdict tab


def verdict_detail(app: App, data: TrialData) -> Text:
    """The verdict, where it came from, the rulings in force on the task's witnesses, and how to change it."""
    v = data.verdict
    live = [r for r in data.witness_rulings.values()]
    return Text.assemble(
        ("Verdict: ", "bold"), verdict_text(app, str(v.verdict)),
        "\nsource: ", source_text(v),
        (f"\nwhy {LABELS.get(str(v.verdict), str(v.verdict))}: " if v.verdict in EXPLAINED else "\nrule: "),
        (v.rule or "—", "bold" if v.verdict in EXPLAINED else ""),
        f"\nrefuting witnesses: {', '.join(v.witnesses) or 'none'}",
        ("\nrulings in force on this task's witnesses: "
         + "; ".join(f"#{r.id} {r.target_id} {r.value}" for r in live) if live else ""),
        f"\nbenchmark: {data.trial.official}; T0 recomputed: {data.trial.recomputed or 'not yet'}",
        (f"\nerror: {data.trial.error}" if data.trial.error else ""),
        f"\nupdated: {v.updated_at}",
        ("\n\nu undoes the ruling that decided it (asks for a reason)" if v.ruling_id else
         "\n\no overrides it (asks for a reason)"),
    )


def ruling_cells(r: Ruling, undone_by: int | None = None, on: str = "") -> list[Any]:
    """One ruling's row, in the order of ``RULING_COLUMNS``; an undo shows the ruling it undoes, and
    an undone ruling is struck through and dim, its value saying which ruling undid it."""
    value = f"undo #{r.undoes}" if r.undoes is not None else r.value
    cells: list[Any] = [str(r.id), on or f"{r.target} {r.target_id}", value, r.before, r.author, r.created_at,
                        r.reason]
    if undone_by is None:
        return cells
    struck = [Text(str(c), style="strike dim") for c in cells]
    struck[2] = Text.assemble((value, "strike dim"), (f" undone by #{undone_by}", "italic"))
    return struck
