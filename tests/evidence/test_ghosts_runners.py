"""Ghost branches when T0's command is not pytest: SymPy's ``bin/test``, Django's ``runtests.py``,
``python -m unittest``. Coverage follows every Python process of the runner (the SymPy-style
runner re-executes itself in a subprocess, as SymPy's does for hash randomisation; the forked one
runs the tests in multiprocessing workers, as Django's ``--parallel`` does)."""

from __future__ import annotations

import hashlib

import pytest
from evidence_support import make_diff
from test_ghosts import AFTER, BEFORE, PROMPT, read

from testjack_tui.evidence import ghost_branches
from testjack_tui.worlds import run_request
from testjack_tui.worlds.request import ExecRequest, Patch

TESTS = ("from calc import clamp\n\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n\n\n"
         "def test_above():\n    assert clamp(50, 0, 10) == 10\n")
UNITTESTS = ("import unittest\n\nfrom calc import clamp\n\n\nclass ClampTests(unittest.TestCase):\n"
             "    def test_inside(self):\n        self.assertEqual(clamp(5, 0, 10), 5)\n\n"
             "    def test_above(self):\n        self.assertEqual(clamp(50, 0, 10), 10)\n")

# SymPy's bin/test in small: without PYTHONHASHSEED it runs itself again in a child process with
# one set, and only the child imports and runs the tests
SYM_RUNNER = '''#!/usr/bin/env python
import importlib, os, subprocess, sys
if not os.environ.get("PYTHONHASHSEED"):
    os.environ["PYTHONHASHSEED"] = "7"
    sys.exit(subprocess.call([sys.executable, "-R", __file__, *sys.argv[1:]]))
sys.path.insert(0, os.getcwd())
for path in [a for a in sys.argv[1:] if a.endswith(".py")]:
    mod = importlib.import_module(path[:-3].replace("/", "."))
    for name in [n for n in vars(mod) if n.startswith("test_")]:
        getattr(mod, name)()
        print(name, "ok")
'''
DJ_RUNNER = '''#!/usr/bin/env python
import os, sys, unittest
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.dirname(here)]
suite = unittest.defaultTestLoader.loadTestsFromNames([a for a in sys.argv[1:] if not a.startswith("-") and not a.isdigit()])
sys.exit(0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1)
'''
# Django's --parallel in small: the tests run in forked multiprocessing workers
FORKED_RUNNER = '''import multiprocessing, os, sys, unittest
sys.path.insert(0, os.getcwd())


def run(name):
    suite = unittest.defaultTestLoader.loadTestsFromName(name)
    return unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful()


if __name__ == "__main__":
    names = ["tests.test_calc.ClampTests.test_inside", "tests.test_calc.ClampTests.test_above"]
    pool = multiprocessing.get_context("fork").Pool(2)
    ok = all(pool.map(run, names))
    pool.close()  # as Django's runner ends its pool: the workers finish, then exit
    pool.join()
    sys.exit(0 if ok else 1)
'''

RUNNERS = {
    "sympy bin/test": ({"bin/test": SYM_RUNNER, "calc_pkg/__init__.py": "", "calc_pkg/tests/__init__.py": "",
                        "calc_pkg/tests/test_calc.py": TESTS}, "bin/test -C --verbose calc_pkg/tests/test_calc.py"),
    "django runtests.py": ({"tests/runtests.py": DJ_RUNNER, "tests/calc_tests/__init__.py": "",
                            "tests/calc_tests/tests.py": UNITTESTS},
                           "./tests/runtests.py --verbosity 2 --parallel 1 calc_tests.tests"),
    "forked workers": ({"tests/__init__.py": "", "tests/test_calc.py": UNITTESTS, "run_forked.py": FORKED_RUNNER},
                       "python run_forked.py"),
    "python -m unittest": ({"tests/__init__.py": "", "tests/test_calc.py": UNITTESTS},
                           "python -m unittest -v tests.test_calc"),
}


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_ghost_branches_are_measured_without_pytest(runner, tmp_path):
    files, command = RUNNERS[runner]
    repo = tmp_path / "repo"
    for rel, text in {"calc.py": BEFORE, **files}.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    for script in ("bin/test", "tests/runtests.py"):
        if (repo / script).exists():
            (repo / script).chmod(0o755)
    patch = make_diff({"calc.py": BEFORE}, {"calc.py": AFTER})
    digest = hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()  # the pristine tree's cache key
    request = ExecRequest(snapshot=str(repo), snapshot_digest=digest, command=command,
                          patches=(Patch("trial:t", patch),), coverage=True)
    result = run_request(request)
    assert result.status == "ok" and result.exit_code == 0, result.stdout + result.stderr
    assert "calc.py" in result.coverage  # measured in the process that ran the tests
    assert all(not path.startswith(("/", "..")) for path in result.coverage)  # the world's files only
    found = ghost_branches(patch, result.coverage, read, PROMPT, run_id="r", trial_id="t")
    # as under pytest: the empty-interval check (lines 12-13) and `return lo` (15) never run
    assert sorted(e.line for e in found) == [12, 15]
