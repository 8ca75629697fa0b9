"""Per-test outcomes read from a test runner's console log, for commands that write no JUnit XML.

JUnit XML stays the first source (see ``junit``): a log can be forged by anything the tests print.
Some official commands write none, though: Django's ``tests/runtests.py``, SymPy's ``bin/test`` and
the pytest lines of SWE-bench ``eval_script``s. For those a task names a log parser
(``TestSpec.log_parser`` / ``ExecRequest.log_parser``) and the backends read its outcomes from the
captured stdout and stderr (Django's runner reports on stderr), then apply the same exit-code cross
check as for XML.

The SWE-bench harness has such parsers, but they come with the ``swebench`` package, which pulls in
``datasets``, ``modal`` and more; these are written here from the formats themselves:

``pytest-log``
    pytest's ``-rA`` summary lines (``PASSED id``, ``FAILED id - message``, ``ERROR id``,
    ``XFAIL id``, ``XPASS id``; ``ERROR path`` for a file that failed to collect) and ``-v`` lines
    (``id PASSED [ 50%]``, ``id SKIPPED (why) [ 60%]``). Ids are node ids; a whole-file id takes the worst of its tests. ``-rA``
    reports skips by file and line, not id, so a skip is seen only with ``-v``.
``django``
    unittest's verbosity-2 lines ``test_x (module.Class) ... ok`` (also ``FAIL``, ``ERROR``,
    ``skipped 'why'``, ``expected failure``, ``unexpected success``), the Python 3.11+ form
    ``test_x (module.Class.test_x) ... ok`` and a docstring description on the line after the name.
    An id matches in either form; an id that is a docstring line matches that description. The
    ``FAIL: ...`` / ``ERROR: ...`` headers of the failure report count too.
``sympy``
    ``bin/test --verbose``: a line per test, ``test_x ok`` / ``F`` (failed) / ``E`` (error) /
    ``f`` (expected failure) / ``X`` (unexpected pass) / ``... - s`` (skipped; also ``w`` slow,
    ``T`` timed out, ``K`` interrupted), the file's last test followed by ``[OK]``/``[FAIL]``. Ids are
    bare function names; the same name in two files takes the worst.

Outcomes follow the JUnit reading: an expected failure is "skip", an unexpected pass is "pass" for
pytest (non-strict) and "fail" for unittest and SymPy (whose runners count it as a failure).
When a test is reported twice (a failure and a teardown error), the worst report counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from .instance_statuses import parse_statuses
from .junit import read_outcomes

# The backends keep this much of stdout and stderr for a log parser, more than ExecResult returns:
# a Django or SymPy run prints a line per test of whole modules.
PARSE_CAPTURE = 4 * 1024 * 1024

_RANK = {"pass": 0, "skip": 1, "fail": 2, "error": 3}


def _worse(seen: dict[str, str], key: str, outcome: str) -> None:
    if key not in seen or _RANK[outcome] > _RANK[seen[key]]:
        seen[key] = outcome


# -- pytest ------------------------------------------------------------------------------------

_PYTEST_WORDS = {"PASSED": "pass", "FAILED": "fail", "ERROR": "error", "SKIPPED": "skip",
                 "XFAIL": "skip", "XPASS": "pass"}
_PYTEST_SUMMARY = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S.*)$")
_PYTEST_VERBOSE = re.compile(r"^(\S.*?::\S.*?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)"
                             r"(?: \(.*\))?(?:\s+\[\s*\d+%\])?\s*$")  # "SKIPPED (why)", "[ 50%]"


def _cut_message(rest: str) -> str:
    """``id - message`` -> ``id``; a `` - `` inside a parametrisation's brackets is kept."""
    depth = 0
    for i, ch in enumerate(rest):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif depth == 0 and rest.startswith(" - ", i):
            return rest[:i]
    return rest.rstrip()


def parse_pytest(log: str, test_ids: Iterable[str]) -> dict[str, str]:
    by_node: dict[str, str] = {}
    broken_files: set[str] = set()  # ``ERROR path`` without ``::``: collection failed
    for line in log.splitlines():
        line = line.rstrip()
        summary = _PYTEST_SUMMARY.match(line)
        if summary:
            word, node = summary.group(1), _cut_message(summary.group(2))
            if word == "SKIPPED" and node.startswith("["):
                continue  # ``SKIPPED [1] file.py:12: why`` names no test
            if "::" not in node:
                if word == "ERROR":
                    broken_files.add(node)
                continue
            _worse(by_node, node, _PYTEST_WORDS[word])
            continue
        verbose = _PYTEST_VERBOSE.match(line)
        if verbose:
            _worse(by_node, verbose.group(1), _PYTEST_WORDS[verbose.group(2)])
    outcomes: dict[str, str] = {}
    for test_id in test_ids:
        file_part = test_id.split("::")[0]
        if file_part in broken_files:
            outcomes[test_id] = "error"
        elif "::" in test_id:
            outcomes[test_id] = by_node.get(test_id, "missing")
        else:
            found = [o for n, o in by_node.items() if n.split("::")[0] == test_id]
            outcomes[test_id] = max(found, key=_RANK.__getitem__) if found else "missing"
    return outcomes


# -- Django (unittest, verbosity 2) -------------------------------------------------------------

# "test_x (module.Class)" or "test_x (module.Class.test_x)"
_UNITTEST_NAME = re.compile(r"^(\w+) \(([\w.]+)\)")
_UNITTEST_RESULT = re.compile(r"^(.*?) \.\.\. (.*)$")
_UNITTEST_REPORT = re.compile(r"^(FAIL|ERROR|UNEXPECTED SUCCESS): (\w+ \([\w.]+\))")


def _unittest_outcome(text: str) -> str | None:
    text = text.strip()
    if text == "ok":
        return "pass"
    if text == "FAIL":
        return "fail"
    if text == "ERROR":
        return "error"
    if text.startswith("skipped"):
        return "skip"
    if text == "expected failure":
        return "skip"
    if text == "unexpected success":
        return "fail"
    return None


def _unittest_key(name_part: str) -> str | None:
    """``test_x (a.B)`` and ``test_x (a.B.test_x)`` -> ``a.B.test_x``; None when not of that form."""
    match = _UNITTEST_NAME.match(name_part.strip())
    if not match:
        return None
    name, where = match.groups()
    return where if where.endswith("." + name) else f"{where}.{name}"


def parse_django(log: str, test_ids: Iterable[str]) -> dict[str, str]:
    by_key: dict[str, str] = {}  # a.B.test_x -> outcome
    by_description: dict[str, str] = {}  # a docstring's first line -> outcome
    previous = ""  # the line before, which names the test when a docstring line follows it
    pending: list[str] = []  # keys / descriptions whose " ... " line had no outcome yet (output)

    def record(description: str, name_line: str, outcome: str) -> None:
        key = _unittest_key(description)
        if key is None:  # a docstring line: the test's name is on the line before
            _worse(by_description, description.strip(), outcome)
            key = _unittest_key(name_line)
        if key is not None:
            _worse(by_key, key, outcome)

    for raw in log.splitlines():
        line = raw.rstrip()
        result = _UNITTEST_RESULT.match(line)
        if result:
            outcome = _unittest_outcome(result.group(2))
            if outcome:
                record(result.group(1), previous, outcome)
            else:  # the test printed something after " ... "; its outcome comes on a later line
                pending[:] = [result.group(1), previous]
        elif pending and _unittest_outcome(line) is not None:
            record(pending[0], pending[1], _unittest_outcome(line) or "error")
            pending.clear()
        else:
            report = _UNITTEST_REPORT.match(line)
            if report:
                key = _unittest_key(report.group(2))
                if key:
                    _worse(by_key, key, "error" if report.group(1) == "ERROR" else "fail")
        previous = line
    outcomes: dict[str, str] = {}
    for test_id in test_ids:
        key = _unittest_key(test_id)
        found = by_key.get(key) if key is not None else None
        if found is None:
            found = by_description.get(test_id.strip())
        outcomes[test_id] = found or "missing"
    return outcomes


# -- SymPy (bin/test --verbose) ----------------------------------------------------------------

_SYMPY_LINE = re.compile(r"^(test_\w*)\s(.*)$")
_SYMPY_TAIL = re.compile(r"\s*\[(?:OK|FAIL)\]\s*$")
_SYMPY_CODES = {"ok": "pass", "F": "fail", "E": "error", "f": "skip", "X": "fail",
                "s": "skip", "w": "skip", "T": "skip", "K": "skip"}


def parse_sympy(log: str, test_ids: Iterable[str]) -> dict[str, str]:
    by_name: dict[str, str] = {}
    for raw in log.splitlines():
        match = _SYMPY_LINE.match(raw.rstrip())
        if not match:
            continue
        tail = _SYMPY_TAIL.sub("", match.group(2)).split()
        outcome = _SYMPY_CODES.get(tail[-1]) if tail else None
        if outcome:
            _worse(by_name, match.group(1), outcome)
    return {t: by_name.get(t.strip(), "missing") for t in test_ids}


# -- by name -----------------------------------------------------------------------------------

PARSERS: dict[str, Callable[[str, Iterable[str]], dict[str, str]]] = {
    "pytest-log": parse_pytest,
    "django": parse_django,
    "sympy": parse_sympy,
    "swebench-pro": parse_statuses,  # an instance's own parser, run in the world
}


def parse(name: str, log: str, test_ids: Iterable[str]) -> dict[str, str]:
    """Outcome per requested id by the parser ``name``; ValueError for an unknown name."""
    try:  # the SWE-bench harness's parsers register themselves here (see harness_parsers)
        parser = PARSERS[name]
    except KeyError:
        raise ValueError(f"unknown log parser {name!r} (known: {', '.join(sorted(PARSERS))})") from None
    return parser(log, list(test_ids))


def capture_limit(max_output: int, log_parser: str) -> int:
    """How many bytes of each stream a backend keeps while the command runs."""
    return max(max_output, PARSE_CAPTURE) if log_parser else max_output


def clip(data: bytes, max_output: int) -> tuple[bytes, bool]:
    """The first ``max_output`` bytes (what ExecResult returns) and whether any were dropped."""
    return data[:max_output], len(data) > max_output


def run_outcomes(junit_path, log_parser: str, stdout: str, stderr: str,
                 test_ids: Iterable[str]) -> tuple[dict[str, str], bool]:
    """The outcomes of one run and whether a report was read (for ``junit.cross_check``).

    The JUnit XML when the command wrote one; else, when the request names a log parser, the
    parsed stdout and stderr (together, as a terminal shows them); else every id is missing.
    """
    test_ids = list(test_ids)
    if junit_path.exists() or not log_parser:
        return read_outcomes(junit_path, test_ids), junit_path.exists()
    return parse(log_parser, stdout + "\n" + stderr, test_ids), True



# An error that stops tests from being collected: a module that cannot be imported (pytest's
# "E   ModuleNotFoundError: ...", a traceback's last line, its short summary "ERROR path - ...").
_IMPORT_ERROR = re.compile(r"^(?:E\s+|ERROR \S+ - )?((?:ModuleNotFoundError|ImportError): .+?)\s*$", re.M)
_COLLECTION_ERROR = re.compile(r"(?:ERROR collecting|ImportError while (?:importing|loading))[^\n]*\n(.*?)(?=^_{3,}|^={3,}|\Z)",
                               re.M | re.S)
_ERROR_LINE = re.compile(r"^E\s+(\w+(?:\.\w+)*(?:Error|Exception): .+?)\s*$", re.M)


def first_collection_error(log: str) -> str:
    """The first import or collection error a test log shows (``ModuleNotFoundError: No module
    named 'astroid'``), "" when it shows none: what a user needs to fix an environment."""
    found = _IMPORT_ERROR.search(log)
    if found:
        return found.group(1)[:300]
    for block in _COLLECTION_ERROR.finditer(log):
        line = _ERROR_LINE.search(block.group(1))
        if line:
            return line.group(1)[:300]
    return ""
