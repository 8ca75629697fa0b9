"""Whether one T0 run passes, and what to say when the reference's does not.

Two graders:

- the strict one (native tasks, JUnit XML): every graded id passed and the command exited 0;
- the harness's (tasks whose log parser is a ``swebench-*`` one, see ``worlds.harness_parsers``):
  each graded id as the SWE-bench harness grades it. A fail-to-pass test must pass (an expected
  failure counts as a pass, a skip as a failure); a pass-to-pass test must pass or be skipped
  (swebench 5.0.2's ``test_failed`` / ``test_maintained``; releases up to 4.1.0 counted a skip
  neither way, so a patch whose fail-to-pass tests all skip was resolved there and is not here). The
  exit code is not asked for: the command runs whole test files, and an ungraded failing test of
  the same file makes it exit 1; the backends have already cross-checked the exit code against the
  log (a non-zero exit that no failing test explains turns the graded ids into errors).

``reference_failures`` words why a reference run does not pass, per graded id (failed, error,
skipped, not collected, missing from the log), as a one-line summary for progress output and the
full list for the report.
"""

from __future__ import annotations

import re
from collections import Counter

from testjack_tui.model import Task
from testjack_tui.worlds.harness_parsers import is_harness_parser
from testjack_tui.worlds.logparsers import first_collection_error
from testjack_tui.worlds.request import STATUS_OK, ExecResult

_WORDS = {"fail": "failed", "error": "error", "skip": "skipped", "missing": "missing from the test log",
          "not_collected": "not collected (its file failed to import)"}
SHOWN = 3  # ids named in the one-line summary


def harness_graded(task: Task) -> bool:
    return is_harness_parser(task.tests.log_parser)


def graded_outcomes(task: Task, result: ExecResult, test_ids: list[str] | None = None) -> dict[str, str]:
    """Each graded id's outcome as its grader counts it ("pass" or what went wrong)."""
    ids = task.tests.graded if test_ids is None else test_ids
    if result.status != STATUS_OK:
        return {t: "error" for t in ids}
    if not harness_graded(task):
        return {t: result.outcomes.get(t, "missing") for t in ids}
    f2p = set(task.tests.fail_to_pass)
    out: dict[str, str] = {}
    for t in ids:
        o = result.outcomes.get(t, "missing")
        if o == "skip" and t not in f2p:
            o = "pass"
        if o == "missing" and _collection_error(result, t):
            o = "not_collected"
        out[t] = o
    return out


def t0_passes(task: Task, result: ExecResult, test_ids: list[str] | None = None) -> bool:
    """T0 (or the ids given) passes on this run, by the task's grader."""
    ids = task.tests.graded if test_ids is None else test_ids
    if not harness_graded(task):
        return result.passed(ids)
    return result.status == STATUS_OK and all(o == "pass" for o in graded_outcomes(task, result, ids).values())


def _collection_error(result: ExecResult, test_id: str) -> bool:
    path = test_id.split("::")[0]
    if not path.endswith(".py"):
        return False
    return re.search(rf"^ERROR {re.escape(path)}(?:\s|$)", result.stdout + "\n" + result.stderr, re.M) is not None


def reference_failures(task: Task, runs: list[ExecResult]) -> tuple[str, str]:
    """(one-line summary, full per-id list) of the graded ids that did not pass on the reference runs.

    ("", "") when every graded id passed in every run.
    """
    n = len(runs)
    failing: dict[str, Counter] = {}
    for res in runs:
        if res.status != STATUS_OK:
            continue
        for t, o in graded_outcomes(task, res).items():
            if o != "pass":
                failing.setdefault(t, Counter())[o] += 1
    if not failing:
        return "", ""
    graded = task.tests.graded
    kinds = Counter(c.most_common(1)[0][0] for c in failing.values())
    parts = ", ".join(f"{k} {_WORDS.get(o, o)}" for o, k in kinds.most_common())
    worst = max(sum(c.values()) for c in failing.values())
    shown = ", ".join(f"{t} ({_WORDS.get(c.most_common(1)[0][0], '?')})" for t, c in list(failing.items())[:SHOWN])
    more = f" and {len(failing) - SHOWN} more" if len(failing) > SHOWN else ""
    exits = sorted({r.exit_code for r in runs if r.status == STATUS_OK and r.exit_code not in (0, 1, None)})
    exit_note = f"; the test command exited {', '.join(map(str, exits))}" if exits else ""
    if len(failing) == 1:
        t, c = next(iter(failing.items()))
        summary = f"the reference does not pass {t}: {_WORDS.get(c.most_common(1)[0][0])} in {sum(c.values())} of {n} runs"
    else:
        summary = (f"the reference does not pass {len(failing)} of {len(graded)} graded tests ({parts}) "
                   f"in up to {worst} of {n} runs: {shown}{more}")
    summary += exit_note + _collection_note(runs)
    lines = [f"{t}: " + ", ".join(f"{_WORDS.get(o, o)} in {k} of {n} runs" for o, k in c.most_common())
             for t, c in failing.items()]
    return summary, "\n".join(lines)


def _collection_note(runs: list[ExecResult]) -> str:
    """The first import or collection error of the reference's logs, quoted: a list of tests that
    never ran says less than the one line that says why."""
    for res in runs:
        error = first_collection_error(res.stdout + "\n" + res.stderr) if res.status == STATUS_OK else ""
        if error:
            return f"; the log's first collection or import error: {error}"
    return ""
