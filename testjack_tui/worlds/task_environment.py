"""A script run in a world in the task's environment: what T0's command sets before its runner.

T0's command may prepare the environment its tests run in: a SWE-bench task on a ``src/`` layout
exports ``PYTHONPATH=src``, a harness image puts its conda environment first on ``PATH``, SymPy's
line sets ``PYTHONWARNINGS``, a runner is started by a given interpreter (``python3.9 -m pytest``),
Django's runner is given a settings module (``--settings``) and puts its own folder on the path.
A probe, or any script TestJack runs in a world in place of T0's command, gets the same: the shell
before the runner's segment, the variables assigned on the runner's line, its interpreter, and
for Django the settings module and the runner's folder. A ``cd`` before the runner is left out:
the script is written at the repository's root and reads its paths from there.

A command with no such set-up (a native task's ``python -m pytest ...``) gives back the plain
``python <script>``, the request a probe always made, so its cache key does not change.
"""

from __future__ import annotations

import re
import shlex

from .harness_parsers import base_parser
from .witness_runs import SEPARATOR, runner_line

_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
_INTERPRETER = re.compile(r"(?:^|/)python[\d.]*$")
_RUNNERS = ("pytest-log", "sympy", "django")


def in_task_environment(command: str, log_parser: str, arguments: str) -> str:
    """The shell line that runs ``python arguments`` (shell text: a script, or ``-m pytest ...``,
    quoted by the caller) with the environment ``command`` gives its runner."""
    for parser in dict.fromkeys([base_parser(log_parser), *_RUNNERS]):
        found = runner_line(command, parser)
        if found is not None:
            prefix, head, options = found
            return _kept(prefix) + _set_up(head, options, parser) + f"{_interpreter(head)} {arguments}"
    return f"python {arguments}"


def _kept(prefix: str) -> str:
    """The set-up before the runner's segment, without a change of folder."""
    segments = SEPARATOR.split(prefix.strip())
    separators = SEPARATOR.findall(prefix.strip())
    kept = [(s, sep) for s, sep in zip(segments, separators) if s and not re.match(r"^(?:cd|pushd)\b", s)]
    return "".join(f"{s} {sep.strip()} " for s, sep in kept)


def _set_up(head: list[str], options: list[str], parser: str) -> str:
    """Exports for the variables the runner's line assigns, and Django's settings and folder."""
    exports = [f"export {t}" for t in head if _ASSIGNMENT.match(t)]
    if parser == "django":
        words = [shlex.split(o)[0] if o else o for o in options]
        settings = next((w.split("=", 1)[1] for w in words if w.startswith("--settings=")), None)
        if settings is None and "--settings" in words and words.index("--settings") + 1 < len(words):
            settings = words[words.index("--settings") + 1]
        if settings:
            exports.append(f"export DJANGO_SETTINGS_MODULE={shlex.quote(settings)}")
        runner = shlex.split(head[-1])[0]
        folder = runner.rsplit("/", 1)[0].removeprefix("./") if "/" in runner else ""
        if folder:
            exports.append(f"export PYTHONPATH={shlex.quote(folder)}:$PYTHONPATH")
    return "".join(f"{e} && " for e in exports)


def _interpreter(head: list[str]) -> str:
    """The interpreter the runner's line names (``python3.9 -m pytest``), else ``python``."""
    for token in head:
        word = shlex.split(token)[0] if token and not _ASSIGNMENT.match(token) else ""
        if _INTERPRETER.search(word):
            return token
    return "python"
