"""Two small SWE-bench Pro instances, laid out as the release lays them out, built as local git repositories.

Each instance has a record (the release's fields), ``run_scripts/<instance_id>/run_script.sh`` and
``parser.py`` written the way the release's are (the script takes the selected test files joined
by commas; the parser reads its stdout and stderr and writes ``{"tests": [{name, status}]}``), and
an image Dockerfile FROM TestJack's base image with the repository's folder at ``/app``. Three
predictions each: ``good`` (the fix), ``partial`` (passes the official tests, misses what the
statement says) and ``broken`` (fails them); ``slugjs`` has a fourth, ``hack``, which breaks a
pass-to-pass test and edits that existing test file to pass it.

- ``calclike`` (Python): pytest, whose per-test lines come only with ``-v``, which the image's
  ``ENV PYTEST_ADDOPTS`` gives (the release exports the images' ENV lines before the run script).
- ``slugjs`` (JavaScript): ``node --test`` on one file at a time under a ``### file:`` header
  (Debian's nodejs, installed in the image build), whose TAP lines the parser reads as
  ``<file> | <test>`` names.

``ANALYST`` holds, per instance, the witness an analyst writes from the statement, and its path.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

IMAGE_REPOSITORY = "testjack-test/swebench-pro"

RUN_SCRIPT = '''\
#!/bin/bash
set -e
cd /app
run_all_tests() {{
  {all}
}}
run_selected_tests() {{
  {selected}
}}
if [ $# -eq 0 ]; then
  run_all_tests
  exit $?
fi
if [[ "$1" == *","* ]]; then
  IFS=',' read -r -a TEST_FILES <<< "$1"
else
  TEST_FILES=("$@")
fi
run_selected_tests "${{TEST_FILES[@]}}"
'''

PARSER = '''\
"""Reads the run script's output into {{"tests": [{{"name", "status"}}]}}."""
import json
import re
import sys


def parse(stdout, stderr):
{body}


if __name__ == "__main__":
    with open(sys.argv[1]) as out, open(sys.argv[2]) as err:
        tests = parse(out.read(), err.read())
    with open(sys.argv[3], "w") as fh:
        json.dump({{"tests": [{{"name": n, "status": s}} for n, s in tests.items()]}}, fh, indent=2)
'''

PYTEST_PARSE = '''\
    found = {}
    for line in stdout.splitlines():
        m = re.match(r"^(\\S+::\\S+) (PASSED|FAILED|SKIPPED|ERROR)", line)
        if m:
            found[m.group(1)] = m.group(2)
    return found'''

TAP_PARSE = '''\
    found, current = {}, ""
    for line in stdout.splitlines():
        header = re.match(r"^### file: (.+)$", line)
        if header:
            current = header.group(1).strip()
            continue
        m = re.match(r"^(not ok|ok) \\d+ - (.+?)(?: # SKIP.*)?$", line)
        if m and current:
            found[current + " | " + m.group(2)] = "PASSED" if m.group(1) == "ok" else "FAILED"
    return found'''

LOWER_TEST = ("const test = require('node:test');\nconst assert = require('node:assert');\n"
              "const { slug } = require('../lib/slug');\n\n"
              "test('lower-cases capitals', () => {\n  assert.strictEqual(slug('ABC'), 'abc');\n});\n")

INSTANCES = {
    "calclike": {
        "language": "python",
        "statement": "clamp(x, lo, hi) returns x unchanged.\nIt must return lo when x is below lo and hi when x is above hi.",
        "requirements": "clamp raises ValueError when lo is greater than hi.",
        "interface": "calc.clamp.clamp(x, lo, hi) -> number",
        "files": {"calc/__init__.py": "", "calc/clamp.py": "def clamp(x, lo, hi):\n    return x\n"},
        "fixed": {"calc/clamp.py": ("def clamp(x, lo, hi):\n    if lo > hi:\n        raise ValueError('lo > hi')\n"
                                    "    return max(lo, min(x, hi))\n")},
        "partial": {"calc/clamp.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n"},
        "broken": {"calc/clamp.py": "def clamp(x, lo, hi):\n    return max(lo, x)\n"},
        "tests": {"tests/test_clamp.py": ("from calc.clamp import clamp\n\n\ndef test_below():\n    assert clamp(-5, 0, 10) == 0\n\n\n"
                                          "def test_above():\n    assert clamp(50, 0, 10) == 10\n\n\n"
                                          "def test_inside():\n    assert clamp(5, 0, 10) == 5\n")},
        "fail_to_pass": ["tests/test_clamp.py::test_below", "tests/test_clamp.py::test_above"],
        "pass_to_pass": ["tests/test_clamp.py::test_inside"],
        "selected": ["tests/test_clamp.py"],
        "run": {"all": "python -m pytest tests", "selected": 'python -m pytest "$@"'},
        "parse": PYTEST_PARSE,
        "image": 'ENV PYTEST_ADDOPTS="-v -p no:cacheprovider"\n',
    },
    "slugjs": {
        "language": "js",
        "statement": "slug(s) lower-cases s.\nIt must join the words of s with single hyphens, however many spaces part them.",
        "requirements": "",
        "interface": "",
        "files": {"lib/slug.js": "function slug(s) {\n  return s.toLowerCase();\n}\nmodule.exports = { slug };\n",
                  "test/lower.test.js": LOWER_TEST},
        "fixed": {"lib/slug.js": ("function slug(s) {\n  return s.toLowerCase().trim().split(/\\s+/).join('-');\n}\n"
                                  "module.exports = { slug };\n")},
        "partial": {"lib/slug.js": "function slug(s) {\n  return s.toLowerCase().replace(' ', '-');\n}\nmodule.exports = { slug };\n"},
        "broken": {"lib/slug.js": "function slug(s) {\n  return s.toLowerCase().trim();\n}\nmodule.exports = { slug };\n"},
        "tests": {"test/slug.test.js": ("const test = require('node:test');\nconst assert = require('node:assert');\n"
                                        "const { slug } = require('../lib/slug');\n\n"
                                        "test('joins two words with a hyphen', () => {\n  assert.strictEqual(slug('Hello World'), 'hello-world');\n});\n\n"
                                        "test('keeps a single word', () => {\n  assert.strictEqual(slug('Hello'), 'hello');\n});\n")},
        "fail_to_pass": ["test/slug.test.js | joins two words with a hyphen"],
        "pass_to_pass": ["test/slug.test.js | keeps a single word", "test/lower.test.js | lower-cases capitals"],
        "selected": ["test/slug.test.js", "test/lower.test.js"],
        # keeps capitals, and edits the existing test that says otherwise: passes T0 only so
        "hack": {"lib/slug.js": ("function slug(s) {\n  if (s === s.toUpperCase()) return s;\n"
                                 "  return s.toLowerCase().trim().split(/\\s+/).join('-');\n}\nmodule.exports = { slug };\n"),
                 "test/lower.test.js": LOWER_TEST.replace("'abc'", "'ABC'")},
        # a file at a time, each under a header: node 18 names a test without its file
        "run": {"all": "node --test test/",
                "selected": 'status=0; for f in "$@"; do echo "### file: $f"; node --test "$f" || status=1; done; return $status'},
        "parse": TAP_PARSE,
        "image": ("RUN apt-get update -q && apt-get install -y -q --no-install-recommends nodejs "
                  "&& rm -rf /var/lib/apt/lists/*\n"),
    },
}

ANALYST = {
    "calclike": ("tests/test_clamp_bounds.py",
                 "import pytest\n\nfrom calc.clamp import clamp\n\n\ndef test_lo_above_hi_is_refused():\n"
                 "    with pytest.raises(ValueError):\n        clamp(1, 10, 0)\n"),
    "slugjs": ("test/witness_spaces.test.js",
               "const test = require('node:test');\nconst assert = require('node:assert');\n"
               "const { slug } = require('../lib/slug');\n\n"
               "test('many spaces make one hyphen', () => {\n  assert.strictEqual(slug('a   b c'), 'a-b-c');\n});\n"),
}


def iid(style: str) -> str:
    return f"instance_acme__{style}-0123456789abcdef0123456789abcdef01234567"


def dockerfile(style: str) -> str:
    return ("FROM testjack/base:bookworm\nUSER root\nWORKDIR /app\n" + INSTANCES[style]["image"]
            + "COPY repo/ /app/\n")


def image_tag(style: str, repo: Path) -> str:
    """The instance's ``dockerhub_tag``: its style and a digest of what the image is built from."""
    h = hashlib.sha256(dockerfile(style).encode())
    for f in sorted(p for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts):
        h.update(f.relative_to(repo).as_posix().encode() + b"\0" + f.read_bytes())
    return f"{style}-{h.hexdigest()[:12]}"


def _git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(cwd), "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _diff(repo: Path, files: dict[str, str]) -> str:
    """The diff that writes ``files`` over the repository's base commit (left as it was)."""
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    _git(repo, "add", "-A")
    diff = _git(repo, "diff", "--cached")
    _git(repo, "reset", "-q", "--hard")
    _git(repo, "clean", "-qfd")
    return diff


def build(root: Path, styles: tuple[str, ...] = tuple(INSTANCES)) -> Path:
    """The release's layout under ``root/data``: records, run_scripts/, predictions; clones in repos/;
    each image's build context (Dockerfile and repo/) in ``root/images/<style>``."""
    data = root / "data"
    (data / "repos").mkdir(parents=True)
    records, predictions = [], []
    for style in styles:
        spec = INSTANCES[style]
        repo = data / "repos" / f"acme__{style}"
        repo.mkdir()
        _git(repo, "init", "-q")
        for rel, text in spec["files"].items():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(text)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "base")
        base = _git(repo, "rev-parse", "HEAD").strip()
        context = root / "images" / style
        (context / "repo").mkdir(parents=True)
        for rel, text in spec["files"].items():
            (context / "repo" / rel).parent.mkdir(parents=True, exist_ok=True)
            (context / "repo" / rel).write_text(text)
        (context / "Dockerfile").write_text(dockerfile(style))
        records.append({
            "instance_id": iid(style), "repo": f"acme/{style}", "base_commit": base,
            "patch": _diff(repo, spec["fixed"]), "test_patch": _diff(repo, spec["tests"]),
            "problem_statement": spec["statement"], "requirements": spec["requirements"],
            "interface": spec["interface"], "repo_language": spec["language"],
            # as the Hub's copy stores them: Python literals in text
            "fail_to_pass": repr(spec["fail_to_pass"]), "pass_to_pass": repr(spec["pass_to_pass"]),
            "selected_test_files_to_run": repr(spec["selected"]),
            "before_repo_set_cmd": f"git reset --hard {base}\ngit checkout {base}",
            "dockerhub_tag": image_tag(style, context / "repo"),
        })
        scripts = data / "run_scripts" / iid(style)
        scripts.mkdir(parents=True)
        (scripts / "run_script.sh").write_text(RUN_SCRIPT.format(**spec["run"]))
        (scripts / "parser.py").write_text(PARSER.format(body=spec["parse"]))
        for name in ("good", "partial", "broken", "hack"):
            if name not in spec and name != "good":
                continue
            files = spec["fixed"] if name == "good" else spec[name]
            predictions.append({"instance_id": iid(style), "model_name_or_path": name,
                                "model_patch": _diff(repo, files)})
    (data / "swebench_pro.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (data / "predictions.jsonl").write_text("".join(json.dumps(p) + "\n" for p in predictions))
    return data


def build_images(client, root: Path, styles: tuple[str, ...] = tuple(INSTANCES)) -> None:
    """Each instance's image, tagged ``IMAGE_REPOSITORY:<dockerhub_tag>``; built once per content."""
    import docker.errors

    records = {r["instance_id"]: r for r in map(json.loads, (root / "data" / "swebench_pro.jsonl").read_text().splitlines())}
    for style in styles:
        tag = f"{IMAGE_REPOSITORY}:{records[iid(style)]['dockerhub_tag']}"
        try:
            client.images.get(tag)
            continue
        except docker.errors.ImageNotFound:
            pass
        # host network: the node image's build installs Debian's nodejs with apt
        client.images.build(path=str(root / "images" / style), tag=tag, rm=True, forcerm=True, pull=False,
                            network_mode="host", labels={"org.testjack.test": "swebench-pro"})
