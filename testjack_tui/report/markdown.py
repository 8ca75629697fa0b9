"""The report as Markdown, one function per section; the HTML page is rendered from this text."""

from __future__ import annotations

from collections.abc import Callable

from testjack_tui.audit.metrics import REFUTING
from testjack_tui.figures import cost, interval, pct, refuted_share
from testjack_tui.model import Classification, EvidenceKind, Grounding, Verdict
from testjack_tui.report.leaderboard import rank_text
from testjack_tui.report.markdown_escape import code, fence, text
from testjack_tui.report.model import Report, TrialEntry, WitnessEntry

UNREAD_NOTE = ("TestJack did not understand these sentences of P; inputs beyond the examples are not used to "
               "refute (a witness whose call goes beyond the inputs P's examples and T0 pass is unplaced).")

LEADERBOARD_NOTE = (
    "Before: resolution by the benchmark's own tests. After: refuted trials (reward hacks included) "
    "and trials not reproduced here count as failures; unaudited trials count as passes, and the 95% "
    "interval (Wilson, over the model's trials) also covers what they may hold. `2=` is a shared rank. A change marked "
    "\"within the 95% intervals\" swaps models whose intervals overlap: it is not evidence that one "
    "is better than the other."
)

Lines = list[str]


def markdown_text(report: Report) -> str:
    sections: list[Callable[[Report], Lines]] = [
        _title, _summary, _leaderboard, _malformed, _null_passing, _refutations, _prompt_defects,
        _needs_ruling, _outside_domain, _unread_sentences, _slow, _trials, _evidence, _rulings,
    ]
    return "\n".join(line for section in sections for line in section(report))


def _title(report: Report) -> Lines:
    run = report.run
    out = [f"# TestJack audit: {text(run.name)}", ""]
    if run.benchmark:  # two trailing spaces: a line break inside the paragraph
        out += [f"Benchmark: {text(run.benchmark)}  ", f"Run id: {code(run.id)}", ""]
    return out


def _summary(report: Report) -> Lines:
    s = report.summary
    return [
        "## Summary",
        "",
        "| trials | passing | refuted | reward hacks | sound | unaudited | resolution before | resolution after |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        f"| {s.trials} | {s.passing} | {refuted_share(s.refuted, s.refuted_pct)} | {s.reward_hack} "
        f"| {s.sound} | {s.unaudited} | {pct(s.resolution_before)} | {pct(s.resolution_after)} |",
        "",
        f"Ambiguous witnesses (prompt defects): {s.ambiguous_witnesses}. "
        f"Witnesses that need a ruling: {s.needs_ruling} (on {s.needs_ruling_trials} trials "
        f"nothing else refutes). Malformed tasks: {s.malformed_tasks}. "
        f"Not reproduced (T0 recomputed here does not pass): {s.not_reproduced}. "
        f"Witnesses outside the input domain (they refute nothing): {s.outside_domain_witnesses}. "
        f"Slow findings: {s.slow_findings}. "
        f"Executions: {s.executions}. LLM tokens: {s.llm_tokens}, cost {cost(s.cost_usd)}.",
        "",
    ]


def _leaderboard(report: Report) -> Lines:
    if not report.leaderboard:
        return []
    out = ["## Leaderboard (corrected)", "",
           "| rank | model | trials | passes | before | refuted | reward hacks | unaudited | after | after, 95% "
           "| rank before | change |",
           "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in report.leaderboard:
        out.append(
            f"| {rank_text(r.rank_after, r.tied_after)} | {text(r.model)} | {r.trials} | {r.passing} "
            f"| {pct(r.resolution_before)} | {r.refuted} | {r.reward_hack} | {r.unaudited} "
            f"| {pct(r.resolution_after)} | {interval(r.resolution_after_95)} "
            f"| {rank_text(r.rank_before, r.tied_before)} | {text(r.change)} |"
        )
    return out + ["", LEADERBOARD_NOTE, ""]


def _malformed(report: Report) -> Lines:
    malformed = [t for t in report.tasks if t.malformed]
    if not malformed:
        return []
    out = ["## Malformed tasks", ""]
    for t in malformed:  # the reason's first line sums up; the lines after it list every test
        first, _, rest = t.malformed_reason.partition("\n")
        out.append(f"- {code(t.id)}: {text(first)} (its trials are not refuted)")
        out += [f"    - {code(line)}" for line in rest.splitlines() if line.strip()]
    return out + [""]


def _null_passing(report: Report) -> Lines:
    tasks = [t for t in report.tasks if t.null_passing_tests]
    if not tasks:
        return []
    return (["## Graded tests that pass without any fix", ""]
            + [f"- {code(t.id)}: {', '.join(code(x) for x in t.null_passing_tests)}" for t in tasks] + [""])


def _refutations(report: Report) -> Lines:
    refuted = [t for t in report.trials if t.verdict in REFUTING]
    out = ["## Refutations", ""]
    if not refuted:
        out += ["No trial is refuted.", ""]
    witnesses = {w.id: w for w in report.witnesses}
    for t in refuted:
        out += _refutation(t, [witnesses[w] for w in t.witnesses if w in witnesses])
    return out


def _refutation(t: TrialEntry, witnesses: list[WitnessEntry]) -> Lines:
    label = "reward hack" if t.verdict == Verdict.REWARD_HACK else "refuted"
    out = [f"### {code(t.id)} ({text(t.model)}, task {code(t.task)}): {label}", "",
           f"Verdict source: {t.verdict_source} ({text(t.verdict_rule)}).", ""]
    for w in witnesses:
        res = w.results
        out += [
            f"Witness {code(w.id)} checks: {text(w.requirement)} ({w.classification}, rho {w.rho:.2f}).",
            "",
            f"Outcomes: reference {res.get('reference', '?')}, null {res.get('null', '?')}, "
            f"this trial {res.get(t.id, '?')}. Replay: {code(f'{w.replay} --trial {t.id}')}",
            "",
            *fence(w.code, "python"),
            "",
        ]
    if t.audit_report:
        out += ["Audit report:", "", t.audit_report.strip(), ""]
    hits = [e for e in t.evidence if e.kind == EvidenceKind.DETECTOR]
    if hits:
        out += ["Detector hits:", ""] + [f"- {text(e.file)}:{e.line}: {text(e.detail)}" for e in hits] + [""]
    return out


def _prompt_defects(report: Report) -> Lines:
    defects = [w for w in report.witnesses if w.classification == Classification.AMBIGUOUS]
    if not defects:
        return []
    return (["## Prompt defects (ambiguous requirements; they refute nothing)", ""]
            + [f"- {code(w.id)} on task {code(w.task)}: {text(w.requirement)} (rho {w.rho:.2f})" for w in defects] + [""])


def _needs_ruling(report: Report) -> Lines:
    if not report.needs_ruling:
        return []
    out = ["## Needs ruling (the evidence cannot classify these; they refute nothing until ruled)", ""]
    for u in report.needs_ruling:
        trials = f": {', '.join(code(t) for t in u.would_refute)}" if u.would_refute else ""
        out.append(f"- {code(u.witness)} on task {code(u.task)}: {text(u.requirement)}. Why: {text(u.because)}. "
                   f"Ruled necessary, it refutes {len(u.would_refute)} trial(s){trials}. {code(u.rule)}")
    return out + [""]


def _unread(report: Report) -> list[tuple[str, list[str]]]:
    """(task id, its unread sentences of P, each once) for every task with one an analyst has not ruled wrong."""
    out: list[tuple[str, list[str]]] = []
    for t in report.tasks:
        said: list[str] = []
        for c in t.domain:
            if c.kind == "unread" and not c.ruled_wrong and c.text not in said:
                said.append(c.text)
        if said:
            out.append((t.id, said))
    return out


def _outside_domain(report: Report) -> Lines:
    outside = [w for w in report.witnesses if w.grounding in (Grounding.OUTSIDE_DOMAIN, Grounding.UNPLACED)]
    if not outside:
        return []
    unread_tasks = {task for task, _ in _unread(report)}
    domain = {c.id: c for t in report.tasks for c in t.domain}
    out = ["## Witnesses outside the input domain (they refute nothing)", "",
           "TestJack never refutes on an input the prompt rules out. These witnesses' inputs break a "
           "constraint of the task's domain, or cannot be checked against it.", ""]
    for w in outside:
        broken = "; ".join(f"{text(domain[c].text)} (P: \"{text(domain[c].source)}\")" if c in domain else text(c)
                           for c in w.breaks)
        where = ("its input cannot be placed in the domain"
                 + (" (built by code, or beyond the inputs P and T0 show where P has an unread sentence)"
                    if w.task in unread_tasks else ""))
        out.append(f"- {code(w.id)} on task {code(w.task)}: {text(w.requirement)}: " + (f"breaks {broken}" if broken else where))
    return out + [""]


def _unread_sentences(report: Report) -> Lines:
    tasks = _unread(report)
    if not tasks:
        return []
    out = ["## Unread sentences of P", "", UNREAD_NOTE, ""]
    for task_id, said in tasks:
        out.append(f"- task {code(task_id)}:")
        out += [f"  - unread: \"{text(x)}\"" for x in said]
    return out + [""]


def _slow(report: Report) -> Lines:
    slow = [(t, e) for t in report.trials for e in t.evidence if e.kind == EvidenceKind.SLOW]
    if not slow:
        return []
    return (["## Slow findings (not refutations: the prompt states no time bound)", ""]
            + [f"- {code(t.id)}: {text(e.detail)}" for t, e in slow] + [""])


def _trials(report: Report) -> Lines:
    out = ["## Trials", "", "| trial | task | model | official | verdict | source | evidence |",
           "| --- | --- | --- | --- | --- | --- | ---: |"]
    out += [f"| {code(t.id)} | {code(t.task)} | {text(t.model)} | {t.official} | {t.verdict} "
            f"| {t.verdict_source} | {len(t.evidence)} |" for t in report.trials]
    return out + [""]


def _evidence(report: Report) -> Lines:
    with_evidence = [t for t in report.trials if t.evidence]
    if not with_evidence:
        return []
    out = ["## Evidence", ""]
    for t in with_evidence:
        out.append(f"- {code(t.id)}")
        out += [f"  - {e.kind}: {text(e.file)}:{e.line}: {text(e.detail)}" for e in t.evidence]
    return out + [""]


def _rulings(report: Report) -> Lines:
    if not report.rulings:
        return []
    out = ["## Analyst rulings", "", "| # | on | value | before | by | when | reason |",
           "| ---: | --- | --- | --- | --- | --- | --- |"]
    for r in report.rulings:
        value = f"undo #{r.undoes}" if r.undoes else r.value
        out.append(f"| {r.id} | {r.target} {code(r.target_id)} | {text(value)} | {text(r.before)} | {text(r.author)} "
                   f"| {r.at} | {text(r.reason)} |")
    return out + [""]
