"""Running a public task's tests the way the SWE-bench harness does, for ``swebench_public_task.py``.

The harness runs the repository's own runner on the test files the test patch touches and reads
each test's outcome from the console log. Here:

- ``pytest``: ``python -m pytest -rA FILES``, outcomes from the ``-rA`` summary lines
  (``PASSED id`` / ``FAILED id`` / ``SKIPPED ...``), keyed by node id;
- ``sympy``: ``bin/test -C --verbose FILES`` (the harness's command, with its PYTHONWARNINGS),
  outcomes from the verbose per-test lines (``test_x ok``, ``test_x F``, ``test_x E``), keyed by
  the bare test name, as SymPy's graded ids are.

The environment is a virtualenv holding the task's pip requirements (built once under the output
folder, from PyPI); a task with none runs on this interpreter. A ``src/`` folder holding a package
goes on PYTHONPATH, as TestJack does for a src layout. These readers are our own, kept apart from
TestJack's engine, which is what the tasks are built to test.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# SymPy's sdists do not ship bin/test (its git repository does). This stand-in, written for these
# tasks, takes the options the harness and TestJack pass and calls SymPy's own runner.
BIN_TEST = '''#!/usr/bin/env python
"""Stand-in for SymPy's bin/test (not in the sdist): SymPy's own test runner on the given paths."""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
parser = argparse.ArgumentParser()
parser.add_argument("-C", "--no-cache", action="store_true")
parser.add_argument("-v", "--verbose", action="store_true")
parser.add_argument("--seed", type=int)
parser.add_argument("--timeout", type=int, default=False)
parser.add_argument("-k", dest="kw", action="append")
parser.add_argument("--split")
parser.add_argument("--rerun", type=int, default=0)
parser.add_argument("paths", nargs="*")
args = parser.parse_args()
if args.no_cache:
    os.environ["SYMPY_USE_CACHE"] = "no"  # read when sympy is first imported

from sympy.testing.runtests import test  # noqa: E402  (sympy.test is pytest-based since 1.13)

ok = test(*args.paths, verbose=args.verbose, seed=args.seed, timeout=args.timeout,
          kw=args.kw, split=args.split, rerun=args.rerun)
sys.exit(0 if ok else 1)  # test() is true when every test passed
'''

SYMPY_WARNINGS = "ignore::UserWarning,ignore::SyntaxWarning"  # what the harness's command sets
_RA_LINE = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL) (\S+::\S+)")
# the harness records only these three codes, on a line that ends with one: the last test of a
# file, whose line ends in "[OK]" or "[FAIL]", and skipped tests are not recorded (so they are
# never graded: the harness's datasets hold no such id)
_SYMPY_LINE = re.compile(r"^(test_\w+) (ok|F|E)$")
_SYMPY_OUTCOME = {"ok": "pass", "F": "fail", "E": "fail"}
_PYTEST_OUTCOME = {"PASSED": "pass", "XFAIL": "pass", "SKIPPED": "skip", "FAILED": "fail", "ERROR": "fail"}


def python_for(requirements: list[str], venvs: Path, runner: str) -> str:
    """The interpreter to run with: this one when nothing is required, else a virtualenv of them."""
    if not requirements:
        return sys.executable
    specs = list(requirements)
    if runner == "pytest" and not any(re.match(r"^pytest\b", s) for s in specs):
        specs.append("pytest")
    key = hashlib.sha256("\n".join(sorted(specs)).encode()).hexdigest()[:12]
    venv = venvs / f"venv-{key}"
    python = venv / "bin" / "python"
    if not (venv / ".ready").is_file():
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", *specs],
                              capture_output=True, text=True, timeout=900)
        if done.returncode:
            raise SystemExit(f"pip install {' '.join(specs)} failed:\n{done.stderr.strip()[-2000:]}")
        (venv / ".ready").write_text("\n".join(specs) + "\n")
    return str(python)


def src_path(world: Path) -> list[str]:
    src = world / "src"
    if src.is_dir() and any((d / "__init__.py").is_file() for d in src.iterdir() if d.is_dir()):
        return [str(src)]
    return []


def run_tests(repo: Path, patches: list[str], files: list[str], *, runner: str = "pytest",
              python: str = sys.executable) -> dict[str, str]:
    """Each test's outcome ("pass" / "fail" / "skip") on the base commit with ``patches`` applied."""
    with tempfile.TemporaryDirectory(prefix="swebench-public-") as tmp:
        world = Path(tmp) / "world"
        shutil.copytree(repo, world, ignore=shutil.ignore_patterns(".git"))
        for patch in patches:
            done = subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], cwd=world, input=patch,
                                  capture_output=True, text=True)
            if done.returncode:
                raise SystemExit(f"a patch does not apply: {done.stderr.strip()}")
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1",
               "PYTHONPATH": os.pathsep.join([*src_path(world), str(world)])}
        if runner == "sympy":
            env["PYTHONWARNINGS"] = SYMPY_WARNINGS
            argv = [python, "bin/test", "-C", "--verbose", *files]
        else:
            env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
            argv = [python, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *files]
        done = subprocess.run(argv, cwd=world, capture_output=True, text=True, env=env, timeout=1200)
    outcomes = read_sympy(done.stdout) if runner == "sympy" else read_pytest(done.stdout)
    if not outcomes:
        raise SystemExit(f"the runner reported no test:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return outcomes


def read_pytest(log: str) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    for line in log.splitlines():
        match = _RA_LINE.match(line)
        if match:
            outcomes[match.group(2)] = _PYTEST_OUTCOME[match.group(1)]
    return outcomes


def read_sympy(log: str) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    for line in log.splitlines():
        match = _SYMPY_LINE.match(line.strip())
        if match:
            outcomes[match.group(1)] = _SYMPY_OUTCOME[match.group(2)]
    return outcomes
