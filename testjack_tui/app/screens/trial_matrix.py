"""The trial screen's Witnesses tab in cells and texts: the witness matrix, and the highlighted
witness's head line and outcome on every world.

A rerun of this session (``replay_witness``) is not kept in the store: the screen holds it per
witness, world -> (outcome, detail), and every function here shows it over the stored outcome.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App

from testjack_tui.app.screens.trial_data import TrialData
from testjack_tui.app.widgets.domain import grounding_line, grounding_text
from testjack_tui.app.widgets.verdict import theme_text, verdict_text
from testjack_tui.model import Witness, WitnessResult

# One witness's reruns of this session: world -> (outcome, detail).
Reruns = dict[str, tuple[str, str]]

# The matrix's columns; a rerun updates its row's cells by these keys.
COLUMNS = ("witness", "class", "ρ", "ref", "null", "this trial", "others", "domain", "requirement")
OUTCOME_COLUMNS = ("world", "outcome", "runs", "verdict")
LEGEND = ("ref, null, this trial: outcome on each world (↻ rerun this session) · others: the task's other "
                 "passing trials that fail it · domain outside/unplaced: refutes nothing · below: every passing "
                 "trial (Enter opens it) · x rerun here, X on every trial")
NO_WITNESS = "No validated witness for this task yet: a on the trial list audits the run, w writes one by hand."


def _outcome_style(outcome: str) -> str:
    return {"pass": "green", "fail": "bold red", "error": "bold yellow"}.get(outcome, "")


def outcome_text(result: WitnessResult | None, rerun: tuple[str, str] | None = None) -> Text:
    if rerun is not None:  # a rerun of this session: shown over the stored outcome, marked ↻
        return Text(f"↻ {rerun[0]}", style=_outcome_style(rerun[0]))
    if result is None:
        return Text("—", style="dim")
    return Text(str(result.outcome), style=_outcome_style(str(result.outcome)))


def failing_others(data: TrialData, trial_id: str, wid: str, reruns: Reruns) -> tuple[int, int]:
    """(trials failing, trials run) among the task's passing trials other than this one."""
    results = data.results.get(wid, {})
    seen = fails = 0
    for t in data.passing:
        if t == trial_id:
            continue
        outcome = reruns[t][0] if t in reruns else (str(results[t].outcome) if t in results else None)
        if outcome is None:
            continue
        seen += 1
        fails += outcome != "pass"
    return fails, seen


def witness_cells(app: App, data: TrialData, trial_id: str, w: Witness, reruns: Reruns) -> list[Any]:
    """One witness's row of the matrix, in the order of ``COLUMNS``."""
    res = data.results.get(w.id, {})
    cls = str(w.classification) if w.classification else "?"
    fails, seen = failing_others(data, trial_id, w.id, reruns)
    others = Text(f"{fails}/{seen} fail" if seen else "—", style="bold" if fails else "dim")
    grounding = str(w.grounding) if w.grounding is not None else ""
    return [
        w.id,
        verdict_text(app, cls, bold=False) if cls == "ambiguous" else cls,
        "" if w.rho is None else f"{w.rho:.2f}",
        outcome_text(res.get("reference"), reruns.get("reference")),
        outcome_text(res.get("null"), reruns.get("null")),
        outcome_text(res.get(trial_id), reruns.get(trial_id)),
        others,
        grounding_text(app, grounding, short=True) if grounding else Text("—", style="dim"),
        w.requirement,
    ]


def first_witness(data: TrialData) -> str:
    """The row the matrix opens on: the first witness refuting the trial, else the first one."""
    ids = [w.id for w in data.witnesses]
    refuting = data.verdict.witnesses
    return refuting[0] if refuting and refuting[0] in ids else ids[0]


def witness_head(app: App, data: TrialData, trial_id: str, w: Witness) -> Text:
    """What the witness is, where it came from, whether it refutes this trial, and how to replay it."""
    refutes = w.id in data.verdict.witnesses
    kind = str(w.requirement_kind)
    cls = str(w.classification) if w.classification else "unclassified"
    # "explicit requirement", or "implicit requirement, classified ambiguous"
    classified = f"{kind} requirement" + (f", classified {cls}" if cls != kind else "")
    ruling = data.witness_rulings.get(w.id)
    return Text.assemble(
        (w.id, "bold"), f"  {classified}",
        f" (ruling #{ruling.id}: {ruling.value})" if ruling else "",
        f" · ρ={w.rho:.2f}" if w.rho is not None else "", f" · origin {w.origin} · author {w.author}",
        (" · flaky" if w.flaky else ""),
        theme_text(app, " · refutes this trial", "error", bold=True) if refutes else "",
        f"\n{w.requirement}\n", grounding_line(app, w, {c.id: c.text for c in data.task.domain}),
        f"\n{w.path or '(T0 itself, without the trial harness changes)'}    "
        f"replay: testjack replay {w.id} --trial {trial_id}",
    )


def witness_log(data: TrialData, trial_id: str, wid: str) -> str:
    """The stored log of the witness on this trial, else on the reference."""
    results = data.results.get(wid, {})
    res = results.get(trial_id) or results.get("reference")
    return res.log if res and res.log else "(no log)"


def outcome_worlds(data: TrialData, trial_id: str) -> list[str]:
    """The worlds of the outcome table, in order: reference, null, every passing trial (and this one)."""
    worlds = ["reference", "null"] + data.passing
    if trial_id not in worlds:
        worlds.append(trial_id)  # a trial that does not pass T0: shown, never counted in ρ
    return worlds


def outcome_cells(app: App, data: TrialData, trial_id: str, wid: str, world: str, reruns: Reruns) -> list[Any]:
    """The witness on one world, in the order of ``OUTCOME_COLUMNS``."""
    res = data.results.get(wid, {}).get(world)
    rerun = reruns.get(world)
    if world in ("reference", "null"):
        label, verdict = Text(world), Text("")
    else:
        label = Text(f"{world} (this trial)" if world == trial_id else world,
                     style="bold" if world == trial_id else "")
        v = data.verdicts.get(world)
        verdict = verdict_text(app, str(v.verdict), bold=False) if v else Text("")
    runs = ", ".join(res.runs) if res else ("not run" if rerun is None else "")
    if rerun is not None:
        runs = f"rerun {rerun[1]}" + (f"; stored: {res.outcome}" if res else "")
    return [label, outcome_text(res, rerun), runs, verdict]
