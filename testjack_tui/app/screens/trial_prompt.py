"""The trial screen's Prompt tab: the task's requirements checklist and its input domain.

A mixin of ``TrialScreen``, which composes the widgets and reads ``TrialData`` in a worker; these
methods only draw what was read (the checklist is built by ``testjack_tui.review.checklist``).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import DataTable, Static

from testjack_tui.review.checklist import T0_MARKS, ChecklistRow, build_checklist
from testjack_tui.review.trial_data import TrialData
from testjack_tui.app.widgets.domain import constraint_detail, domain_title, is_unread, origin_text, ruling_text, shorten
from testjack_tui.app.widgets.verdict import theme_text


class PromptTab:
    """The checklist and the input domain of ``TrialScreen`` (needs its ``data`` and cursors' keys)."""

    data: TrialData | None
    checklist: list[ChecklistRow]
    checklist_key: str | None
    constraint_id: str | None

    def _outcomes(self, data: TrialData) -> dict[str, dict[str, str]]:
        return {wid: {k: str(r.outcome) for k, r in res.items()} for wid, res in data.results.items()}

    def _show_checklist(self, data: TrialData) -> None:
        rows = build_checklist(data.task, data.requirements, data.witnesses, self._outcomes(data),
                               data.trial.id, data.passing, data.verdict.witnesses)
        self.checklist = rows
        table = self.query_one("#requirements", DataTable)
        keep = self.checklist_key
        table.clear()
        for r in rows:
            witnesses = (r.witnesses[0] + (f" +{len(r.witnesses) - 1}" if len(r.witnesses) > 1 else "")
                         if r.witnesses else Text("none", style="dim"))
            table.add_row(r.kind, self._t0_text(r.t0), self._trial_mark(r), witnesses, r.text, key=r.key)
        counts = {k: sum(1 for r in rows if r.kind == k) for k in ("stated", "input", "example", "not in P")}
        title = (f"Checklist: {counts['stated'] + counts['input']} requirements P states, "
                 f"{counts['example']} examples, {counts['not in P']} not in P")
        self.query_one("#checklist-title", Static).update(title)
        keys = [r.key for r in rows]
        if keys:
            # first time: the first requirement this trial breaks, like the matrix's refuting witness
            broken = next((r.key for r in rows if r.trial_state == "fail"), keys[0])
            target = keep if keep in keys else broken
            table.move_cursor(row=keys.index(target))
            self._show_checklist_row(target)
        else:
            self.query_one("#checklist-detail", Static).update(
                Text("No requirements: the prompt is empty and no witness names one.", style="dim"))

    def _t0_text(self, t0: str) -> Text:
        style = {"yes": "text-success", "partly": "warning", "no": "error"}.get(t0, "text-muted")
        return theme_text(self.app, T0_MARKS.get(t0, t0), style, bold=t0 in ("no", "partly"))

    def _trial_mark(self, r: ChecklistRow) -> Text:
        style = {"pass": "text-success", "fail": "error", "fail-no-refute": "warning",
                 "slow": "warning"}.get(r.trial_state, "text-muted")
        return theme_text(self.app, r.trial, style, bold=r.trial_state == "fail")

    def _show_checklist_row(self, key: str) -> None:
        row = next((r for r in self.checklist if r.key == key), None)
        if row is None:
            return
        self.checklist_key = key
        parts: list[Any] = [(row.text, "bold"), f"\n{row.kind} · from {row.source if row.source != row.text else 'P'}"]
        if row.constraints:
            parts.append(f" · input constraints {', '.join(row.constraints)}")
        parts += [f"\nT0: {T0_MARKS.get(row.t0, row.t0)}: {row.t0_why}"]
        parts += [f"\nthis trial: {row.trial_detail}" + (f" (witnesses {', '.join(row.witnesses)})" if row.witnesses
                                                          else "")]
        self.query_one("#checklist-detail", Static).update(Text.assemble(*parts))

    def _show_domain(self, data: TrialData) -> None:
        table = self.query_one("#domain", DataTable)
        keep = self.constraint_id
        table.clear()
        domain = data.task.domain
        broken: dict[str, list[str]] = {}
        for w in data.witnesses:
            for cid in w.breaks:
                broken.setdefault(cid, []).append(w.id)
        for c in domain:
            ruling = data.wrong.get(c.id)
            table.add_row(
                Text(c.text, style="strike dim" if ruling else "italic" if is_unread(c) else ""),
                ruling_text(self.app, ruling), origin_text(self.app, c), c.kind,
                ", ".join(broken.get(c.id, [])) or Text("none", style="dim"), shorten(c.source, 60),
                key=c.id,
            )
        self.query_one("#domain-title", Static).update(domain_title(domain, data.wrong))
        ids = [c.id for c in domain]
        if ids:
            target = keep if keep in ids else ids[0]
            table.move_cursor(row=ids.index(target))
            self._show_constraint(target)
        else:
            self.constraint_id = None
            self.query_one("#constraint-detail", Static).update(
                Text("No input domain for this task: not built yet, or P and T0 say nothing about the inputs.",
                     style="dim"))

    def _show_constraint(self, constraint_id: str) -> None:
        if self.data is None:
            return
        c = self.data.constraint(constraint_id)
        if c is None:
            return
        self.constraint_id = c.id
        breakers = [w.id for w in self.data.witnesses if c.id in w.breaks]
        self.query_one("#constraint-detail", Static).update(
            constraint_detail(self.app, c, self.data.wrong.get(c.id), breakers))
