"""Branch coverage of a world's command, whatever runs its tests.

A command with a pytest invocation has that invocation run under ``coverage run``. Any other
command (SymPy's ``bin/test``, Django's ``tests/runtests.py``, ``python -m unittest``) is measured
process by process instead: coverage.py's own start-up hook (``coverage.process_startup``) runs in
every Python process the command starts, because the environment names a configuration file
(``COVERAGE_PROCESS_START``) and puts a two-line ``sitecustomize`` first on ``PYTHONPATH``. That
covers a runner that re-executes itself in a subprocess (SymPy's does, for hash randomisation),
and needs no knowledge of the runner's command line. coverage.py installs a ``.pth`` file doing
the same, but a task's virtualenv reaches TestJack's coverage.py through a path entry, where
``.pth`` files are not read; the ``sitecustomize`` works in both.

Each process writes its own data file (``parallel``); ``read`` combines them.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import Callable

DATA = "coverage.data"
RCFILE = "coveragerc"
SITE = "coverage-site"

# A leading ``python -m pytest`` / ``python3 -m pytest`` / bare ``pytest`` (after an optional
# ``cd dir &&`` prefix and ``VAR=value`` assignments, which task commands sometimes carry).
_PYTEST_HEAD = re.compile(
    r"(^\s*|&&\s*|;\s*)((?:[A-Za-z_]\w*=\S*\s+)*)(?:python3?\s+-m\s+pytest|pytest)(?=\s|$)")

_STARTUP = """\
# TestJack: start coverage.py in this process when COVERAGE_PROCESS_START names its settings.
try:
    import coverage
except ImportError:
    pass
else:
    coverage.process_startup()
"""


def with_coverage(command: str, data_file: str) -> str | None:
    """Run the first pytest invocation of ``command`` under coverage.py with branch coverage.

    Returns None when the command has no pytest invocation to wrap.
    """
    wrapped = f"python -m coverage run --branch --data-file={shlex.quote(data_file)} -m pytest"
    new, count = _PYTEST_HEAD.subn(lambda m: m.group(1) + m.group(2) + wrapped, command, count=1)
    return new if count else None


def measured(command: str, out_dir: str) -> tuple[str, dict[str, str]]:
    """The command that measures ``command``'s branch coverage into ``out_dir``, and the files
    (relative to ``out_dir``) that must be there before it runs."""
    wrapped = with_coverage(command, f"{out_dir}/{DATA}")
    if wrapped is not None:
        return wrapped, {}
    # multiprocessing: workers a runner forks (Django's --parallel) end with os._exit, which
    # skips the hook that saves their data; coverage.py's own patch saves it
    rcfile = (f"[run]\nbranch = True\nparallel = True\nconcurrency = multiprocessing\n"
              f"data_file = {out_dir}/{DATA}\n")
    env = (f"export COVERAGE_PROCESS_START={shlex.quote(f'{out_dir}/{RCFILE}')} "
           f"PYTHONPATH={shlex.quote(f'{out_dir}/{SITE}')}${{PYTHONPATH:+:$PYTHONPATH}}")
    return f"{env}; {command}", {RCFILE: rcfile, f"{SITE}/sitecustomize.py": _STARTUP}


def read(out_dir: Path, relative: Callable[[str], str | None]) -> dict:
    """Lines and arcs per file of the world, from every data file the command's processes wrote.

    ``relative`` maps a measured path to its path in the world, None for a file outside it.
    """
    from coverage import CoverageData

    files = sorted(p for p in out_dir.glob(DATA + "*") if p.is_file())
    result: dict[str, dict] = {}
    for path in files:
        data = CoverageData(basename=str(path))
        data.read()
        for name in data.measured_files():
            rel = relative(name)
            if rel is None:
                continue
            seen = result.setdefault(rel, {"lines": set(), "arcs": set()})
            seen["lines"].update(data.lines(name) or [])
            seen["arcs"].update(data.arcs(name) or [])
    return {rel: {"lines": sorted(v["lines"]), "arcs": [list(a) for a in sorted(v["arcs"])]}
            for rel, v in sorted(result.items())}


def under(root: str, resolve: bool = False) -> Callable[[str], str | None]:
    """``relative`` for a world at ``root`` (``resolve``: compare real paths, as on the host)."""
    prefix = (os.path.realpath(root) if resolve else root.rstrip("/")) + os.sep

    def relative(name: str) -> str | None:
        path = os.path.realpath(name) if resolve else name
        return path[len(prefix):] if path.startswith(prefix) else None

    return relative
