"""One trial under review: prompt, checklist and input domain, the two diffs, evidence, witnesses, verdict.

Everything is read in one thread worker when the screen opens (and again after a ruling or a
rerun); the witness pane reruns a witness with ``replay_witness`` in its own worker, and ruling a
domain constraint wrong runs in a worker too (``rule_constraint_with_form``).

Keys work whatever has focus: the tab keys are priority bindings, and switching tabs moves the
focus into the new tab (a focused widget left behind in a hidden tab would pull the tabs back).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical, VerticalScroll
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

from testjack_tui.app.checklist import LEGEND, T0_MARKS, ChecklistRow, build_checklist
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
from testjack_tui.app.widgets.verdict import HELP_BINDINGS, LABELS, add_keyed, source_text, theme_text, verdict_text
from testjack_tui.app.workers import load
from testjack_tui.model import Evidence, EvidenceKind, Verdict, WitnessResult

# Verdicts whose rule says why the audit could not decide: shown beside the verdict wherever it is.
EXPLAINED = (Verdict.UNAUDITED, Verdict.NOT_REPRODUCED)
TABS = Binding.Group("Tabs", compact=True)
# the widget each tab's key puts the focus on
TAB_FOCUS = {"tab-prompt": "#requirements", "tab-diff": "#diff", "tab-evidence": "#evidence",
             "tab-witnesses": "#witnesses", "tab-verdict": "#trial-rulings"}
MATRIX_LEGEND = ("ref, null, this trial: outcome on each world (↻ rerun this session) · others: the task's other "
                 "passing trials that fail it · domain outside/unplaced: refutes nothing · below: every passing "
                 "trial (Enter opens it) · x rerun here, X on every trial")


def _outcome_style(outcome: str) -> str:
    return {"pass": "green", "fail": "bold red", "error": "bold yellow"}.get(outcome, "")


def _outcome(result: WitnessResult | None, rerun: tuple[str, str] | None = None) -> Text:
    if rerun is not None:  # a rerun of this session: shown over the stored outcome, marked ↻
        return Text(f"↻ {rerun[0]}", style=_outcome_style(rerun[0]))
    if result is None:
        return Text("—", style="dim")
    return Text(str(result.outcome), style=_outcome_style(str(result.outcome)))


class TrialScreen(Screen):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    BINDINGS = [
        *HELP_BINDINGS,
        Binding("escape", "back", "Back", tooltip="Back to where you were"),
        Binding("1", "tab('tab-prompt')", "Prompt", group=TABS, priority=True,
                tooltip="The prompt, its requirements checklist and its input domain"),
        Binding("2", "tab('tab-diff')", "Diff", group=TABS, priority=True,
                tooltip="The trial's and the reference's changes side by side"),
        Binding("3", "tab('tab-evidence')", "Evidence", group=TABS, priority=True,
                tooltip="Ghost branches, detector hits, mutants, slow findings"),
        Binding("4", "tab('tab-witnesses')", "Witnesses", group=TABS, priority=True,
                tooltip="The task's witnesses: their outcomes on every world and every passing trial"),
        Binding("5", "tab('tab-verdict')", "Verdict", group=TABS, priority=True,
                tooltip="The verdict, where it came from, the rulings"),
        Binding("m", "mark_reviewed", "Mark reviewed", tooltip="Mark this trial reviewed"),
        Binding("o", "override", "Override verdict", tooltip="Set this trial's verdict, with a reason"),
        Binding("u", "undo_ruling", "Undo ruling", show=False,
                tooltip="Undo the override that decided this verdict (or the ruling highlighted on the "
                        "Verdict tab), with a reason"),
        Binding("x", "rerun", "Rerun witness",
                tooltip="Run the highlighted witness again on the reference and this trial"),
        Binding("X", "rerun_all", "Rerun witness on every trial", show=False,
                tooltip="Run the highlighted witness again on the reference and every passing trial of the task"),
        Binding("A", "rule('ambiguous')", "Rule ambiguous", show=False,
                tooltip="Rule the highlighted witness ambiguous (a prompt defect)"),
        Binding("N", "rule('necessary')", "Rule necessary", show=False,
                tooltip="Rule the highlighted witness necessary"),
        Binding("C", "rule_constraint", "Rule constraint wrong", show=False,
                tooltip="Rule the highlighted constraint of the input domain wrong (with a reason): "
                        "witnesses are placed again without it"),
        Binding("w", "manual_witness", "Write witness", show=False, tooltip="Write a manual witness for this trial"),
    ]

    def __init__(self, run_id: str, trial_id: str) -> None:
        super().__init__(classes="trial-screen")
        self.run_id = run_id
        self.trial_id = trial_id
        self.data: TrialData | None = None
        self.witness_id: str | None = None
        self.constraint_id: str | None = None
        self.checklist: list[ChecklistRow] = []
        self.checklist_key: str | None = None
        # reruns of this session, not kept in the store: witness id -> world -> (outcome, detail)
        self.reruns: dict[str, dict[str, tuple[str, str]]] = {}
        self.outcome_rows: list[str] = []  # the worlds of the witness detail's rows, in order

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.trial_id, id="trial-head", classes="summary")
        with TabbedContent(initial="tab-prompt", id="trial-tabs"):
            with TabPane("1 Prompt", id="tab-prompt"):
                with Container(id="prompt-split", classes="split"):
                    with VerticalScroll(id="prompt-pane"):
                        yield Markdown("", id="prompt")
                    with Vertical(id="checklist-pane"):
                        yield Static("Checklist", id="checklist-title", classes="section-title")
                        yield DataTable(id="requirements", cursor_type="row")
                        yield Static("", id="checklist-detail")
                        yield Static(LEGEND, id="checklist-legend", classes="legend")
                        yield Static("Input domain", id="domain-title", classes="section-title")
                        yield DataTable(id="domain", cursor_type="row")
                        yield Static("", id="constraint-detail")
            with TabPane("2 Diff", id="tab-diff"):
                yield DiffView(id="diff")
            with TabPane("3 Evidence", id="tab-evidence"):
                yield DataTable(id="evidence", cursor_type="row")
                yield Static("", id="evidence-detail")
            with TabPane("4 Witnesses", id="tab-witnesses"):
                with Vertical(id="witness-pane"):
                    yield DataTable(id="witnesses", cursor_type="row")
                    yield Static(MATRIX_LEGEND, id="witness-legend", classes="legend")
                    with Container(id="witness-detail", classes="split"):
                        with VerticalScroll(id="witness-info"):
                            # which trials fail it first: the matrix's row above says which witness
                            yield DataTable(id="witness-outcomes", cursor_type="row")
                            yield Static("", id="witness-head")
                        with Vertical(id="witness-source"):
                            yield TextArea("", id="witness-code", read_only=True, show_line_numbers=True)
                            with VerticalScroll(id="witness-log-pane"):
                                yield Static("", id="witness-log", markup=False)
            with TabPane("5 Verdict", id="tab-verdict"):
                with VerticalScroll():
                    yield Static("", id="verdict-detail")
                    yield DataTable(id="trial-rulings", cursor_type="row")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.title = f"Trial {self.trial_id}"
        add_keyed(self.query_one("#requirements", DataTable), "kind", "T0", "this trial", "witnesses", "requirement")
        add_keyed(self.query_one("#domain", DataTable), "constraint", "ruling", "from", "kind", "broken by", "source")
        add_keyed(self.query_one("#evidence", DataTable), "kind", "detector", "where", "detail", "in prompt")
        add_keyed(self.query_one("#witnesses", DataTable),
                  "witness", "class", "ρ", "ref", "null", "this trial", "others", "domain", "requirement")
        add_keyed(self.query_one("#witness-outcomes", DataTable), "world", "outcome", "runs", "verdict")
        add_keyed(self.query_one("#trial-rulings", DataTable), "#", "on", "value", "before", "by", "at", "reason")
        code = self.query_one("#witness-code", TextArea)
        try:
            code.language = "python"
        except Exception:  # textual[syntax] (tree-sitter) missing: plain text
            pass
        self.query_one("#requirements", DataTable).focus()
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
        task = data.task
        malformed = Text(f" (malformed: {shorten(task.malformed_reason or 'the reference fails T0', 50)})",
                         style="bold") if task.malformed else ""
        head = Text.assemble(
            (t.id, "bold"), f"  task {t.task_id}", malformed,
            f" · model {t.model or '?'} · agent {t.agent or '?'} · official {t.official} · ",
            verdict_text(self.app, str(v.verdict)), " (", source_text(v), ")",
            (f": {v.rule}" if v.verdict in EXPLAINED and v.rule else ""),
            ("  reviewed" if t.reviewed else ""),
        )
        self.query_one("#trial-head", Static).update(head)
        self.query_one("#prompt", Markdown).update(task.prompt or "*(no prompt)*")
        self._show_checklist(data)
        self._show_domain(data)
        self.query_one("#diff", DiffView).show(data.files)
        self._show_evidence(data)
        self._show_witnesses(data)
        self._show_verdict(data)

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
        style = {"pass": "text-success", "fail": "error", "fail-no-refute": "warning"}.get(r.trial_state, "text-muted")
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
        elif data.evidence_gathered:
            self.query_one("#evidence-detail", Static).update(Text(
                "No evidence for this trial: T0 runs every line it changes, no detector fired and no mutant "
                "survived.", style="dim"))
        else:
            self.query_one("#evidence-detail", Static).update(Text(
                "No evidence for this trial yet: the audit has not looked (a on the trial list audits the run).",
                style="dim"))

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
            head = Text.assemble((str(e.kind).replace("_", " "), "bold"), f" ({e.detector}){where}",
                                 " · Enter shows the line in the diff" if e.file else "")
        self.query_one("#evidence-detail", Static).update(Text.assemble(head, "\n", e.detail))

    # ------------------------------------------------------------------ the witness matrix

    def _failing_others(self, wid: str) -> tuple[int, int]:
        """(trials failing, trials run) among the task's passing trials other than this one."""
        assert self.data is not None
        results = self.data.results.get(wid, {})
        reruns = self.reruns.get(wid, {})
        seen = fails = 0
        for t in self.data.passing:
            if t == self.trial_id:
                continue
            outcome = reruns[t][0] if t in reruns else (str(results[t].outcome) if t in results else None)
            if outcome is None:
                continue
            seen += 1
            fails += outcome != "pass"
        return fails, seen

    def _matrix_cells(self, w) -> list[Any]:
        assert self.data is not None
        res = self.data.results.get(w.id, {})
        reruns = self.reruns.get(w.id, {})
        cls = str(w.classification) if w.classification else "?"
        fails, seen = self._failing_others(w.id)
        others = Text(f"{fails}/{seen} fail" if seen else "—", style="bold" if fails else "dim")
        grounding = str(w.grounding) if w.grounding is not None else ""
        return [
            w.id,
            verdict_text(self.app, cls, bold=False) if cls == "ambiguous" else cls,
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
            runs = ", ".join(res.runs) if res else ("not run" if rerun is None else "")
            if rerun is not None:
                runs = f"rerun {rerun[1]}" + (f"; stored: {res.outcome}" if res else "")
            outcomes.add_row(label, _outcome(res, rerun), runs, verdict, key=world)
        if self.outcome_rows:
            outcomes.move_cursor(row=min(keep, len(self.outcome_rows) - 1))

    def _show_verdict(self, data: TrialData) -> None:
        v = data.verdict
        live = [r for r in data.witness_rulings.values()]
        text = Text.assemble(
            ("Verdict: ", "bold"), verdict_text(self.app, str(v.verdict)),
            "\nsource: ", source_text(v),
            (f"\nwhy {LABELS.get(str(v.verdict), str(v.verdict))}: " if v.verdict in EXPLAINED else "\nrule: "),
            (v.rule or "—", "bold" if v.verdict in EXPLAINED else ""),
            f"\nrefuting witnesses: {', '.join(v.witnesses) or 'none'}",
            (f"\nrulings in force on this task's witnesses: "
             + "; ".join(f"#{r.id} {r.target_id} {r.value}" for r in live) if live else ""),
            f"\nbenchmark: {data.trial.official}; T0 recomputed: {data.trial.recomputed or 'not yet'}",
            (f"\nerror: {data.trial.error}" if data.trial.error else ""),
            f"\nupdated: {v.updated_at}",
            ("\n\nu undoes the ruling that decided it (asks for a reason)" if v.ruling_id else
             "\n\no overrides it (asks for a reason)"),
        )
        self.query_one("#verdict-detail", Static).update(text)
        table = self.query_one("#trial-rulings", DataTable)
        table.clear()
        for r in data.rulings:
            value = f"undo #{r.undoes}" if r.undoes is not None else r.value
            table.add_row(str(r.id), f"{r.target} {r.target_id}", value, r.before, r.author, r.created_at, r.reason,
                          key=str(r.id))

    # ------------------------------------------------------------------ events

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        table = event.data_table.id
        if table == "witnesses" and event.row_key.value:
            self._show_witness(event.row_key.value)
        elif table == "domain" and event.row_key.value:
            self._show_constraint(event.row_key.value)
        elif table == "requirements" and event.row_key.value:
            self._show_checklist_row(event.row_key.value)
        elif table == "evidence" and event.row_key.value is not None:
            self._show_evidence_item(int(event.row_key.value))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        table = event.data_table.id
        if table == "evidence" and self.data is not None:
            e = self.data.evidence[int(event.row_key.value)]
            self.jump_to_evidence(e)
        elif table == "witness-outcomes" and self.data is not None:
            world = event.row_key.value
            if world in ("reference", "null", None):
                self.notify(f"the {world} world is no trial to open", severity="warning", timeout=3)
            elif world == self.trial_id:
                self.notify(f"{world} is the trial on screen", timeout=3)
            else:
                self.open_other_trial(world)

    def open_other_trial(self, trial_id: str) -> None:
        """Jump to another trial of the task (Escape comes back here)."""
        screen = TrialScreen(self.run_id, trial_id)
        self.app.push_screen(screen)
        screen.call_after_refresh(screen.action_tab, "tab-witnesses")

    def jump_to_evidence(self, e: Evidence) -> None:
        if not e.file:
            what = "a slow finding" if e.kind == EvidenceKind.SLOW else "this evidence"
            self.notify(f"{what} has no line in the diff", severity="warning")
            return
        self.action_tab("tab-diff")
        diff = self.query_one("#diff", DiffView)
        if diff.jump_to(e.file, e.line):
            diff.focus()
        else:
            self.notify(f"{e.file or 'this evidence'} is not in the diff", severity="warning")

    # ------------------------------------------------------------------ actions

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_tab(self, tab: str) -> None:
        tabs = self.query_one(TabbedContent)
        # Focus first into the new tab: a widget focused in the old one would, once hidden, hand
        # the focus to its neighbour and pull the tabs back (a tab follows its focused widget).
        target = self.query_one(TAB_FOCUS[tab])
        tabs.active = tab
        target.focus()

    def action_mark_reviewed(self) -> None:
        run_id, trial_id = self.run_id, self.trial_id

        def done(_: Any) -> None:
            self.notify(f"{trial_id} marked reviewed")
            self.app.post_message(StoreChanged(run_id))

        load(self, "mark reviewed", lambda store: store.set_reviewed(run_id, trial_id, True), done)

    def action_override(self) -> None:
        current = str(self.data.verdict.verdict) if self.data else "?"
        override_with_form(self, self.run_id, self.trial_id, current)

    def action_undo_ruling(self) -> None:
        """Undo the ruling highlighted on the Verdict tab, else the override that decided the verdict."""
        if self.data is None:
            return
        from testjack_tui.app.screens.rulings import undo_with_form

        table = self.query_one("#trial-rulings", DataTable)
        ruling_id = None
        if self.query_one(TabbedContent).active == "tab-verdict" and table.row_count:
            key, _ = table.coordinate_to_cell_key((table.cursor_row, 0))
            ruling_id = int(key.value)
        elif self.data.verdict.ruling_id:
            ruling_id = self.data.verdict.ruling_id
        if ruling_id is None:
            self.notify("no override decided this verdict; on the Verdict tab (5), u undoes the highlighted ruling",
                        severity="warning")
            return
        undo_with_form(self, self.run_id, ruling_id)

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
        self._rerun(every_trial=False)

    def action_rerun_all(self) -> None:
        self._rerun(every_trial=True)

    def _rerun(self, every_trial: bool) -> None:
        if not self.witness_id:
            self.notify("no witness highlighted", severity="warning")
            return
        from testjack_tui.audit.replay import replay_witness

        wid, trial_id = self.witness_id, self.trial_id
        where = "every passing trial" if every_trial else trial_id
        self.notify(f"rerunning {wid} on the reference and {where}…")

        def done(lines: list[tuple[str, str, str]]) -> None:
            self.reruns.setdefault(wid, {}).update({world: (outcome, detail) for world, outcome, detail in lines})
            summary = "; ".join(f"{world}: {outcome}" for world, outcome, _ in lines[:6])
            more = f" and {len(lines) - 6} more" if len(lines) > 6 else ""
            self.notify(f"rerun of {wid}: {summary}{more}", title="Rerun", timeout=12)
            self._redraw_witness(wid)

        load(self, f"replay {wid}", lambda store: replay_witness(store, wid, None if every_trial else trial_id), done)

    def _redraw_witness(self, wid: str) -> None:
        """Every row a rerun touched: the witness's row of the matrix and its detail."""
        if self.data is None:
            return
        w = next((x for x in self.data.witnesses if x.id == wid), None)
        if w is None:
            return
        table = self.query_one("#witnesses", DataTable)
        for column, value in zip(("witness", "class", "ρ", "ref", "null", "this trial", "others", "domain",
                                  "requirement"), self._matrix_cells(w)):
            table.update_cell(wid, column, value)
        if self.witness_id == wid:
            self._show_witness_outcomes(wid)

    def action_manual_witness(self) -> None:
        from testjack_tui.app.screens.manual import ManualWitnessScreen

        self.app.push_screen(ManualWitnessScreen(self.run_id, self.trial_id))
