"""Render the report dictionary as JSON, Markdown, or one self-contained HTML page."""

from __future__ import annotations

import html
import json
from typing import Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

REFUTING = ("refuted", "reward_hack")


def render(report: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return render_json(report)
    if fmt == "md":
        return render_markdown(report)
    if fmt == "html":
        return render_html(report)
    raise ValueError(f"unknown report format {fmt!r} (md, html, json)")


def render_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _witness_index(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {w["id"]: w for w in report["witnesses"]}


UNREAD_NOTE = ("TestJack did not understand these sentences of P; inputs beyond the examples are not used to "
               "refute (a witness whose call goes beyond the inputs P's examples and T0 pass is unplaced).")


def _unread(report: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """(task id, its unread sentences of P, each once) for every task with one an analyst has not ruled wrong."""
    out: list[tuple[str, list[str]]] = []
    for t in report["tasks"]:
        said: list[str] = []
        for c in t.get("domain", []):
            if c.get("kind") == "unread" and not c.get("ruled_wrong") and c["text"] not in said:
                said.append(c["text"])
        if said:
            out.append((t["id"], said))
    return out


def render_markdown(report: dict[str, Any]) -> str:
    run, s = report["run"], report["summary"]
    out: list[str] = [f"# TestJack audit: {run['name']}", ""]
    if run.get("benchmark"):
        out += [f"Benchmark: {run['benchmark']}  ", f"Run id: `{run['id']}`", ""]
    out += [
        "## Summary",
        "",
        "| trials | passing | refuted | reward hacks | sound | unaudited | resolution before | resolution after |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        f"| {s['trials']} | {s['passing']} | {s['refuted']} ({s['refuted_pct']:.1f}%) | {s['reward_hack']} "
        f"| {s['sound']} | {s['unaudited']} | {_pct(s['resolution_before'])} | {_pct(s['resolution_after'])} |",
        "",
        f"Ambiguous witnesses (prompt defects): {s['ambiguous_witnesses']}. "
        f"Witnesses that need a ruling: {s.get('needs_ruling', 0)} (on {s.get('needs_ruling_trials', 0)} trials "
        f"nothing else refutes). Malformed tasks: {s['malformed_tasks']}. "
        f"Not reproduced (T0 recomputed here does not pass): {s.get('not_reproduced', 0)}. "
        f"Witnesses outside the input domain (they refute nothing): {s.get('outside_domain_witnesses', 0)}. "
        f"Slow findings: {s.get('slow_findings', 0)}. "
        f"Executions: {s['executions']}. LLM tokens: {s['llm_tokens']}, cost ${s['cost_usd']:.4f}.",
        "",
    ]
    out += _leaderboard_markdown(report.get("leaderboard") or [])
    malformed = [t for t in report["tasks"] if t["malformed"]]
    if malformed:
        out += ["## Malformed tasks", ""]
        for t in malformed:  # the reason's first line sums up; the lines after it list every test
            first, _, rest = t["malformed_reason"].partition("\n")
            out.append(f"- `{t['id']}`: {first} (its trials are not refuted)")
            out += [f"    - `{line}`" for line in rest.splitlines() if line.strip()]
        out.append("")
    null_passing = [t for t in report["tasks"] if t["null_passing_tests"]]
    if null_passing:
        out += ["## Graded tests that pass without any fix", ""]
        out += [f"- `{t['id']}`: {', '.join(f'`{x}`' for x in t['null_passing_tests'])}" for t in null_passing]
        out.append("")

    witnesses = _witness_index(report)
    refuted = [t for t in report["trials"] if t["verdict"] in REFUTING]
    out += ["## Refutations", ""]
    if not refuted:
        out += ["No trial is refuted.", ""]
    for t in refuted:
        label = "reward hack" if t["verdict"] == "reward_hack" else "refuted"
        out += [
            f"### `{t['id']}` ({t['model']}, task `{t['task']}`): {label}",
            "",
            f"Verdict source: {t['verdict_source']} ({t['verdict_rule']}).",
            "",
        ]
        for wid in t["witnesses"]:
            w = witnesses.get(wid)
            if not w:
                continue
            res = w["results"]
            out += [
                f"Witness `{wid}` checks: {w['requirement']} ({w['classification']}, rho {w['rho']:.2f}).",
                "",
                f"Outcomes: reference {res.get('reference', '?')}, null {res.get('null', '?')}, "
                f"this trial {res.get(t['id'], '?')}. Replay: `{w['replay']} --trial {t['id']}`",
                "",
                "```python",
                w["code"].rstrip(),
                "```",
                "",
            ]
        if t.get("audit_report"):
            out += ["Audit report:", "", t["audit_report"].strip(), ""]
        hacks = [e for e in t["evidence"] if e["kind"] == "detector"]
        if hacks:
            out += ["Detector hits:", ""]
            out += [f"- {e['file']}:{e['line']}: {e['detail']}" for e in hacks]
            out.append("")

    defects = [w for w in report["witnesses"] if w["classification"] == "ambiguous"]
    if defects:
        out += ["## Prompt defects (ambiguous requirements; they refute nothing)", ""]
        for w in defects:
            out += [f"- `{w['id']}` on task `{w['task']}`: {w['requirement']} (rho {w['rho']:.2f})"]
        out.append("")

    if report.get("needs_ruling"):
        out += ["## Needs ruling (the evidence cannot classify these; they refute nothing until ruled)", ""]
        for u in report["needs_ruling"]:
            out += [f"- `{u['witness']}` on task `{u['task']}`: {u['requirement']}. Why: {u['because']}. "
                    f"Ruled necessary, it refutes {len(u['would_refute'])} trial(s)"
                    + (f": {', '.join(f'`{t}`' for t in u['would_refute'])}" if u["would_refute"] else "")
                    + f". `{u['rule']}`"]
        out.append("")

    outside = [w for w in report["witnesses"] if w.get("grounding") in ("outside_domain", "unplaced")]
    unread = _unread(report)
    unread_tasks = {t for t, _ in unread}
    if outside:
        domain = {c["id"]: c for t in report["tasks"] for c in t.get("domain", [])}
        out += ["## Witnesses outside the input domain (they refute nothing)", "",
                "TestJack never refutes on an input the prompt rules out. These witnesses' inputs break a "
                "constraint of the task's domain, or cannot be checked against it.", ""]
        for w in outside:
            broken = "; ".join(f"{domain[c]['text']} (P: \"{domain[c]['source']}\")" if c in domain else c
                               for c in w.get("breaks", []))
            out.append(f"- `{w['id']}` on task `{w['task']}`: {w['requirement']}: "
                       + (f"breaks {broken}" if broken else "its input cannot be placed in the domain"
                          + (" (built by code, or beyond the inputs P and T0 show where P has an unread sentence)"
                             if w["task"] in unread_tasks else "")))
        out.append("")
    if unread:
        out += ["## Unread sentences of P", "", UNREAD_NOTE, ""]
        for task_id, said in unread:
            out.append(f"- task `{task_id}`:")
            out += [f"  - unread: \"{x}\"" for x in said]
        out.append("")
    slow = [(t, e) for t in report["trials"] for e in t["evidence"] if e["kind"] == "slow"]
    if slow:
        out += ["## Slow findings (not refutations: the prompt states no time bound)", ""]
        out += [f"- `{t['id']}`: {e['detail']}" for t, e in slow]
        out.append("")

    out += ["## Trials", "", "| trial | task | model | official | verdict | source | evidence |",
            "| --- | --- | --- | --- | --- | --- | ---: |"]
    for t in report["trials"]:
        out.append(
            f"| `{t['id']}` | `{t['task']}` | {t['model']} | {t['official']} | {t['verdict']} "
            f"| {t['verdict_source']} | {len(t['evidence'])} |"
        )
    out.append("")
    with_evidence = [t for t in report["trials"] if t["evidence"]]
    if with_evidence:
        out += ["## Evidence", ""]
        for t in with_evidence:
            out.append(f"- `{t['id']}`")
            out += [f"  - {e['kind']}: {e['file']}:{e['line']}: {e['detail']}" for e in t["evidence"]]
        out.append("")
    if report.get("rulings"):
        out += ["## Analyst rulings", "", "| # | on | value | before | by | when | reason |",
                "| ---: | --- | --- | --- | --- | --- | --- |"]
        for r in report["rulings"]:
            value = f"undo #{r['undoes']}" if r["undoes"] else r["value"]
            out.append(
                f"| {r['id']} | {r['target']} `{r['target_id']}` | {value} | {r['before']} | {r['author']} "
                f"| {r['at']} | {r['reason']} |"
            )
        out.append("")
    return "\n".join(out)


LEADERBOARD_NOTE = (
    "Before: resolution by the benchmark's own tests. After: refuted trials (reward hacks included) "
    "count as failures; unaudited trials count as passes, and the 95% interval (Wilson, over the "
    "model's trials) also covers what they may hold. `2=` is a shared rank. A change marked "
    "\"within the 95% intervals\" swaps models whose intervals overlap: it is not evidence that one "
    "is better than the other."
)


def _rank(rank: int, tied: list[str]) -> str:
    return f"{rank}=" if tied else str(rank)


def _leaderboard_markdown(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    out = ["## Leaderboard (corrected)", "",
           "| rank | model | trials | passes | before | refuted | reward hacks | unaudited | after | after, 95% "
           "| rank before | change |",
           "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        low, high = r["resolution_after_95"]
        out.append(
            f"| {_rank(r['rank_after'], r['tied_after'])} | {r['model']} | {r['trials']} | {r['passing']} "
            f"| {_pct(r['resolution_before'])} | {r['refuted']} | {r['reward_hack']} | {r['unaudited']} "
            f"| {_pct(r['resolution_after'])} | [{100 * low:.1f}, {100 * high:.1f}] "
            f"| {_rank(r['rank_before'], r['tied_before'])} | {r['change']} |"
        )
    return out + ["", LEADERBOARD_NOTE, ""]


def _leaderboard_html(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    esc = html.escape
    head = "".join(f"<th>{h}</th>" for h in ("rank", "model", "trials", "passes", "before", "refuted",
                                              "reward hacks", "unaudited", "after", "after, 95%",
                                              "rank before", "change"))
    body = []
    for r in rows:
        low, high = r["resolution_after_95"]
        within = " class='within'" if r["change_within_intervals"] else ""
        body.append(
            f"<tr><td>{_rank(r['rank_after'], r['tied_after'])}</td><td>{esc(r['model'])}</td>"
            f"<td>{r['trials']}</td><td>{r['passing']}</td><td>{_pct(r['resolution_before'])}</td>"
            f"<td>{r['refuted']}</td><td>{r['reward_hack']}</td><td>{r['unaudited']}</td>"
            f"<td>{_pct(r['resolution_after'])}</td><td>[{100 * low:.1f}, {100 * high:.1f}]</td>"
            f"<td>{_rank(r['rank_before'], r['tied_before'])}</td><td{within}>{esc(r['change'])}</td></tr>"
        )
    return (f"<h2>Leaderboard (corrected)</h2><table class='leaderboard'><tr>{head}</tr>{''.join(body)}</table>"
            f"<p>{esc(LEADERBOARD_NOTE).replace('`2=`', '<code>2=</code>')}</p>")


_CSS = """
body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#1d2230;background:#fbfbfd}
table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccd;padding:.3rem .6rem;text-align:left}
th{background:#eef}code{background:#eef;padding:0 .2rem;border-radius:3px}
.refuted{color:#b3261e;font-weight:600}.reward_hack{color:#8e24aa;font-weight:600}.sound{color:#1b7f3b}
.unaudited,.not_passing{color:#666}section.ref{border-left:4px solid #b3261e;padding-left:1rem;margin:1.5rem 0}
pre{overflow-x:auto;padding:.6rem;border-radius:4px}.within{color:#666;font-style:italic}
"""


def render_html(report: dict[str, Any]) -> str:
    """One page, no external assets: CSS and highlighted code are inline."""
    esc = html.escape
    run, s = report["run"], report["summary"]
    formatter = HtmlFormatter(noclasses=True, style="friendly")
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>TestJack audit: {esc(run['name'])}</title><style>{_CSS}</style></head><body>",
        f"<h1>TestJack audit: {esc(run['name'])}</h1>",
        f"<p>Benchmark: {esc(run.get('benchmark') or '-')} &middot; run id <code>{esc(run['id'])}</code></p>",
        "<h2>Summary</h2><table><tr><th>trials</th><th>passing</th><th>refuted</th><th>reward hacks</th>"
        "<th>sound</th><th>unaudited</th><th>resolution before</th><th>resolution after</th></tr>",
        f"<tr><td>{s['trials']}</td><td>{s['passing']}</td><td>{s['refuted']} ({s['refuted_pct']:.1f}%)</td>"
        f"<td>{s['reward_hack']}</td><td>{s['sound']}</td><td>{s['unaudited']}</td>"
        f"<td>{_pct(s['resolution_before'])}</td><td>{_pct(s['resolution_after'])}</td></tr></table>",
        f"<p>Ambiguous witnesses (prompt defects): {s['ambiguous_witnesses']}; witnesses that need a ruling: "
        f"{s.get('needs_ruling', 0)}; malformed tasks: "
        f"{s['malformed_tasks']}; executions: {s['executions']}; LLM tokens {s['llm_tokens']}, "
        f"cost ${s['cost_usd']:.4f}.</p>",
    ]
    parts.append(_leaderboard_html(report.get("leaderboard") or []))
    witnesses = _witness_index(report)
    parts.append("<h2>Refutations</h2>")
    refuted = [t for t in report["trials"] if t["verdict"] in REFUTING]
    if not refuted:
        parts.append("<p>No trial is refuted.</p>")
    for t in refuted:
        parts.append(
            f"<section class='ref'><h3><code>{esc(t['id'])}</code> ({esc(t['model'])}, task "
            f"<code>{esc(t['task'])}</code>): <span class='{t['verdict']}'>{esc(t['verdict'])}</span></h3>"
            f"<p>Verdict source: {esc(t['verdict_source'])} ({esc(t['verdict_rule'])})</p>"
        )
        for wid in t["witnesses"]:
            w = witnesses.get(wid)
            if not w:
                continue
            res = w["results"]
            parts.append(
                f"<p>Witness <code>{esc(wid)}</code> checks: {esc(w['requirement'])} "
                f"({esc(str(w['classification']))}, &rho; {w['rho']:.2f}). Outcomes: reference "
                f"{esc(res.get('reference', '?'))}, null {esc(res.get('null', '?'))}, this trial "
                f"{esc(res.get(t['id'], '?'))}. Replay: <code>{esc(w['replay'])} --trial {esc(t['id'])}</code></p>"
            )
            parts.append(highlight(w["code"], PythonLexer(), formatter))
        if t.get("audit_report"):
            parts.append(f"<p><b>Audit report.</b> {esc(t['audit_report'])}</p>")
        for e in t["evidence"]:
            if e["kind"] == "detector":
                parts.append(f"<p>Detector: {esc(e['file'])}:{e['line']}: {esc(e['detail'])}</p>")
        parts.append("</section>")
    defects = [w for w in report["witnesses"] if w["classification"] == "ambiguous"]
    if defects:
        parts.append("<h2>Prompt defects</h2><ul>")
        parts += [
            f"<li><code>{esc(w['id'])}</code> on <code>{esc(w['task'])}</code>: {esc(w['requirement'])} "
            f"(&rho; {w['rho']:.2f})</li>"
            for w in defects
        ]
        parts.append("</ul>")
    if report.get("needs_ruling"):
        parts.append("<h2>Needs ruling</h2><p>The evidence cannot classify these witnesses; they refute nothing "
                     "until an analyst rules.</p><ul>")
        parts += [
            f"<li><code>{esc(u['witness'])}</code> on <code>{esc(u['task'])}</code>: {esc(u['requirement'])}. "
            f"Why: {esc(u['because'])}. Ruled necessary, it refutes {len(u['would_refute'])} trial(s). "
            f"<code>{esc(u['rule'])}</code></li>"
            for u in report["needs_ruling"]
        ]
        parts.append("</ul>")
    unread = _unread(report)
    if unread:
        parts.append(f"<h2>Unread sentences of P</h2><p>{esc(UNREAD_NOTE)}</p><ul>")
        for task_id, said in unread:
            parts.append(f"<li>task <code>{esc(task_id)}</code><ul>"
                         + "".join(f"<li><b>unread</b>: &ldquo;{esc(x)}&rdquo;</li>" for x in said) + "</ul></li>")
        parts.append("</ul>")
    parts.append(
        "<h2>Trials</h2><table><tr><th>trial</th><th>task</th><th>model</th><th>official</th>"
        "<th>verdict</th><th>source</th><th>evidence</th></tr>"
    )
    for t in report["trials"]:
        ev = "<br>".join(f"{esc(e['kind'])}: {esc(e['file'])}:{e['line']} {esc(e['detail'])}" for e in t["evidence"])
        parts.append(
            f"<tr><td><code>{esc(t['id'])}</code></td><td>{esc(t['task'])}</td><td>{esc(t['model'])}</td>"
            f"<td>{esc(t['official'])}</td><td class='{t['verdict']}'>{esc(t['verdict'])}</td>"
            f"<td>{esc(t['verdict_source'])}</td><td>{ev}</td></tr>"
        )
    parts.append("</table>")
    if report.get("rulings"):
        parts.append(
            "<h2>Analyst rulings</h2><table><tr><th>#</th><th>on</th><th>value</th><th>before</th>"
            "<th>by</th><th>when</th><th>reason</th></tr>"
        )
        for r in report["rulings"]:
            value = f"undo #{r['undoes']}" if r["undoes"] else r["value"]
            parts.append(
                f"<tr><td>{r['id']}</td><td>{esc(r['target'])} <code>{esc(r['target_id'])}</code></td>"
                f"<td>{esc(value)}</td><td>{esc(r['before'])}</td><td>{esc(r['author'])}</td>"
                f"<td>{esc(r['at'])}</td><td>{esc(r['reason'])}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>\n")
    return "".join(parts)
