"""Small SWE-bench datasets of four repository styles, built as local git repositories.

Each style is a repository with the shape of a real one the harness runs, a fix (the reference
patch), a test patch, graded ids as the harness's parsers name them, and three predictions:
``good`` (the fix), ``partial`` (passes the official tests, misses what the statement says) and
``broken`` (fails them). The harness's verdicts (one report per model) say good and partial are
resolved. ``ANALYST`` holds, per style, the witness an analyst writes from the statement.

- ``symlike``: SymPy's layout and runner: ``bin/test`` prints a line per test (``test_x ok``,
  ``F``, ``E``, the file's last one with ``[OK]``/``[FAIL]``), failure headers, and exits 1 when a
  test of the file fails; it collects only files in the package's ``tests/`` folders. Its official
  test file keeps an ungraded test that always errors.
- ``lintlike``: pytest, with parametrised ids that hold a space (the dataset cuts them there, as
  the harness's parser does: ``test_check[missing.py-No``) and a ``/`` inside the brackets.
- ``flasklike``: pytest on a ``src/`` layout.
- ``djlike``: Django's ``tests/runtests.py`` with dotted module labels and unittest ids, and a
  skipped pass-to-pass test.

A style may name a ``good`` change of its own (the ``good`` prediction is then not the fix).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

SYM_RUNNER = '''\
#!/usr/bin/env python
"""bin/test in small: SymPy's verbose output for the test files it is given."""
import importlib, os, sys, traceback
sys.path.insert(0, os.getcwd())
files = [a for a in sys.argv[1:] if not a.startswith("-")]
# like SymPy's runner: only test_*.py files inside the package's tests/ folders are collected
files = [f for f in files if f.startswith("symlike/") and "/tests/" in f and os.path.basename(f).startswith("test_")]
passed = failed = 0
reports = []
for path in files:
    mod = importlib.import_module(path[:-3].replace("/", "."))
    names = [n for n, v in vars(mod).items() if n.startswith("test_") and callable(v)]
    print("%s[%d] " % (path, len(names)))
    bad = False
    for i, name in enumerate(names):
        try:
            getattr(mod, name)()
            code = "ok"
            passed += 1
        except AssertionError:
            code, bad = "F", True
            failed += 1
            reports.append((path, name, traceback.format_exc()))
        except Exception:
            code, bad = "E", True
            failed += 1
            reports.append((path, name, traceback.format_exc()))
        tail = ("      [FAIL]" if bad else "      [OK]") if i == len(names) - 1 else ""
        print(name + " " + code + tail)
for path, name, tb in reports:
    print("_" * 20 + " %s:%s " % (path, name) + "_" * 20)
    print(tb)
print("tests finished: %d passed, %sin 0.01 seconds" % (passed, "%d failed, " % failed if failed else ""))
sys.exit(1 if failed else 0)
'''

DJ_RUNNER = '''\
import os, sys, unittest
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.dirname(here)]
labels = [a for a in sys.argv[1:] if not a.startswith("-") and not a.isdigit()]
suite = unittest.defaultTestLoader.loadTestsFromNames(labels)
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(0 if result.wasSuccessful() else 1)
'''

STYLES: dict[str, dict] = {
    "symlike": {
        "repo": "acme/symlike",
        "statement": "sign(0) returns 1\n\nsign(x) must be 0 for every zero, 0 and 0.0 alike.",
        "base": {
            "bin/test": SYM_RUNNER,
            "symlike/__init__.py": "",
            "symlike/core/__init__.py": "",
            "symlike/core/basic.py": "def sign(x):\n    return 1 if x >= 0 else -1\n",
            "symlike/core/tests/__init__.py": "",
            "symlike/core/tests/test_basic.py": (
                "from symlike.core.basic import sign\n\n\ndef test_sign_positive():\n    assert sign(3) == 1\n\n\n"
                "def test_known_broken():\n    assert sign(None) == 0\n"),
        },
        "fix": {"symlike/core/basic.py": "def sign(x):\n    return (x > 0) - (x < 0)\n"},
        "partial": {"symlike/core/basic.py": (
            "def sign(x):\n    if x == 0 and isinstance(x, int):\n        return 0\n    return 1 if x >= 0 else -1\n")},
        "tests": {"symlike/core/tests/test_basic.py": (
            "from symlike.core.basic import sign\n\n\ndef test_sign_positive():\n    assert sign(3) == 1\n\n\n"
            "def test_known_broken():\n    assert sign(None) == 0\n\n\n"
            "def test_sign_zero():\n    assert sign(0) == 0\n")},
        "FAIL_TO_PASS": ["test_sign_zero"],
        "PASS_TO_PASS": ["test_sign_positive"],
    },
    "lintlike": {
        "repo": "acme/lintlike",
        "statement": ("check() says ok for files that do not exist\n\nAny path that is not a known file must "
                      "give 'No such file'."),
        "base": {
            "lintlike/__init__.py": "",
            "lintlike/cli.py": "KNOWN = {'a.py', 'dir/sub.py'}\n\n\ndef check(path):\n    return 'ok'\n",
            "tests/__init__.py": "",
            "tests/test_cli.py": "from lintlike.cli import check\n\n\ndef test_known():\n    assert check('a.py') == 'ok'\n",
        },
        "fix": {"lintlike/cli.py": ("KNOWN = {'a.py', 'dir/sub.py'}\n\n\ndef check(path):\n"
                                    "    return 'ok' if path in KNOWN else 'No such file'\n")},
        "partial": {"lintlike/cli.py": ("KNOWN = {'a.py', 'dir/sub.py'}\n\n\ndef check(path):\n"
                                        "    return 'No such file' if path == 'missing.py' else 'ok'\n")},
        "tests": {"tests/test_cli.py": (
            "import pytest\n\nfrom lintlike.cli import check\n\n\ndef test_known():\n    assert check('a.py') == 'ok'\n\n\n"
            "@pytest.mark.parametrize('path,msg', [('a.py', 'ok'), ('missing.py', 'No such file'), ('dir/sub.py', 'ok')])\n"
            "def test_check(path, msg):\n    assert check(path) == msg\n\n\n"
            "@pytest.mark.skip(reason='not on this platform')\ndef test_elsewhere():\n    assert False\n")},
        # as the harness's parser names them: cut at the first space
        "FAIL_TO_PASS": ["tests/test_cli.py::test_check[missing.py-No"],
        "PASS_TO_PASS": ["tests/test_cli.py::test_known", "tests/test_cli.py::test_check[a.py-ok]",
                         "tests/test_cli.py::test_check[dir/sub.py-ok]"],
    },
    "flasklike": {
        "repo": "acme/flasklike",
        "statement": "url_join doubles slashes\n\nurl_join(base, path) must put exactly one '/' between them.",
        "base": {
            "src/flasklike/__init__.py": "def url_join(base, path):\n    return base + '/' + path\n",
            "tests/test_url.py": "from flasklike import url_join\n\n\ndef test_plain():\n    assert url_join('a', 'b') == 'a/b'\n",
        },
        "fix": {"src/flasklike/__init__.py": "def url_join(base, path):\n    return base.rstrip('/') + '/' + path.lstrip('/')\n"},
        "partial": {"src/flasklike/__init__.py": "def url_join(base, path):\n    return base.rstrip('/') + '/' + path\n"},
        "tests": {"tests/test_url.py": (
            "from flasklike import url_join\n\n\ndef test_plain():\n    assert url_join('a', 'b') == 'a/b'\n\n\n"
            "def test_trailing():\n    assert url_join('a/', 'b') == 'a/b'\n")},
        "FAIL_TO_PASS": ["tests/test_url.py::test_trailing"],
        "PASS_TO_PASS": ["tests/test_url.py::test_plain"],
    },
    "djlike": {
        "repo": "acme/djlike",
        "statement": "slug() keeps upper case\n\nslug(text) must be lower case, words joined by '-'.",
        "base": {
            "tests/runtests.py": DJ_RUNNER,
            "djlike/__init__.py": "",
            "djlike/text.py": "def slug(text):\n    return '-'.join(text.split())\n",
            "tests/text_tests/__init__.py": "",
            "tests/text_tests/tests.py": (
                "import unittest\n\nfrom djlike.text import slug\n\n\nclass SlugTests(unittest.TestCase):\n"
                "    def test_spaces(self):\n        self.assertEqual(slug('a b'), 'a-b')\n"),
        },
        "fix": {"djlike/text.py": "def slug(text):\n    return '-'.join(text.lower().split())\n"},
        "partial": {"djlike/text.py": "def slug(text):\n    return '-'.join(w[:1].lower() + w[1:] for w in text.split())\n"},
        "tests": {"tests/text_tests/tests.py": (
            "import unittest\n\nfrom djlike.text import slug\n\n\nclass SlugTests(unittest.TestCase):\n"
            "    def test_spaces(self):\n        self.assertEqual(slug('a b'), 'a-b')\n\n"
            "    def test_lower(self):\n        self.assertEqual(slug('Hello World'), 'hello-world')\n\n"
            "    @unittest.skip('needs a database')\n    def test_db(self):\n        self.fail()\n")},
        "FAIL_TO_PASS": ["test_lower (text_tests.tests.SlugTests)"],
        # a skipped pass-to-pass test counts as passed, as the harness counts it
        "PASS_TO_PASS": ["test_spaces (text_tests.tests.SlugTests)", "test_db (text_tests.tests.SlugTests)"],
    },
}

# What each style's runner is, as a user's environment file says (the repositories are not in the
# built-in data): the file the import is given with swebench_envs=.
ENVS = '''
[repos."acme/symlike"]
test_cmd = "PYTHONWARNINGS='ignore::UserWarning' bin/test -C --verbose"
runner = "sympy"

[repos."acme/djlike"]
test_cmd = "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1"
runner = "django"
'''

ANALYST = {
    "symlike": "from symlike.core.basic import sign\n\n\ndef test_float_zero():\n    assert sign(0.0) == 0\n",
    "lintlike": "from lintlike.cli import check\n\n\ndef test_unknown():\n    assert check('other.py') == 'No such file'\n",
    "flasklike": "from flasklike import url_join\n\n\ndef test_leading():\n    assert url_join('a', '/b') == 'a/b'\n",
    "djlike": ("import unittest\n\nfrom djlike.text import slug\n\n\nclass W(unittest.TestCase):\n"
               "    def test_all_lower(self):\n        self.assertEqual(slug('HeLLo'), 'hello')\n"),
}


def git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        if rel == "bin/test":
            p.chmod(0o755)


def _commit(clone: Path, files: dict[str, str], message: str) -> str:
    _write(clone, files)
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", message)
    return git(clone, "rev-parse", "HEAD").strip()


def build(root: Path, styles: list[str] | None = None) -> Path:
    """A folder with dataset.jsonl, predictions.jsonl, one report per model and repos/; returns it."""
    data = root / "swe"
    (data / "repos").mkdir(parents=True)
    rows, preds = [], []
    resolved: dict[str, list[str]] = {"good": [], "partial": [], "broken": []}
    for name in styles or list(STYLES):
        style = STYLES[name]
        owner, repo = style["repo"].split("/")
        clone = data / "repos" / f"{owner}__{repo}"
        clone.mkdir()
        git(clone, "init", "-q", "-b", "main")
        base = _commit(clone, style["base"], "base")
        fix = _commit(clone, style["fix"], "fix")
        tests = _commit(clone, style["tests"], "tests")
        git(clone, "checkout", "-q", base)
        partial = _commit(clone, style["partial"], "partial")
        git(clone, "checkout", "-q", base)
        broken = _commit(clone, {"README": "nothing fixed\n"}, "broken")
        good = fix
        if "good" in style:  # a trial that passes T0 and is not the reference's fix
            git(clone, "checkout", "-q", base)
            good = _commit(clone, style["good"], "good")
        git(clone, "checkout", "-q", "main")
        iid = f"{owner}__{repo}-1"
        rows.append({
            "instance_id": iid, "repo": style["repo"], "base_commit": base, "version": "1.0",
            "problem_statement": style["statement"],
            "patch": git(clone, "diff", base, fix), "test_patch": git(clone, "diff", fix, tests),
            "FAIL_TO_PASS": json.dumps(style["FAIL_TO_PASS"]), "PASS_TO_PASS": json.dumps(style["PASS_TO_PASS"]),
        })
        for model, commit in (("good", good), ("partial", partial), ("broken", broken)):
            preds.append({"instance_id": iid, "model_name_or_path": model, "model_patch": git(clone, "diff", base, commit)})
        resolved["good"].append(iid)
        resolved["partial"].append(iid)
    (data / "dataset.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (data / "predictions.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds))
    every = [r["instance_id"] for r in rows]
    for model, ids in resolved.items():
        report = {"resolved_ids": ids, "unresolved_ids": [i for i in every if i not in ids]}
        (data / f"{model}.harness.json").write_text(json.dumps(report))
    (root / "envs.toml").write_text(ENVS)
    return data
