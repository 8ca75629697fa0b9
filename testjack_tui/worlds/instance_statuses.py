"""Per-test outcomes from the statuses an instance's own parser wrote (the ``swebench-pro`` log parser).

SWE-bench Pro ships a run script and an output parser with each instance. The parser is benchmark
code: it runs in the world, after the run script, reads the script's stdout and stderr and writes
``{"tests": [{"name": ..., "status": "PASSED" | "FAILED" | "SKIPPED" | "ERROR"}]}``. The command
(``formats.swebench_pro``) keeps the run script's output in files inside the world and prints that
JSON on one line after ``RESULTS_MARK``, before anything else it prints; this reads the first such
line, so nothing the tests print can come before it.

Graded ids are the parser's names, matched exactly. A name reported twice passes when any report
of it passed (the release grades by the set of PASSED names), else takes the worst. An id that is
a file path and no name (a witness file) takes the worst of the names that contain its path: fail
or error if any failed, pass if one passed, skip if all were skipped; a file none of whose tests
the parser names is missing (not collected), so a witness the run script never ran is never
certified.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

RESULTS_MARK = "parsed test statuses: "
_OUTCOME = {"PASSED": "pass", "FAILED": "fail", "SKIPPED": "skip", "ERROR": "error"}
_RANK = {"pass": 0, "skip": 1, "fail": 2, "error": 3}
_FILE_ID = re.compile(r"^[^\s:]+\.\w+$")  # a path with an extension: no spaces, no ``::``


def reported_statuses(log: str) -> dict[str, str] | None:
    """The parser's name -> outcome from the first results line; None when there is none."""
    for line in log.splitlines():
        if line.startswith(RESULTS_MARK):
            return _statuses(line[len(RESULTS_MARK):])
    return None


def _statuses(text: str) -> dict[str, str] | None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    tests = data.get("tests") if isinstance(data, dict) else None
    if not isinstance(tests, list):
        return None
    out: dict[str, str] = {}
    for entry in tests:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        outcome = _OUTCOME.get(str(entry.get("status")), "error")
        seen = out.get(entry["name"])
        if seen is None or (outcome == "pass" or (seen != "pass" and _RANK[outcome] > _RANK[seen])):
            out[entry["name"]] = outcome
    return out


def parse_statuses(log: str, test_ids: Iterable[str]) -> dict[str, str]:
    """Outcome per requested id (see the module docstring); every id is missing without results."""
    statuses = reported_statuses(log) or {}
    outcomes: dict[str, str] = {}
    for test_id in test_ids:
        if test_id in statuses:
            outcomes[test_id] = statuses[test_id]
        elif _FILE_ID.match(test_id):
            outcomes[test_id] = _file_outcome([o for n, o in statuses.items() if test_id in n])
        else:
            outcomes[test_id] = "missing"
    return outcomes


def _file_outcome(found: list[str]) -> str:
    for outcome in ("error", "fail", "pass", "skip"):
        if outcome in found:
            return outcome
    return "missing"
