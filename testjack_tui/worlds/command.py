"""Turn a request's command template into the shell line that runs it.

The template has two placeholders: ``{tests}`` (the requested test ids, shell-quoted, separated by
spaces) and ``{junit}`` (where pytest writes its JUnit XML). Plain ``str.replace`` is used rather
than ``str.format`` because real commands carry braces of their own (``awk '{print}'``, ``${VAR}``).
"""

from __future__ import annotations

import shlex

from .request import ExecRequest

# pytest's default JUnit family (xunit2) drops the ``file`` attribute of each test case; xunit1
# keeps it, so a node id like ``tests/test_x.py::TestC::test_m[1-2]`` can be rebuilt exactly.
# Backends put this in the environment rather than in the command so the command stays the task's.
PYTEST_ENV = {"PYTEST_ADDOPTS": "-o junit_family=xunit1"}


def render_command(request: ExecRequest, junit_path: str) -> str:
    tests = " ".join(shlex.quote(t) for t in request.test_ids)
    return request.command.replace("{tests}", tests).replace("{junit}", shlex.quote(junit_path))
