"""What the trial screen's head line and its Prompt, Evidence and Verdict tabs say, in cells and
texts built from ``TrialData``; the screen only puts them in its widgets.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App

from testjack_tui.app.checklist import T0_MARKS, ChecklistRow
from testjack_tui.app.screens.trial_data import TrialData
from testjack_tui.app.widgets.domain import origin, ruling_text, shorten
from testjack_tui.app.widgets.verdict import LABELS, source_text, theme_text, verdict_text
from testjack_tui.model import Constraint, Evidence, EvidenceKind, Ruling, Verdict

# Verdicts whose rule says why the audit could not decide: shown beside the verdict wherever it is.
EXPLAINED = (Verdict.UNAUDITED, Verdict.NOT_REPRODUCED)

CHECKLIST_COLUMNS = ("kind", "T0", "this trial", "witnesses", "requirement")
DOMAIN_COLUMNS = ("constraint", "ruling", "from", "kind", "broken by", "source")
EVIDENCE_COLUMNS = ("kind", "detector", "where", "detail", "in prompt")
RULING_COLUMNS = ("#", "on", "value", "before", "by", "at", "reason")

# What an empty table's detail line says (dim), and why it is empty.
NO_REQUIREMENTS = "No requirements: the prompt is empty and no witness names one."
NO_DOMAIN = "No input domain for this task: not built yet, or P and T0 say nothing about the inputs."
NO_EVIDENCE = ("No evidence for this trial: T0 runs every line it changes, no detector fired and no mutant "
               "survived.")
NOT_GATHERED = "No evidence for this trial yet: the audit has not looked (a on the trial list audits the run)."


def head_line(app: App, data: TrialData) -> Text:
    """The line above the tabs: the trial, its task, who made it, its verdict and where that came from."""
    t, v = data.trial, data.verdict
    task = data.task
    malformed = Text(f" (malformed: {shorten(task.malformed_reason or 'the reference fails T0', 50)})",
                     style="bold") if task.malformed else ""
    return Text.assemble(
        (t.id, "bold"), f"  task {t.task_id}", malformed,
        f" · model {t.model or '?'} · agent {t.agent or '?'} · official {t.official} · ",
        verdict_text(app, str(v.verdict)), " (", source_text(v), ")",
        (f": {v.rule}" if v.verdict in EXPLAINED and v.rule else ""),
        ("  reviewed" if t.reviewed else ""),
    )


# ---------------------------------------------------------------------- Prompt tab: the checklist


def checklist_cells(app: App, r: ChecklistRow) -> list[Any]:
    """One requirement's row, in the order of ``CHECKLIST_COLUMNS``."""
    witnesses = (r.witnesses[0] + (f" +{len(r.witnesses) - 1}" if len(r.witnesses) > 1 else "")
                 if r.witnesses else Text("none", style="dim"))
    return [r.kind, _t0_text(app, r.t0), _trial_mark(app, r), witnesses, r.text]


def _t0_text(app: App, t0: str) -> Text:
    style = {"yes": "text-success", "partly": "warning", "no": "error"}.get(t0, "text-muted")
    return theme_text(app, T0_MARKS.get(t0, t0), style, bold=t0 in ("no", "partly"))


def _trial_mark(app: App, r: ChecklistRow) -> Text:
    style = {"pass": "text-success", "fail": "error", "fail-no-refute": "warning"}.get(r.trial_state, "text-muted")
    return theme_text(app, r.trial, style, bold=r.trial_state == "fail")


def checklist_title(rows: list[ChecklistRow]) -> str:
    counts = {k: sum(1 for r in rows if r.kind == k) for k in ("stated", "input", "example", "not in P")}
    return (f"Checklist: {counts['stated'] + counts['input']} requirements P states, "
            f"{counts['example']} examples, {counts['not in P']} not in P")


def first_requirement(rows: list[ChecklistRow]) -> str:
    """The row the checklist opens on: the first requirement this trial breaks, like the matrix's refuting witness."""
    return next((r.key for r in rows if r.trial_state == "fail"), rows[0].key)


def checklist_detail(row: ChecklistRow) -> Text:
    """The highlighted requirement in full: where it comes from, what T0 and this trial do with it."""
    parts: list[Any] = [(row.text, "bold"), f"\n{row.kind} · from {row.source if row.source != row.text else 'P'}"]
    if row.constraints:
        parts.append(f" · input constraints {', '.join(row.constraints)}")
    parts += [f"\nT0: {T0_MARKS.get(row.t0, row.t0)}: {row.t0_why}"]
    parts += [f"\nthis trial: {row.trial_detail}" + (f" (witnesses {', '.join(row.witnesses)})" if row.witnesses
                                                      else "")]
    return Text.assemble(*parts)


# ---------------------------------------------------------------------- Prompt tab: the input domain


def breakers_by_constraint(data: TrialData) -> dict[str, list[str]]:
    """Constraint id -> the witnesses that break it."""
    broken: dict[str, list[str]] = {}
    for w in data.witnesses:
        for cid in w.breaks:
            broken.setdefault(cid, []).append(w.id)
    return broken


def domain_cells(app: App, c: Constraint, ruling: Ruling | None, breakers: list[str]) -> list[Any]:
    """One constraint's row, in the order of ``DOMAIN_COLUMNS``; one ruled wrong is struck through."""
    return [
        Text(c.text, style="strike dim" if ruling else ""), ruling_text(app, ruling), origin(c), c.kind,
        ", ".join(breakers) or Text("none", style="dim"), shorten(c.source, 60),
    ]


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
        (f"\nrulings in force on this task's witnesses: "
         + "; ".join(f"#{r.id} {r.target_id} {r.value}" for r in live) if live else ""),
        f"\nbenchmark: {data.trial.official}; T0 recomputed: {data.trial.recomputed or 'not yet'}",
        (f"\nerror: {data.trial.error}" if data.trial.error else ""),
        f"\nupdated: {v.updated_at}",
        ("\n\nu undoes the override that decided it (asks for a reason)" if v.ruling_id else
         "\n\no overrides it (asks for a reason)"),
    )


def ruling_cells(r: Ruling) -> list[Any]:
    """One ruling's row, in the order of ``RULING_COLUMNS``; an undo shows the ruling it undoes."""
    value = f"undo #{r.undoes}" if r.undoes is not None else r.value
    return [str(r.id), f"{r.target} {r.target_id}", value, r.before, r.author, r.created_at, r.reason]
