"""The trial screen's Witnesses tab: the witness matrix, the highlighted witness's detail, and reruns.

A mixin of ``TrialScreen`` (which composes the widgets and reads ``TrialData``). A rerun (``x`` on
this trial, ``X`` on every passing trial of the task) runs in a thread worker with its own store
connection: ``rerun_witness`` stores each world's new outcome as the witness's result there and
recomputes the task's verdicts; the worker's result comes back as a message, and then every open
screen reads the store again. Rows a rerun ran are marked ``↻`` for the rest of the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import DataTable, Static, TextArea

from testjack_tui.app.messages import StoreChanged
from testjack_tui.review.trial_data import TrialData
from testjack_tui.app.widgets.domain import grounding_line, grounding_text
from testjack_tui.app.widgets.verdict import theme_text, verdict_text
from testjack_tui.app.workers import load
from testjack_tui.audit.verdicts import fails_on
from testjack_tui.model import Witness, WitnessResult

# The matrix's columns (a rerun updates its row's cells by these keys), and the outcome table's below it.
MATRIX_COLUMNS = ("witness", "class", "ρ", "ref", "null", "this trial", "others", "domain", "requirement")
OUTCOME_COLUMNS = ("world", "outcome", "runs", "verdict")
MATRIX_LEGEND = ("ref, null, this trial: outcome on each world (↻ rerun this session) · others: the task's other "
                 "passing trials that fail it · domain outside/unplaced: refutes nothing · below: every passing "
                 "trial (Enter opens it) · x rerun here, X on every trial")


def _outcome_style(outcome: str) -> str:
    return {"pass": "green", "fail": "bold red", "error": "bold yellow"}.get(outcome, "")


def _outcome(result: WitnessResult | None, rerun: Rerun | None = None) -> Text:
    if rerun is not None:  # a rerun of this session (stored since): marked ↻
        return Text(f"↻ {rerun.outcome}", style=_outcome_style(rerun.outcome))
    if result is None:
        return Text("—", style="dim")
    return Text(str(result.outcome), style=_outcome_style(str(result.outcome)))


@dataclass
class Rerun:
    """A world a witness ran on again in this session: its new outcome, and what the store had before."""

    outcome: str
    detail: str  # how long it took, and why it did not finish
    before: str | None  # the stored outcome it replaced (None: never run there)


class WitnessMatrix:
    """The Witnesses tab of ``TrialScreen`` (needs its ``data``, ``trial_id``, ``run_id``, ``witness_id``)."""

    data: TrialData | None
    run_id: str
    trial_id: str
    witness_id: str | None
    reruns: dict[str, dict[str, Rerun]]  # witness id -> world -> its rerun of this session
    outcome_rows: list[str]

    def _failing_others(self, w: Witness) -> tuple[int, int]:
        """(trials failing, trials run) among the task's passing trials other than this one."""
        assert self.data is not None
        results = self.data.results.get(w.id, {})
        reruns = self.reruns.get(w.id, {})
        seen = fails = 0
        for t in self.data.passing:
            if t == self.trial_id:
                continue
            outcome = reruns[t].outcome if t in reruns else (str(results[t].outcome) if t in results else None)
            if outcome is None:
                continue
            seen += 1
            fails += fails_on(w, outcome)  # as rho counts them: a patient witness's skip is not a failure
        return fails, seen

    def _matrix_cells(self, w) -> list[Any]:
        assert self.data is not None
        res = self.data.results.get(w.id, {})
        reruns = self.reruns.get(w.id, {})
        cls = str(w.classification) if w.classification else "?"
        fails, seen = self._failing_others(w)
        others = Text(f"{fails}/{seen} fail" if seen else "—", style="bold" if fails else "dim")
        grounding = str(w.grounding) if w.grounding is not None else ""
        return [
            w.id,
            verdict_text(self.app, cls, bold=False) if cls in ("ambiguous", "needs_ruling") else cls,
            "" if w.rho is None else f"{w.rho:.2f}",
            _outcome(res.get("reference"), reruns.get("reference")),
            _outcome(res.get("null"), reruns.get("null")),
            _outcome(res.get(self.trial_id), reruns.get(self.trial_id)),
            others,
            grounding_text(self.app, grounding, short=True) if grounding else Text("—", style="dim"),
            w.requirement,
        ]

    def _show_witnesses(self, data: TrialData) -> None:
        table = self.query_one("#witnesses", DataTable)
        keep = self.witness_id
        table.clear()
        for w in data.witnesses:
            table.add_row(*self._matrix_cells(w), key=w.id)
        ids = [w.id for w in data.witnesses]
        if ids:
            first = data.verdict.witnesses[0] if data.verdict.witnesses and data.verdict.witnesses[0] in ids else ids[0]
            target = keep if keep in ids else first
            table.move_cursor(row=ids.index(target))
            self._show_witness(target)
        else:
            self.witness_id = None
            self.query_one("#witness-head", Static).update(Text(
                "No validated witness for this task yet: a on the trial list audits the run, w writes one by hand.",
                style="dim"))
            self.query_one("#witness-outcomes", DataTable).clear()
            self.query_one("#witness-code", TextArea).load_text("")
            self.query_one("#witness-log", Static).update("")

    def _show_witness(self, witness_id: str) -> None:
        if self.data is None:
            return
        w = next((x for x in self.data.witnesses if x.id == witness_id), None)
        if w is None:
            return
        self.witness_id = w.id
        refutes = w.id in self.data.verdict.witnesses
        kind = str(w.requirement_kind)
        cls = str(w.classification) if w.classification else "unclassified"
        # "explicit requirement", or "implicit requirement, classified ambiguous"
        classified = f"{kind} requirement" + (f", classified {cls}" if cls != kind else "")
        ruling = self.data.witness_rulings.get(w.id)
        head = Text.assemble(
            (w.id, "bold"), f"  {classified}",
            f" (ruling #{ruling.id}: {ruling.value})" if ruling else "",
            f" · ρ={w.rho:.2f}" if w.rho is not None else "", f" · origin {w.origin} · author {w.author}",
            (" · flaky" if w.flaky else ""),
            theme_text(self.app, " · refutes this trial", "error", bold=True) if refutes else "",
            f"\n{w.requirement}\n", grounding_line(self.app, w, {c.id: c.text for c in self.data.task.domain}),
            f"\n{w.path or '(T0 itself, without the trial harness changes)'}    "
            f"replay: testjack replay {w.id} --trial {self.trial_id}",
        )
        self.query_one("#witness-head", Static).update(head)
        self.query_one("#witness-code", TextArea).load_text(w.code)
        self._show_witness_outcomes(w.id)
        results = self.data.results.get(w.id, {})
        res = results.get(self.trial_id) or results.get("reference")
        self.query_one("#witness-log", Static).update(res.log if res and res.log else "(no log)")

    def _show_witness_outcomes(self, wid: str) -> None:
        """The highlighted witness on the reference, the null world and every passing trial of the task."""
        assert self.data is not None
        outcomes = self.query_one("#witness-outcomes", DataTable)
        keep = outcomes.cursor_row
        outcomes.clear()
        results = self.data.results.get(wid, {})
        reruns = self.reruns.get(wid, {})
        worlds = ["reference", "null"] + self.data.passing
        if self.trial_id not in worlds:
            worlds.append(self.trial_id)  # a trial that does not pass T0: shown, never counted in ρ
        self.outcome_rows = worlds
        for world in worlds:
            res = results.get(world)
            rerun = reruns.get(world)
            if world in ("reference", "null"):
                label, verdict = Text(world), Text("")
            else:
                label = Text(f"{world} (this trial)" if world == self.trial_id else world,
                             style="bold" if world == self.trial_id else "")
                v = self.data.verdicts.get(world)
                verdict = verdict_text(self.app, str(v.verdict), bold=False) if v else Text("")
            runs = ", ".join(res.runs) if res else "not run"
            if rerun is not None:
                runs = f"rerun {rerun.detail}; " + (f"was {rerun.before}" if rerun.before else "not run before")
            outcomes.add_row(label, _outcome(res, rerun), runs, verdict, key=world)
        if self.outcome_rows:
            outcomes.move_cursor(row=min(keep, len(self.outcome_rows) - 1))

    def action_rerun(self) -> None:
        self._rerun(every_trial=False)

    def action_rerun_all(self) -> None:
        self._rerun(every_trial=True)

    def _rerun(self, every_trial: bool) -> None:
        if not self.witness_id:
            self.notify("no witness highlighted", severity="warning")
            return
        from testjack_tui.audit.replay import Replayed, rerun_witness

        wid, trial_id, run_id = self.witness_id, self.trial_id, self.run_id
        where = "every passing trial" if every_trial else trial_id
        stored = self.data.results.get(wid, {}) if self.data else {}
        before = {world: str(r.outcome) for world, r in stored.items()}  # what each row said until now
        self.notify(f"rerunning {wid} on the reference and {where}…")

        def done(ran: list[Replayed]) -> None:  # on the UI thread, once the results are stored
            self.reruns.setdefault(wid, {}).update({r.world: Rerun(r.outcome, r.detail, before.get(r.world))
                                                    for r in ran})
            summary = "; ".join(f"{r.world}: {r.outcome}" for r in ran[:6])
            more = f" and {len(ran) - 6} more" if len(ran) > 6 else ""
            self.notify(f"rerun of {wid} (stored; verdicts recomputed): {summary}{more}", title="Rerun", timeout=12)
            self._redraw_witness(wid)
            self.app.post_message(StoreChanged(run_id))  # every open screen reads the new results and verdicts

        load(self, f"rerun {wid}", lambda store: rerun_witness(store, wid, None if every_trial else trial_id), done)

    def _redraw_witness(self, wid: str) -> None:
        """Every row a rerun touched: the witness's row of the matrix and its detail."""
        if self.data is None:
            return
        w = next((x for x in self.data.witnesses if x.id == wid), None)
        if w is None:
            return
        table = self.query_one("#witnesses", DataTable)
        for column, value in zip(MATRIX_COLUMNS, self._matrix_cells(w)):
            table.update_cell(wid, column, value, update_width=True)  # "↻ pass" is wider than "pass"
        if self.witness_id == wid:
            self._show_witness_outcomes(wid)
