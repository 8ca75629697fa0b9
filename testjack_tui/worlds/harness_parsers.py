"""Graded ids read from a test log by the SWE-bench harness's rules (``swebench-*`` log parsers).

The SWE-bench harness runs the test files of the test patch with the repository's own runner and
reads each graded id from the console log; its datasets' FAIL_TO_PASS / PASS_TO_PASS ids are what
its parsers produced. So they are read here the same way, written from the harness's rules (the
``swebench`` package is not needed):

``swebench-pytest``
    a line that starts with ``PASSED``, ``FAILED``, ``SKIPPED``, ``ERROR`` or ``XFAIL`` (pytest's
    ``-rA`` summary) names a test by its first whitespace-separated word after the status (on a
    ``FAILED`` line ``" - "`` is dropped first); a later line for the same name wins. That is why
    the datasets hold ids cut at a space (``test_help_msg[args1-No``): such an id matches the line
    it was cut from. A graded id that matches no name exactly matches the whole node id (pytest's
    ``-rA`` line up to its `` - message``, the key of swebench 5), else, when it was cut inside its
    parameters (more ``[`` than ``]``), the node ids it starts: their outcome when they agree on
    passing or not, a failure when they do not (swebench 5.0.2's ``_resolve_case``).
    For the repositories whose tests take file paths as parameters (pylint, requests), the harness
    cuts a parameter that is an absolute path (one leading ``/``, no ``*``) to its last part:
    ``test_x[/testbed/tests/a.py]`` is graded as ``test_x[/a.py]``. A graded id that matches no
    name as printed is matched against the names so shortened (a later line wins), whatever the
    repository: only a harness that shortened them makes such ids, so the rule cannot change an
    id that matches as printed.
``swebench-sympy``
    ``bin/test --verbose`` lines ``test_x ok`` / ``test_x F`` / ``test_x E`` (the file's last line may
    end in ``[OK]``/``[FAIL]``) and the ``____ path.py:test_x ____`` headers of failures; the codes
    of expected failures and skips are not recorded (a graded test reported so is missing).
``swebench-django``
    unittest's verbosity-2 lines, read as ``worlds.logparsers.parse_django`` does.

Outcomes: ``pass`` (PASSED, XFAIL, ok), ``fail``, ``error``, ``skip`` (SKIPPED, unittest skips) and
``missing`` (the log never names the id). How skips count is the grader's business
(``audit.grading``: a skipped fail-to-pass test is a failure, a skipped pass-to-pass test a pass,
as swebench 5.0.2 grades them).

``log_failures`` lists the tests the log shows failing or erroring, graded or not: a command whose
exit code is non-zero because an ungraded test of the same file failed is not a crash (``junit
.cross_check``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .logparsers import _RANK, PARSERS, _cut_message, _worse, parse_django

HARNESS_PARSERS = ("swebench-pytest", "swebench-django", "swebench-sympy")
_STATUSES = ("PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL")
_PYTEST_OUTCOME = {"PASSED": "pass", "XFAIL": "pass", "FAILED": "fail", "ERROR": "error", "SKIPPED": "skip"}


def is_harness_parser(name: str) -> bool:
    return name in HARNESS_PARSERS


def base_parser(name: str) -> str:
    """The plain parser a harness parser reads like ("pytest-log", "django", "sympy")."""
    return {"swebench-pytest": "pytest-log", "swebench-django": "django", "swebench-sympy": "sympy"}.get(name, name)


# -- pytest --------------------------------------------------------------------------------------


_PARAMETERS = re.compile(r"(.*?)\[(.*)\]")


def path_parameters_shortened(name: str) -> str:
    """The harness's rule for tests parametrized by paths: an absolute path parameter cut to its last part."""
    found = _PARAMETERS.search(name)
    if not found:
        return name
    main, option = found.groups()
    if option.startswith("/") and not option.startswith("//") and "*" not in option:
        option = "/" + option.split("/")[-1]
    return f"{main}[{option}]"


def _pytest_maps(log: str) -> tuple[dict[str, str], dict[str, str]]:
    """(harness key -> status word, last wins, then the keys with path parameters shortened; full
    node id -> outcome, worst wins)."""
    keys: dict[str, str] = {}
    shortened: dict[str, str] = {}
    full: dict[str, str] = {}
    for line in log.split("\n"):
        if not line.startswith(_STATUSES):
            continue
        word = line.split(" ", 1)[0]
        if word not in _STATUSES:
            continue
        harness_line = line.replace(" - ", " ") if word == "FAILED" else line
        parts = harness_line.split()
        if len(parts) <= 1:
            continue
        keys[parts[1]] = parts[0]
        shortened[path_parameters_shortened(parts[1])] = parts[0]
        node = _cut_message(line[len(word):].strip())
        if node and not node.startswith("["):
            _worse(full, node, _PYTEST_OUTCOME[word])
    for key, word in shortened.items():
        keys.setdefault(key, word)  # never over a name as printed
    return keys, full


def parse_harness_pytest(log: str, test_ids: Iterable[str]) -> dict[str, str]:
    keys, full = _pytest_maps(log)
    outcomes: dict[str, str] = {}
    for test_id in test_ids:
        if test_id in keys:
            outcomes[test_id] = _PYTEST_OUTCOME[keys[test_id]]
        elif test_id in full:
            outcomes[test_id] = full[test_id]
        else:
            outcomes[test_id] = _truncated(test_id, full)
    return outcomes


def _truncated(test_id: str, full: dict[str, str]) -> str:
    """A graded id cut inside its parameters (more ``[`` than ``]``): the node ids it starts.

    Only such ids are matched by prefix, and only when those tests agree on passing or not; an id
    that is not cut (``test_help``) never stands for ``test_help_msg[...]``, and tests that disagree
    grade as a failure, as the harness grades them.
    """
    if test_id.count("[") <= test_id.count("]"):
        return "missing"
    found = [o for n, o in full.items() if n.startswith(test_id)]
    if not found:
        return "missing"
    if len({o == "pass" for o in found}) > 1:
        return "fail"
    return max(found, key=_RANK.__getitem__)


# -- SymPy ---------------------------------------------------------------------------------------

_SYMPY_HEADER = re.compile(r"(_*) (.*)\.py:(.*) (_*)")
_SYMPY_TAIL = re.compile(r"\s*\[(?:OK|FAIL)\]\s*$")


def _sympy_map(log: str) -> dict[str, str]:
    status: dict[str, str] = {}
    for match in _SYMPY_HEADER.findall(log):
        status[f"{match[1]}.py:{match[2]}"] = "fail"
    for raw in log.split("\n"):
        line = _SYMPY_TAIL.sub("", raw.strip())
        if not line.startswith("test_"):
            continue
        name = line.split()[0]
        if line.endswith(" E"):
            status[name] = "error"
        elif line.endswith(" F"):
            status[name] = "fail"
        elif line.endswith(" ok"):
            status[name] = "pass"
    return status


def parse_harness_sympy(log: str, test_ids: Iterable[str]) -> dict[str, str]:
    status = _sympy_map(log)
    return {t: status.get(t.strip(), "missing") for t in test_ids}


# -- by name -------------------------------------------------------------------------------------


def parse_harness(name: str, log: str, test_ids: Iterable[str]) -> dict[str, str]:
    test_ids = list(test_ids)
    if name == "swebench-pytest":
        return parse_harness_pytest(log, test_ids)
    if name == "swebench-sympy":
        return parse_harness_sympy(log, test_ids)
    if name == "swebench-django":
        return parse_django(log, test_ids)
    raise ValueError(f"unknown harness log parser {name!r}")


def log_failures(name: str, log: str) -> list[str]:
    """Every test the log shows failing or erroring (graded or not), in the order first seen."""
    if name == "swebench-pytest":
        keys, full = _pytest_maps(log)
        found = [n for n, o in full.items() if o in ("fail", "error")]
        # ``ERROR path``: a file that failed to collect
        found += [m for m in re.findall(r"^ERROR (\S+)", log, re.M) if "::" not in m]
        return list(dict.fromkeys(found))
    if name == "swebench-sympy":
        failing = [n for n, o in _sympy_map(log).items() if o in ("fail", "error")]
        # a failure's header (``path.py:test_x``) names the same test as its ``test_x F`` line
        return [n for n in failing if ":" not in n or n.rsplit(":", 1)[1] not in failing]
    if name == "swebench-django":
        names = re.findall(r"^(?:FAIL|ERROR): (\w+ \([\w.]+\))", log, re.M)
        names += [m for m in re.findall(r"^(.*?) \.\.\. (?:FAIL|ERROR)\s*$", log, re.M)]
        return list(dict.fromkeys(names))
    return []


def failures_in_log(log_parser: str, stdout: str, stderr: str) -> list[str]:
    """For harness-graded runs: every test the log shows failing (``junit.cross_check``); else []."""
    return log_failures(log_parser, stdout + "\n" + stderr) if is_harness_parser(log_parser) else []


for _name in HARNESS_PARSERS:  # ``logparsers.parse`` (and so the backends) read logs by these names
    PARSERS[_name] = lambda log, test_ids, _name=_name: parse_harness(_name, log, test_ids)
