"""Read pytest's JUnit XML into one outcome per requested pytest node id.

Results come from the XML (parsed with junitparser), never from scraped console text: a conftest
can print anything, but it cannot make the XML say a test passed without running pytest's reporter.

A node id is rebuilt from a test case's ``file``, ``classname`` and ``name`` attributes (xunit1; the
backends set ``junit_family=xunit1``). With xunit2 files (no ``file``), ids are matched on
``(classname, name)`` computed from the requested id, which is exact unless a directory name
contains a dot.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from junitparser import Error, Failure, JUnitXml, Skipped

# The note ``cross_check`` leaves in a result's message when it turned a report's passes into errors
FORGED_PASSES = "although its test report says every test passed"

# When a node id appears in several test cases (a pass and a teardown error), the worst one counts.
_RANK = {"pass": 0, "skip": 1, "fail": 2, "error": 3}


def _case_outcome(case) -> str:
    results = case.result
    if any(isinstance(r, Error) for r in results):
        return "error"
    if any(isinstance(r, Failure) for r in results):
        return "fail"
    if any(isinstance(r, Skipped) for r in results):
        return "skip"
    return "pass"


def _module_of(path: str) -> str:
    """``tests/test_x.py`` -> ``tests.test_x`` (pytest's classname prefix for that file)."""
    stem = path[:-3] if path.endswith(".py") else path
    return stem.replace("/", ".").replace(os.sep, ".")


def _key_of_node(node_id: str) -> tuple[str, str] | None:
    """The (classname, name) pytest writes for ``node_id``; None for a whole-file id."""
    parts = node_id.split("::")
    if len(parts) < 2:
        return None
    classname = ".".join([_module_of(parts[0]), *parts[1:-1]])
    return classname, parts[-1]


def _node_of_case(case) -> str | None:
    file = case._elem.get("file")
    classname = case.classname or ""
    if not file:
        return None
    module = _module_of(file)
    if classname == module:
        classes: list[str] = []
    elif classname.startswith(module + "."):
        classes = classname[len(module) + 1 :].split(".")
    else:  # classname not under the file (rootdir elsewhere): trust the file and the last part
        classes = classname.split(".")[-1:] if classname else []
    return "::".join([file, *classes, case.name])


def _worse(a: str | None, b: str) -> str:
    return b if a is None or _RANK[b] > _RANK[a] else a


def _file_outcome(seen: set[str]) -> str:
    """A whole file: error if any case errored, fail if any failed, pass if the rest passed."""
    for outcome in ("error", "fail", "pass", "skip"):
        if outcome in seen:
            return outcome
    return "missing"


def read_outcomes(xml_path, test_ids: Iterable[str]) -> dict[str, str]:
    """Outcome ("pass", "fail", "error", "skip", "missing") per requested id.

    With no ``test_ids``, every test case in the file is returned under its rebuilt node id.
    A missing or unreadable file gives "missing" for every requested id.
    """
    test_ids = list(test_ids)
    by_node: dict[str, str] = {}
    by_key: dict[tuple[str, str], str] = {}
    by_module: dict[str, set[str]] = {}  # module dotted name -> outcomes of its cases
    module_errors: set[str] = set()  # modules that failed to import (collection error)
    try:
        xml = JUnitXml.fromfile(os.fspath(xml_path))
    except (OSError, Exception):  # junitparser raises lxml/etree errors for broken files
        return {t: "missing" for t in test_ids}
    suites = [xml] if xml._tag == "testsuite" else list(xml)
    for suite in suites:
        for case in suite:
            outcome = _case_outcome(case)
            classname = case.classname or ""
            if not classname and outcome == "error":
                # pytest reports a module that fails to collect as a case named after the module
                module_errors.add(case.name or "")
                continue
            node = _node_of_case(case)
            if node is not None:
                by_node[node] = _worse(by_node.get(node), outcome)
                module = _module_of(node.split("::")[0])
            else:
                module = classname
            key = (classname, case.name or "")
            by_key[key] = _worse(by_key.get(key), outcome)
            # file-level aggregation: every module prefix of the classname may be the file
            parts = classname.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if node is None or prefix == module:
                    by_module.setdefault(prefix, set()).add(outcome)
    if not test_ids:
        return dict(by_node) if by_node else {f"{c}::{n}": o for (c, n), o in by_key.items()}
    outcomes: dict[str, str] = {}
    for test_id in test_ids:
        file_part = test_id.split("::")[0]
        module = _module_of(file_part)
        if module in module_errors:
            outcomes[test_id] = "error"
            continue
        key = _key_of_node(test_id)
        if key is None:
            outcomes[test_id] = _file_outcome(by_module.get(module, set()))
            continue
        found = by_node.get(test_id) or by_key.get(key)
        outcomes[test_id] = found or "missing"
    return outcomes


def cross_check(outcomes: dict[str, str], junit_written: bool, exit_code: int | None,
                log_failures: list[str] | tuple[str, ...] = ()) -> tuple[dict[str, str], str]:
    """Outcomes as the parsed XML says, checked against the command's exit code.

    A run that wrote no XML has every requested test missing. An XML in which every test passed
    from a command that failed is trusted by neither side: a forged report or a crash at exit is
    not a pass, so the outcomes become errors. Returns the outcomes and a note ("" when none).

    ``log_failures`` (harness-graded runs, see ``harness_parsers``): tests the log shows failing.
    Such a command runs whole files, so an ungraded failing test explains a non-zero exit code;
    only the graded ids' outcomes are checked against it.
    """
    if not junit_written:
        return outcomes, "no JUnit XML was written: every requested test is missing"
    ungraded = [t for t in log_failures if t not in outcomes]
    if exit_code != 0 and outcomes and all(v == "pass" for v in outcomes.values()) and ungraded:
        more = f" and {len(ungraded) - 3} more" if len(ungraded) > 3 else ""
        return outcomes, (f"the command exited {exit_code}: tests that are not graded failed "
                          f"({', '.join(ungraded[:3])}{more})")
    if exit_code != 0 and outcomes and all(v == "pass" for v in outcomes.values()):
        return {t: "error" for t in outcomes}, (
            f"the command exited {exit_code} {FORGED_PASSES}; "
            "not counted as a pass"
        )
    return outcomes, ""
