"""The requirements checklist of a task, built from its prompt: one row per requirement P states,
with its source sentence, whether T0 exercises it, the witnesses that test it and their outcome on
the trial under review. No Textual here; the Prompt tab only draws these rows.

Where the rows come from, in order:

1. **stated**: each sentence of P's prose that asks for something (headings, section labels,
   code blocks and sentences about the users or the project's history are left out). A
   sentence an input constraint of the task's domain was read from (``task.domain``, stated
   constraints) is an **input** row and names those constraints.
2. **example**: each of P's examples (the author's checklist in the store, ``P's example: ...``)
   that no sentence already quotes.
3. **not in P**: the requirement of each witness that no sentence or example matches: implicit
   requirements (what the reference does and P never says), and witnesses such as the harness check.

A witness tests a row when the calls it makes are calls the row quotes, or, failing that, when
enough of what it checks appears in the sentence (the exception it expects, the literal it passes
or returns, "empty" for an empty string). The matching is plain text, not understanding: a witness
it cannot place goes under "not in P" with its own words, so nothing is hidden.

The T0 column says whether the official tests exercise the row:

- ``yes``: T0 makes a call, or passes a literal, that the row quotes, and no trial that passes T0
  fails a witness of the row;
- ``partly``: T0 makes such a call, yet a trial that passes T0 fails a witness of the row;
- ``no``: a trial that passes T0 fails a witness of the row, and T0 makes none of its calls;
- ``untested``: the row quotes calls or literals and T0 uses none of them;
- ``?``: the row quotes nothing T0 could be compared with, and no witness shows a gap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from testjack_tui.review.checklist_calls import added_code, calls_in, code_spans, quoted_strings, strings_in
from testjack_tui.audit.verdicts import failing, fails_on
from testjack_tui.domain.stated import sentences
from testjack_tui.domain.timing import no_answer_in_time
from testjack_tui.model import Constraint, Requirement, Task, Witness

# Sentences about the people or the history, not a requirement (unless they quote code).
_CONTEXT = re.compile(r"\b(we|our|us|users?|currently|today|keep getting)\b", re.I)
_EXAMPLE = re.compile(r"^P's example:\s*(.+?)\s+(?:returns|raises)\s+(.+?)\.?$")
_LEADING_CALL = re.compile(r"^([\w.]+\(.*?\))\s+(?:returns|raises|gives)\b")
_EXCEPTION = re.compile(r"\b([A-Z]\w*(?:Error|Exception))\b")

T0_MARKS = {"yes": "✓ yes", "partly": "◐ partly", "no": "✗ no", "untested": "· untested", "?": "? unknown"}
LEGEND = (
    "T0: ✓ makes a call the row quotes · ◐ does, yet a trial passing T0 breaks the row · ✗ a trial passing T0 "
    "breaks it · · makes none of its calls · ? cannot tell\n"
    "this trial: ✓ passes its witnesses · ✗ refuted by one · ✗ fails (why that refutes nothing) · — no witness"
)


@dataclass
class ChecklistRow:
    key: str
    kind: str  # "stated", "input", "example", "not in P"
    text: str  # the requirement as shown: P's sentence, the example, or the witness's words
    source: str  # where it comes from, in full (P's sentence, "P's examples", "witness w-...")
    calls: set[str] = field(default_factory=set)  # canonical calls the row quotes
    literals: set[str] = field(default_factory=set)  # string literals the row quotes
    witnesses: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)  # domain constraints read from the sentence
    t0: str = "?"
    t0_why: str = ""
    trial: str = "—"  # short: "✓ passes", "✗ refuted", "✗ fails (ambiguous)", "not run", "—"
    trial_detail: str = "no witness tests it"  # the same in words, naming the witnesses
    trial_state: str = "none"  # "pass", "fail", "fail-no-refute", "slow", "not-run", "none"
    covered: bool | None = None  # the author's checklist: T0 makes this exact call


# ---------------------------------------------------------------------- P's requirement sentences


def requirement_sentences(prompt: str) -> list[str]:
    """The sentences of P's prose that ask for something, without list markers."""
    out = []
    for s in sentences(prompt):
        s = re.sub(r"^(?:[-*•]|\d+\.)\s+", "", s).strip()
        words = s.split()
        if not s or s.startswith("#") or s.startswith("```") or not re.search(r"[A-Za-z]", s):
            continue
        if s.endswith(":") and len(words) <= 3:  # "Rules:", "Examples:"
            continue
        if _CONTEXT.search(s) and "`" not in s:
            continue
        out.append(s)
    return out


def _normal(text: str) -> str:
    return " ".join(text.replace("`", "").split()).strip(" .").lower()


_STOP = {"a", "an", "the", "of", "to", "is", "are", "and", "or", "it", "its", "that", "this", "in", "on", "as"}


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9_]+", text.lower()) if w not in _STOP}


def same_clause(a: str, b: str) -> bool:
    """Whether two wordings say the same clause: the shorter's words (3 or more) all but one in the other's.

    Two examples are never the same clause by their words ("P's example: f(x) returns y" shares
    every word but its literals with every other example): their calls tell.
    """
    if _EXAMPLE.match(a) or _EXAMPLE.match(b):
        return _normal(a) == _normal(b)
    wa, wb = _words(a), _words(b)
    short, long_ = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    if len(short) < 3:
        return _normal(a) == _normal(b)
    return len(short - long_) <= max(0, len(short) // 6)


# ---------------------------------------------------------------------- matching witnesses


@dataclass
class _WitnessFacts:
    calls: set[str]
    literals: set[str]
    results: set[str]
    exceptions: set[str]
    function: str


def _facts(w: Witness) -> _WitnessFacts:
    calls = calls_in(w.code) if w.code else set()
    head = _EXAMPLE.match(w.requirement) or _LEADING_CALL.match(w.requirement)
    if head:
        calls |= calls_in(head.group(1))
    literals: set[str] = set()
    function = ""
    for call in calls:
        function = function or call.split("(", 1)[0]
        literals |= quoted_strings(call)
    results = quoted_strings(w.requirement.split(" returns ", 1)[1]) if " returns " in w.requirement else set()
    return _WitnessFacts(calls, literals, results, set(_EXCEPTION.findall(w.requirement)), function)


def _score(f: _WitnessFacts, row: ChecklistRow, requirement: str) -> int:
    if f.calls & row.calls:
        return 100
    if same_clause(requirement, row.text):
        return 50
    text = row.text
    low = text.lower()
    score = 0
    for lit in f.literals:
        if lit and lit in row.literals:
            score += 4
        elif lit == "" and "empty" in low:
            score += 3
    for lit in f.results:
        if lit == "" and "empty string" in low:
            score += 2
    for exc in f.exceptions:
        if exc in text:
            score += 2
    if f.function and f.function in text:
        score += 1
    return score


# ---------------------------------------------------------------------- the checklist


def build_checklist(
    task: Task,
    requirements: list[Requirement],
    witnesses: list[Witness],
    results: dict[str, dict[str, str]],
    trial_id: str,
    passing: list[str],
    refuting: list[str],
) -> list[ChecklistRow]:
    """The checklist of ``task`` as the trial ``trial_id`` is reviewed.

    ``results``: witness id -> world -> outcome; ``passing``: the task's trials that pass T0;
    ``refuting``: the witnesses that refute this trial (its verdict's).
    """
    rows = _prompt_rows(task)
    _add_examples(rows, requirements)
    for w in witnesses:
        _row_tested_by(w, rows).witnesses.append(w.id)
    t0_code = added_code(task.test_patch)
    t0_calls, t0_strings = calls_in(t0_code), strings_in(t0_code)
    by_id = {w.id: w for w in witnesses}
    for row in rows:
        _judge_t0(row, t0_calls, t0_strings, results, passing, by_id)
        _judge_trial(row, by_id, results, trial_id, refuting)
    return rows


def _prompt_rows(task: Task) -> list[ChecklistRow]:
    """A row per requirement sentence of P (an input row where a stated constraint was read from
    it), then one per stated constraint whose sentence the reader split differently."""
    rows: list[ChecklistRow] = []
    stated: dict[str, list[Constraint]] = {}
    for c in task.domain:
        if c.stated:
            stated.setdefault(_normal(c.source), []).append(c)
    for i, s in enumerate(requirement_sentences(task.prompt)):
        calls, literals = code_spans(s)
        cons = stated.pop(_normal(s), [])
        rows.append(ChecklistRow(f"p{i}", "input" if cons else "stated", s, s, calls, literals,
                                 constraints=[c.id for c in cons]))
    for cons in stated.values():
        c = cons[0]
        rows.append(ChecklistRow(f"c-{c.id}", "input", c.source or c.text, c.source, set(), set(),
                                 constraints=[x.id for x in cons]))
    return rows


def _add_examples(rows: list[ChecklistRow], requirements: list[Requirement]) -> None:
    """P's examples and the author's checklist: each merged into the row that quotes its call or
    says its clause, else a row of its own (once per wording); the rows T0 covers marked so."""
    seen_examples: set[str] = set()
    for r in requirements:
        m = _EXAMPLE.match(r.text)
        calls = calls_in(m.group(1)) if m else set()
        target = next((row for row in rows if calls and calls & row.calls), None)
        if target is None:
            target = next((row for row in rows if same_clause(r.text, row.text)), None)
        if target is None:
            if _normal(r.text) in seen_examples:
                continue
            seen_examples.add(_normal(r.text))
            kind = "example" if m else ("stated" if str(r.kind) == "explicit" else "not in P")
            target = ChecklistRow(f"r-{r.id}", kind, r.text, "P's examples" if m else "the author's checklist",
                                  calls, set())
            rows.append(target)
        if r.covered_by_t0 is not None:
            target.covered = bool(target.covered) or r.covered_by_t0


def _row_tested_by(w: Witness, rows: list[ChecklistRow]) -> ChecklistRow:
    """The row ``w`` tests: the best-scoring one, else a "not in P" row in its own words (added to
    ``rows`` unless one says the same)."""
    facts = _facts(w)
    best, best_score = None, 0
    for row in rows:
        score = _score(facts, row, w.requirement)
        if score > best_score:
            best, best_score = row, score
    if best is not None and best_score >= 4:
        return best
    norm = _normal(w.requirement)
    own = next((row for row in rows if row.kind == "not in P" and _normal(row.text) == norm), None)
    if own is None:
        own = ChecklistRow(f"w-{w.id}", "not in P", w.requirement,
                           f"{w.requirement_kind} requirement of witness {w.id}", facts.calls, set())
        rows.append(own)
    return own


def _fails(w: Witness | None, outcome: str | None) -> bool:
    """Whether ``outcome`` counts against the trial, as the verdicts count it (a patient witness's
    skip is no answer in time: slowness, not a failure)."""
    return failing(outcome) if w is None else fails_on(w, outcome)


def _judge_t0(row: ChecklistRow, t0_calls: set[str], t0_strings: set[str],
              results: dict[str, dict[str, str]], passing: list[str], witnesses: dict[str, Witness]) -> None:
    called = sorted(row.calls & t0_calls)
    used = [repr(lit) for lit in sorted(row.literals) if lit and lit in t0_strings]
    exercised = bool(called or used) or bool(row.covered)
    broken = sorted({t for wid in row.witnesses for t, outcome in results.get(wid, {}).items()
                     if t in passing and outcome and _fails(witnesses.get(wid), outcome)})
    if exercised and broken:
        row.t0, row.t0_why = "partly", f"{_uses(called, used)}; still, {_breakers(broken)}"
    elif exercised:
        row.t0, row.t0_why = "yes", _uses(called, used)
    elif broken:
        row.t0, row.t0_why = "no", _breakers(broken)
    elif row.calls or row.literals or row.covered is False:
        row.t0, row.t0_why = "untested", "T0 makes none of the calls it quotes"
    else:
        row.t0, row.t0_why = "?", "nothing to compare with T0, and no witness shows a gap"


def _judge_trial(row: ChecklistRow, witnesses: dict[str, Witness], results: dict[str, dict[str, str]],
                 trial_id: str, refuting: list[str]) -> None:
    if not row.witnesses:
        row.trial, row.trial_detail, row.trial_state = "—", "no witness tests it", "none"
        return
    outcomes = {wid: results.get(wid, {}).get(trial_id) for wid in row.witnesses}
    failing = [wid for wid, o in outcomes.items() if o is not None and _fails(witnesses.get(wid), o)]
    # (a timing witness's failure is in ``failing`` already: it may refute)
    slow = [wid for wid, o in outcomes.items() if o and wid in witnesses and no_answer_in_time(witnesses[wid].code, o)]
    if failing:
        refutes = [wid for wid in failing if wid in refuting]
        if refutes:
            row.trial, row.trial_state = "✗ refuted", "fail"
            row.trial_detail = f"fails {', '.join(refutes)}, which refutes it"
        else:
            why = _why_not(witnesses.get(failing[0]))
            row.trial, row.trial_state = f"✗ fails ({why})", "fail-no-refute"
            row.trial_detail = f"fails {failing[0]}, which refutes nothing: {why}"
    elif slow:
        row.trial, row.trial_state = "… slow", "slow"
        row.trial_detail = f"gives no answer in time on {', '.join(slow)}: a slow finding, not a refutation"
    elif all(o is None for o in outcomes.values()):
        row.trial, row.trial_detail, row.trial_state = "not run", "its witnesses never ran on this trial", "not-run"
    else:
        passed = [wid for wid, o in outcomes.items() if o == "pass"]
        row.trial, row.trial_state = "✓ passes", "pass"
        row.trial_detail = f"passes {', '.join(passed)}"


def _why_not(w: Witness | None) -> str:
    """Why a witness's failure refutes nothing, in a word."""
    if w is None:
        return "not a witness"
    if w.flaky:
        return "flaky"
    if str(w.classification) == "ambiguous":
        return "ambiguous"
    if str(w.classification) == "needs_ruling":
        return "needs ruling"
    if str(w.grounding) == "outside_domain":
        return "outside"
    if str(w.grounding) == "unplaced":
        return "unplaced"
    if w.slow_only:
        return "timing"
    return "not refuting"


def _breakers(trials: list[str]) -> str:
    one = len(trials) == 1
    return f"{_list(trials)} {'passes' if one else 'pass'} T0 but {'fails' if one else 'fail'} a witness of it"


def _uses(called: list[str], used: list[str]) -> str:
    if called:
        return f"T0 calls {_list(called)}"
    if used:
        return f"T0 passes {_list(used)}"
    return "the author found the call in T0"


def _list(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")
