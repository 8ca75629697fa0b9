"""Witness runs on tasks whose command names its own tests: run the witness files instead.

A SWE-bench task whose command writes no JUnit XML (Django's ``tests/runtests.py``, SymPy's
``bin/test``, an eval_script's ``pytest -rA tests/x.py``) has no ``{tests}`` placeholder: the
files it runs are baked into it. The witness files an audit adds to such a world would never be
run, and their outcomes would come back "missing". ``for_witnesses`` turns such a request into one
that runs the witness files with the task's own program and options:

``pytest-log``
    the command's pytest invocation with its test paths replaced by the witness files, writing
    JUnit XML (``{junit}``), where pytest reports one outcome per file.
``django`` / ``sympy``
    the runner (``runtests.py`` with its options and the witness modules' labels; ``bin/test``
    with its options and the witness files), once per witness file. These runners write no XML
    and name tests, not files, so the shell line prints one ``PASSED <file>::witness`` or
    ``FAILED <file>::witness`` line per file, from the runner's exit code, and the request is
    read with the ``pytest-log`` parser (a file takes the worst of its lines, so a test printing a
    forged ``PASSED`` line cannot hide the ``FAILED`` one). A runner that found no test at all
    (Django's ``Ran 0 tests``, SymPy's ``0 passed,`` with nothing else) reports nothing for the
    file, so its outcome is ``missing``: the witness was not collected, and is never certified
    (the audit calls it ``not_collected``, not "fails on the reference").

A request is a witness run when every requested id is a file the request adds (``extra_files``);
T0 runs (graded ids, no extra files) are left exactly as they are. A command this module does not
recognise is left as it was too. The command is tokenised with ``shlex``; the small lists of
options that take a value are facts of the three runners' command lines.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import replace

from .harness_parsers import base_parser
from .request import ExecRequest

WITNESS_NODE = "witness"  # the name after ``::`` in the per-file lines printed for django/sympy

_VALUE_OPTIONS = {
    "pytest-log": {"-p", "-k", "-m", "-c", "-o", "-W", "-n", "--deselect", "--ignore", "--ignore-glob",
                   "--rootdir", "--tb", "--durations", "--maxfail", "--confcutdir", "--basetemp", "--cov",
                   "--junitxml", "--junit-xml", "--import-mode"},
    "django": {"--settings", "--parallel", "--verbosity", "-v", "--start-after", "--start-at", "-k",
               "--tag", "--exclude-tag"},
    "sympy": {"--seed", "--timeout", "--split", "-k", "--rerun"},
}
# the token that names each runner's program, and what its output says when it ran no test
_PROGRAM = {
    "pytest-log": re.compile(r"^(?:.*/)?(?:pytest|py\.test)$"),
    "django": re.compile(r"(?:^|/)runtests\.py$"),
    "sympy": re.compile(r"(?:^|/)bin/test$"),
}
_NOTHING_RAN = {"django": r"^Ran 0 tests", "sympy": r"tests finished: 0 passed, in"}
SEPARATOR = re.compile(r"\s*(?:&&|;)\s*")


def is_witness_run(request: ExecRequest) -> bool:
    added = {path for path, _ in request.extra_files}
    return bool(request.test_ids) and all(t in added for t in request.test_ids)


def for_witnesses(request: ExecRequest) -> ExecRequest:
    """The request with a command that runs its witness files (unchanged when it already does)."""
    if "{tests}" in request.command or not request.log_parser or not is_witness_run(request):
        return request
    # a harness-graded task (``swebench-*``) runs its witnesses like its plain runner
    command = witness_command(request.command, base_parser(request.log_parser), list(request.test_ids))
    if command is None:
        return request
    parser = request.log_parser if request.log_parser == "pytest-log" else "pytest-log"
    return replace(request, command=command, log_parser=parser)


def witness_command(command: str, log_parser: str, files: list[str]) -> str | None:
    """``command`` made to run ``files``; None when its runner is not found in it."""
    found = runner_line(command, log_parser)
    if found is None:
        return None
    prefix, head, options = found
    if log_parser == "pytest-log":
        kept = [o for o in options if not o.startswith(("--junitxml", "--junit-xml"))]
        return prefix + " ".join([*head, *kept, "-rA", "--junitxml={junit}", "{tests}"])
    return prefix + _per_file(head, options, files, log_parser)


def runner_line(command: str, log_parser: str) -> tuple[str, list[str], list[str]] | None:
    """(the shell before the runner's segment, with its separators; the runner's tokens up to its
    program; its options without test names) of the last segment that runs the runner, or None."""
    if log_parser not in _PROGRAM:
        return None
    segments = SEPARATOR.split(command.strip())
    separators = SEPARATOR.findall(command.strip())
    for i in range(len(segments) - 1, -1, -1):
        split = _split_runner(segments[i], log_parser)
        if split is not None:
            return "".join(s + sep for s, sep in zip(segments[:i], separators[:i])), *split
    return None


def _split_runner(segment: str, log_parser: str) -> tuple[list[str], list[str]] | None:
    """(the tokens up to and including the runner, its options without test names), or None."""
    try:
        tokens = shlex.split(segment)
    except ValueError:
        return None
    program = _PROGRAM[log_parser]
    at = None
    for i, tok in enumerate(tokens):
        if program.search(tok):
            at = i
            break
        if tok == "-m" and i + 1 < len(tokens) and log_parser == "pytest-log" and tokens[i + 1] == "pytest":
            at = i + 1
            break
    if at is None:
        return None
    head = [shlex.quote(t) if not re.match(r"^[A-Za-z_]\w*=", t) else _quote_assignment(t)
            for t in tokens[: at + 1]]
    options: list[str] = []
    rest = tokens[at + 1:]
    takes_value = _VALUE_OPTIONS[log_parser]
    j = 0
    while j < len(rest):
        tok = rest[j]
        if tok.startswith("-"):
            options.append(shlex.quote(tok))
            if tok in takes_value and j + 1 < len(rest):
                options.append(shlex.quote(rest[j + 1]))
                j += 1
        # anything else is a test file, module label or node id: the task's own, not the witnesses'
        j += 1
    return head, options


def _quote_assignment(token: str) -> str:
    name, value = token.split("=", 1)
    return f"{name}={shlex.quote(value)}"


def _label(head: list[str], path: str, log_parser: str) -> str:
    """What the runner is given for one witness file: Django takes a module label under its tests dir."""
    if log_parser != "django":
        return path
    runner = shlex.split(head[-1])[0]
    tests_dir = runner.rsplit("/", 1)[0].removeprefix("./") if "/" in runner else ""
    rel = path.removeprefix(tests_dir + "/") if tests_dir else path
    return rel.removesuffix(".py").replace("/", ".")


def _per_file(head: list[str], options: list[str], files: list[str], log_parser: str) -> str:
    """A shell line that runs the runner once per file and prints one pytest-style line per file."""
    runner = " ".join([*head, *options])
    empty = shlex.quote(_NOTHING_RAN[log_parser])
    lines = ["tj_rc=0"]
    for path in files:
        node = shlex.quote(f"{path}::{WITNESS_NODE}")
        lines.append(
            f"tj_out=$({runner} {shlex.quote(_label(head, path, log_parser))} 2>&1); tj_code=$?; "
            f"printf '%s\\n' \"$tj_out\"; "
            f"if printf '%s\\n' \"$tj_out\" | grep -Eq {empty}; then echo NOT COLLECTED {node}; "
            f"elif [ $tj_code -eq 0 ]; then echo PASSED {node}; else echo FAILED {node}; tj_rc=1; fi"
        )
    lines.append("exit $tj_rc")
    return "; ".join(lines)
