"""One trial under review: prompt, checklist and input domain, the two diffs, evidence, witnesses, verdict.

Everything is read in one thread worker when the screen opens (and again after a ruling or a
rerun); the witness pane reruns a witness with ``replay_witness`` in its own worker, and ruling a
domain constraint wrong runs in a worker too (``rule_constraint_with_form``).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import (
    DataTable,
    Footer,
    Header,
    Markdown,
    Static,
    TabbedContent,
    TabPane,
    TextArea,
)

from testjack_tui.app.messages import StoreChanged
from testjack_tui.app.screens.override import override_with_form
from testjack_tui.app.screens.trial_data import TrialData, read_trial
from testjack_tui.app.widgets.diff_view import DiffView
from testjack_tui.app.widgets.domain import (
    constraint_detail,
    domain_title,
    grounding_line,
    grounding_text,
    origin,
    ruling_text,
    shorten,
)
from testjack_tui.app.widgets.verdict import LABELS, add_keyed, theme_text, verdict_text
from testjack_tui.app.workers import load
from testjack_tui.model import Evidence, EvidenceKind, Verdict, WitnessResult

# Verdicts whose rule says why the audit could not decide: shown beside the verdict wherever it is.
EXPLAINED = (Verdict.UNAUDITED, Verdict.NOT_REPRODUCED)


def _mark(value: bool | None) -> Text:
    if value is None:
        return Text("?", style="dim")
    return Text("✓", style="bold green") if value else Text("✗", style="bold red")


def _outcome(result: WitnessResult | None) -> Text:
    if result is None:
        return Text("—", style="dim")
    style = {"pass": "green", "fail": "bold red", "error": "bold yellow"}.get(str(result.outcome), "")
    return Text(str(result.outcome), style=style)


class TrialScreen(Screen):
    BINDINGS = [
        Binding("escape", "back", "Back", tooltip="Back to the trial list"),
        Binding("1", "tab('tab-prompt')", "Prompt", tooltip="The prompt, its requirements checklist and its input domain"),
        Binding("2", "tab('tab-diff')", "Diff", tooltip="The trial's and the reference's changes side by side"),
        Binding("3", "tab('tab-evidence')", "Evidence", tooltip="Ghost branches, detector hits, mutants, slow findings"),
        Binding("4", "tab('tab-witnesses')", "Witnesses", tooltip="The task's validated witnesses"),
        Binding("5", "tab('tab-verdict')", "Verdict", tooltip="The verdict, where it came from, the rulings"),
        Binding("m", "mark_reviewed", "Mark reviewed", tooltip="Mark this trial reviewed"),
        Binding("o", "override", "Override verdict", tooltip="Set this trial's verdict, with a reason"),
        Binding("x", "rerun", "Rerun witness", tooltip="Run the highlighted witness again on the reference and this trial"),
        Binding("A", "rule('ambiguous')", "Rule ambiguous", tooltip="Rule the highlighted witness ambiguous (a prompt defect)"),
        Binding("N", "rule('necessary')", "Rule necessary", tooltip="Rule the highlighted witness necessary"),
        Binding("C", "rule_constraint", "Rule constraint wrong",
                tooltip="Rule the highlighted constraint of the input domain wrong (with a reason): "
                        "witnesses are placed again without it"),
        Binding("w", "manual_witness", "Write witness", tooltip="Write a manual witness for this trial"),
    ]

    def __init__(self, run_id: str, trial_id: str) -> None:
        super().__init__(classes="trial-screen")
        self.run_id = run_id
        self.trial_id = trial_id
        self.data: TrialData | None = None
        self.witness_id: str | None = None
        self.constraint_id: str | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.trial_id, id="trial-head", classes="summary")
        with TabbedContent(initial="tab-prompt", id="trial-tabs"):
            with TabPane("Prompt", id="tab-prompt"):
                with Horizontal():
                    with VerticalScroll(id="prompt-pane"):
                        yield Markdown("", id="prompt")
                    with Vertical(id="checklist-pane"):
                        yield Static("Requirements", classes="section-title")
                        yield DataTable(id="requirements", cursor_type="row")
                        yield Static("Input domain", id="domain-title", classes="section-title")
                        yield DataTable(id="domain", cursor_type="row")
                        yield Static("", id="constraint-detail")
            with TabPane("Diff", id="tab-diff"):
                yield DiffView(id="diff")
            with TabPane("Evidence", id="tab-evidence"):
                yield DataTable(id="evidence", cursor_type="row")
                yield Static("", id="evidence-detail")
            with TabPane("Witnesses", id="tab-witnesses"):
                with Horizontal():
                    yield DataTable(id="witnesses", cursor_type="row")
                    with Vertical(id="witness-detail"):
                        yield Static("", id="witness-head")
                        yield TextArea("", id="witness-code", read_only=True, show_line_numbers=True)
                        yield DataTable(id="witness-outcomes", cursor_type="row")
                        with VerticalScroll(id="witness-log-pane"):
                            yield Static("", id="witness-log", markup=False)
            with TabPane("Verdict", id="tab-verdict"):
                with VerticalScroll():
                    yield Static("", id="verdict-detail")
                    yield DataTable(id="trial-rulings", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.title = f"Trial {self.trial_id}"
        add_keyed(self.query_one("#requirements", DataTable), "kind", "requirement", "T0", "impl.", "witnesses")
        add_keyed(self.query_one("#domain", DataTable), "constraint", "ruling", "from", "kind", "broken by", "source")
        add_keyed(self.query_one("#evidence", DataTable), "kind", "detector", "where", "detail", "in prompt")
        add_keyed(self.query_one("#witnesses", DataTable),
                  "witness", "domain", "requirement", "class", "ρ", "null", "ref", "this trial")
        add_keyed(self.query_one("#witness-outcomes", DataTable), "world", "outcome", "runs")
        add_keyed(self.query_one("#trial-rulings", DataTable), "#", "on", "value", "before", "by", "at", "reason")
        code = self.query_one("#witness-code", TextArea)
        try:
            code.language = "python"
        except Exception:  # textual[syntax] (tree-sitter) missing: plain text
            pass
        self.refresh_data()

    def refresh_data(self) -> None:
        run_id, trial_id = self.run_id, self.trial_id
        load(self, "trial", lambda store: read_trial(store, run_id, trial_id), self._show)

    def store_changed(self, run_id: str) -> None:
        if run_id == self.run_id:
            self.refresh_data()

    # ------------------------------------------------------------------ drawing

    def _show(self, data: TrialData) -> None:
        self.data = data
        t, v = data.trial, data.verdict
        head = Text.assemble(
            (t.id, "bold"), f"  task {t.task_id} · model {t.model or '?'} · agent {t.agent or '?'} · official {t.official} · ",
            verdict_text(self.app, str(v.verdict)), f" ({v.source})",
            (f": {v.rule}" if v.verdict in EXPLAINED and v.rule else ""),
            ("  reviewed" if t.reviewed else ""),
        )
        self.query_one("#trial-head", Static).update(head)
        self.query_one("#prompt", Markdown).update(data.task.prompt or "*(no prompt)*")
        self._show_requirements(data)
        self._show_domain(data)
        self.query_one("#diff", DiffView).show(data.files)
        self._show_evidence(data)
        self._show_witnesses(data)
        self._show_verdict(data)

    def _show_requirements(self, data: TrialData) -> None:
        table = self.query_one("#requirements", DataTable)
        table.clear()
        by_text: dict[str, list[str]] = {}
        for w in data.witnesses:
            by_text.setdefault(w.requirement.strip().lower(), []).append(w.id)
        for r in data.requirements:
            table.add_row(str(r.kind), r.text, _mark(r.covered_by_t0), _mark(r.implemented),
                          ", ".join(by_text.get(r.text.strip().lower(), [])) or Text("none", style="dim"), key=r.id)
        listed = {r.text.strip().lower() for r in data.requirements}
        for w in data.witnesses:  # clauses known only from witnesses still belong on the checklist
            if w.requirement.strip().lower() not in listed:
                listed.add(w.requirement.strip().lower())
                table.add_row(str(w.requirement_kind), w.requirement, _mark(None), _mark(None),
                              ", ".join(by_text[w.requirement.strip().lower()]))

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
                Text(c.text, style="strike dim" if ruling else ""), ruling_text(self.app, ruling), origin(c), c.kind,
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

    def _show_evidence(self, data: TrialData) -> None:
        table = self.query_one("#evidence", DataTable)
        table.clear()
        for i, e in enumerate(data.evidence):
            where = f"{e.file}:{e.line}" if e.file else ""
            prompt = "" if e.mentioned_in_prompt is None else ("yes" if e.mentioned_in_prompt else "no")
            kind = theme_text(self.app, "slow", "warning", bold=True) if e.kind == EvidenceKind.SLOW else str(e.kind)
            table.add_row(kind, e.detector, where, shorten(e.detail, 90), prompt, key=str(i))
        if data.evidence:
            self._show_evidence_item(table.cursor_row)
        else:
            self.query_one("#evidence-detail", Static).update(Text("No evidence on this trial.", style="dim"))

    def _show_evidence_item(self, index: int) -> None:
        if self.data is None or not 0 <= index < len(self.data.evidence):
            return
        e = self.data.evidence[index]
        if e.kind == EvidenceKind.SLOW:
            head = Text.assemble(theme_text(self.app, "slow finding", "warning", bold=True),
                                 f" ({e.detector}): the trial gives the reference's answer far more slowly. "
                                 "A finding to read, never a refutation.")
        else:
            where = f" at {e.file}:{e.line}" if e.file else ""
            head = Text.assemble((str(e.kind).replace("_", " "), "bold"), f" ({e.detector}){where}")
        self.query_one("#evidence-detail", Static).update(Text.assemble(head, "\n", e.detail))

    def _show_witnesses(self, data: TrialData) -> None:
        table = self.query_one("#witnesses", DataTable)
        keep = self.witness_id
        table.clear()
        for w in data.witnesses:
            res = data.results.get(w.id, {})
            cls = str(w.classification) if w.classification else "?"
            table.add_row(
                w.id, grounding_text(self.app, w.grounding), w.requirement,
                verdict_text(self.app, cls, bold=False) if cls in ("ambiguous",) else cls,
                "" if w.rho is None else f"{w.rho:.2f}",
                _outcome(res.get("null")), _outcome(res.get("reference")), _outcome(res.get(data.trial.id)),
                key=w.id,
            )
        ids = [w.id for w in data.witnesses]
        if ids:
            target = keep if keep in ids else (data.verdict.witnesses[0] if data.verdict.witnesses and data.verdict.witnesses[0] in ids else ids[0])
            table.move_cursor(row=ids.index(target))
            self._show_witness(target)
        else:
            self.witness_id = None
            self.query_one("#witness-head", Static).update("No validated witness for this task yet.")

    def _show_witness(self, witness_id: str) -> None:
        if self.data is None:
            return
        w = next((x for x in self.data.witnesses if x.id == witness_id), None)
        if w is None:
            return
        self.witness_id = w.id
        refutes = w.id in self.data.verdict.witnesses
        head = Text.assemble(
            (w.id, "bold"), f"  {w.requirement_kind} · {w.classification or 'unclassified'} · ",
            f"ρ={w.rho:.2f} · " if w.rho is not None else "", f"origin {w.origin} · author {w.author}",
            (" · flaky" if w.flaky else ""), (" · refutes this trial" if refutes else ""),
            f"\n{w.requirement}\n", grounding_line(self.app, w, {c.id: c.text for c in self.data.task.domain}),
            f"\n{w.path}    replay: testjack replay {w.id} --trial {self.trial_id}",
        )
        self.query_one("#witness-head", Static).update(head)
        self.query_one("#witness-code", TextArea).load_text(w.code)
        outcomes = self.query_one("#witness-outcomes", DataTable)
        outcomes.clear()
        results = self.data.results.get(w.id, {})
        for world in ["null", "reference", self.trial_id]:
            res = results.get(world)
            label = "model (this trial)" if world == self.trial_id else world
            outcomes.add_row(label, _outcome(res), ", ".join(res.runs) if res else "", key=world)
        failing = sum(1 for t in self.data.passing if t in results and str(results[t].outcome) != "pass")
        outcomes.add_row("passing trials", f"{failing}/{len(self.data.passing)} fail",
                         "", key="all")
        res = results.get(self.trial_id) or results.get("reference")
        self.query_one("#witness-log", Static).update(res.log if res and res.log else "(no log)")

    def _show_verdict(self, data: TrialData) -> None:
        v = data.verdict
        text = Text.assemble(
            ("Verdict: ", "bold"), verdict_text(self.app, str(v.verdict)),
            f"\nsource: {v.source}" + (f" (ruling #{v.ruling_id})" if v.ruling_id else ""),
            (f"\nwhy {LABELS.get(str(v.verdict), str(v.verdict))}: " if v.verdict in EXPLAINED else "\nrule: "),
            (v.rule or "—", "bold" if v.verdict in EXPLAINED else ""),
            f"\nrefuting witnesses: {', '.join(v.witnesses) or 'none'}",
            f"\nbenchmark: {data.trial.official}; T0 recomputed: {data.trial.recomputed or 'not yet'}",
            (f"\nerror: {data.trial.error}" if data.trial.error else ""),
            f"\nupdated: {v.updated_at}",
        )
        self.query_one("#verdict-detail", Static).update(text)
        table = self.query_one("#trial-rulings", DataTable)
        table.clear()
        for r in data.rulings:
            table.add_row(str(r.id), f"{r.target} {r.target_id}", r.value, r.before, r.author, r.created_at, r.reason)

    # ------------------------------------------------------------------ events

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "witnesses" and event.row_key.value:
            self._show_witness(event.row_key.value)
        elif event.data_table.id == "domain" and event.row_key.value:
            self._show_constraint(event.row_key.value)
        elif event.data_table.id == "evidence" and event.row_key.value is not None:
            self._show_evidence_item(int(event.row_key.value))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "evidence" and self.data is not None:
            e = self.data.evidence[int(event.row_key.value)]
            self.jump_to_evidence(e)

    def jump_to_evidence(self, e: Evidence) -> None:
        if not e.file:
            what = "a slow finding" if e.kind == EvidenceKind.SLOW else "this evidence"
            self.notify(f"{what} has no line in the diff", severity="warning")
            return
        self.query_one(TabbedContent).active = "tab-diff"
        diff = self.query_one("#diff", DiffView)
        if diff.jump_to(e.file, e.line):
            diff.focus()
        else:
            self.notify(f"{e.file or 'this evidence'} is not in the diff", severity="warning")

    # ------------------------------------------------------------------ actions

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_mark_reviewed(self) -> None:
        run_id, trial_id = self.run_id, self.trial_id

        def done(_: Any) -> None:
            self.notify(f"{trial_id} marked reviewed")
            self.app.post_message(StoreChanged(run_id))

        load(self, "mark reviewed", lambda store: store.set_reviewed(run_id, trial_id, True), done)

    def action_override(self) -> None:
        current = str(self.data.verdict.verdict) if self.data else "?"
        override_with_form(self, self.run_id, self.trial_id, current)

    def action_rule(self, value: str) -> None:
        if not self.witness_id:
            self.notify("no witness highlighted", severity="warning")
            return
        from testjack_tui.app.screens.rulings import rule_with_form

        rule_with_form(self, self.run_id, self.witness_id, value)

    def action_rule_constraint(self) -> None:
        data = self.data
        if data is None or not data.task.domain:
            self.notify("this task has no input domain", severity="warning")
            return
        c = data.constraint(self.constraint_id)
        if c is None:
            self.notify("no constraint highlighted", severity="warning")
            return
        # Show the domain, so the constraint being ruled is in sight behind the reason form.
        self.query_one(TabbedContent).active = "tab-prompt"
        if c.id in data.wrong:
            self.notify(f"{c.id} is already ruled wrong (#{data.wrong[c.id].id}); undo that ruling in the rulings "
                        "(ctrl+r, then u)", severity="warning")
            return
        from testjack_tui.app.screens.rulings import rule_constraint_with_form

        rule_constraint_with_form(self, self.run_id, c.id, c.text)

    def action_rerun(self) -> None:
        if not self.witness_id:
            self.notify("no witness highlighted", severity="warning")
            return
        from testjack_tui.audit.replay import replay_witness

        wid, trial_id = self.witness_id, self.trial_id
        self.notify(f"rerunning {wid} on the reference and {trial_id}…")

        def done(lines: list[tuple[str, str, str]]) -> None:
            summary = "; ".join(f"{world}: {outcome} ({detail})" for world, outcome, detail in lines)
            self.notify(f"replay of {wid}: {summary}", timeout=12)
            outcomes = self.query_one("#witness-outcomes", DataTable)
            for world, outcome, detail in lines:
                outcomes.add_row(f"rerun: {world}", _outcome_text(outcome), detail)

        load(self, f"replay {wid}", lambda store: replay_witness(store, wid, trial_id), done)

    def action_manual_witness(self) -> None:
        from testjack_tui.app.screens.manual import ManualWitnessScreen

        self.app.push_screen(ManualWitnessScreen(self.run_id, self.trial_id))


def _outcome_text(outcome: str) -> Text:
    style = {"pass": "green", "fail": "bold red", "error": "bold yellow"}.get(outcome, "")
    return Text(outcome, style=style)
