"""Build one real SWE-bench-format task from PyPI's public record, to try TestJack as a new user would.

    python benchmarks/swebench_public_task.py OUT [--sdists DIR]

The task is pathspec's issue #84: ``PathSpec.match_file()`` returns ``None`` instead of ``False``
for a file no pattern matches, a regression of release 0.12.0 fixed in 0.12.1 (one line). Nothing
from pathspec is kept in this repository: the script fetches both source distributions at run time
with ``pip download --no-deps --no-binary :all:`` (or takes them from ``--sdists DIR``) into OUT.
pathspec is pure Python, has no dependencies and ships its tests in its sdist (MPL-2.0; we only
download it at run time and diff it, we do not redistribute it).

What OUT then holds, and where each piece comes from:

``repos/cpburnz__python-pathspec``
    a git repository with one commit: the 0.12.0 sdist as released (``base_commit``). Author and
    dates are fixed, so the commit id is the same on every machine.
``dataset.jsonl``
    one SWE-bench row. ``problem_statement``: 0.12.1's changelog entry (CHANGES.rst) plus the
    contract the 0.12.0 docstring of ``match_file`` states. ``patch``: the 0.12.0 -> 0.12.1 diff of
    the fixed module only (``FIX_FILES``; the version bump in ``_meta.py`` is left out).
    ``test_patch``: the diff of every file under ``tests/``. ``FAIL_TO_PASS`` / ``PASS_TO_PASS``:
    computed here by running pytest on the test files the test patch touches, as the harness does,
    on base + test patch and on base + patch + test patch. ``version``: the base's minor version.
``predictions.jsonl``
    three "model" predictions written for this walkthrough (``PREDICTIONS``), each a small edit of
    the 0.12.0 line the fix changes: ``model-a`` is equal in behaviour to the fix; ``model-b``
    fixes ``str`` paths only, though the problem statement says a path may be any ``os.PathLike``
    (it passes the official tests, so TestJack has something to refute); ``model-c`` returns
    ``include is not None``, which breaks the excluded case the official tests check.
``model-a.public.json`` ...
    one harness-style report per model (``resolved_ids`` etc., named ``<model>.<run_id>.json`` as
    the harness names them), computed by running FAIL_TO_PASS and PASS_TO_PASS on each prediction.

Test outcomes are read from pytest's ``-rA`` summary lines (``PASSED id`` / ``FAILED id``): that
is what the SWE-bench harness itself reads for pytest repositories, and it keeps this script free
of TestJack's own engine (the thing under test).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Project:
    """The facts of one public task: where it comes from and which files hold the fix."""

    dist: str  # the PyPI name
    base: str  # the release with the bug
    fixed: str  # the next release, with the fix
    repo: str  # owner/name as SWE-bench names it (the project's source URL)
    issue: int  # the number the changelog cites; the instance id ends with it
    fix_files: tuple[str, ...]  # the source files whose diff is the reference patch
    function: tuple[str, str]  # (file, Class.method) whose documented contract the prompt quotes
    changelog: str  # the file holding the release notes
    tests_dir: str = "tests"
    predictions: dict[str, tuple[str, str]] = field(default_factory=dict)  # model -> (old, new) in fix_files[0]


PATHSPEC = Project(
    dist="pathspec",
    base="0.12.0",
    fixed="0.12.1",
    repo="cpburnz/python-pathspec",
    issue=84,
    fix_files=("pathspec/pathspec.py",),
    function=("pathspec/pathspec.py", "PathSpec.match_file"),
    changelog="CHANGES.rst",
    predictions={
        # The buggy line is "return include" (include is True, False or None).
        "model-a": ("\t\treturn include\n", "\t\treturn include is True\n"),
        "model-b": ("\t\treturn include\n",
                    "\t\tif include is None and isinstance(file, str):\n\t\t\treturn False\n\t\treturn include\n"),
        "model-c": ("\t\treturn include\n", "\t\treturn include is not None\n"),
    },
)

RUN_ID = "public"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "testjack", "GIT_AUTHOR_EMAIL": "testjack@localhost",
    "GIT_COMMITTER_NAME": "testjack", "GIT_COMMITTER_EMAIL": "testjack@localhost",
    "GIT_AUTHOR_DATE": "2023-12-09T00:00:00Z", "GIT_COMMITTER_DATE": "2023-12-09T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}
_RA_LINE = re.compile(r"^(PASSED|FAILED|ERROR) (\S+::\S+)")


# -- fetching ------------------------------------------------------------------------------------


def download(project: Project, into: Path) -> tuple[Path, Path]:
    """Both sdists, fetched with pip (the ordinary client of the registry)."""
    into.mkdir(parents=True, exist_ok=True)
    for version in (project.base, project.fixed):
        if _sdist(into, project.dist, version) is None:
            done = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                 f"{project.dist}=={version}", "-d", str(into)],
                capture_output=True, text=True, timeout=300,
            )
            if done.returncode:
                raise SystemExit(f"pip download {project.dist}=={version} failed:\n{done.stderr.strip()[-2000:]}")
    return _sdist(into, project.dist, project.base), _sdist(into, project.dist, project.fixed)  # type: ignore[return-value]


def _sdist(folder: Path, dist: str, version: str) -> Path | None:
    for name in (f"{dist}-{version}.tar.gz", f"{dist.replace('-', '_')}-{version}.tar.gz"):
        if (folder / name).is_file():
            return folder / name
    return None


def unpack(sdist: Path, into: Path) -> Path:
    """The sdist's single top folder, extracted under ``into``."""
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(sdist) as tar:
        tar.extractall(into, filter="data")
    tops = [p for p in into.iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise SystemExit(f"{sdist}: expected one top folder, found {[p.name for p in tops]}")
    return tops[0]


# -- building the row ---------------------------------------------------------------------------


def git(repo: Path, *args: str, input: str | None = None) -> str:
    env = {**os.environ, **GIT_ENV, "HOME": str(repo)}
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, input=input, env=env)
    if done.returncode:
        raise SystemExit(f"git {' '.join(args)} failed in {repo}: {done.stderr.strip()}")
    return done.stdout


def make_repo(base_tree: Path, target: Path) -> str:
    """A git repository at ``target`` whose one commit is ``base_tree``; returns the commit id."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(base_tree, target)
    git(target, "init", "-q", "-b", "main")
    git(target, "add", "-A", "-f")
    git(target, "commit", "-q", "-m", f"release {base_tree.name}")
    return git(target, "rev-parse", "HEAD").strip()


def diff_against(repo: Path, new_tree: Path, paths: list[str]) -> str:
    """``git diff`` from the base commit to ``new_tree`` for ``paths``; the repository is left clean."""
    try:
        for rel in paths:
            src, dst = new_tree / rel, repo / rel
            if src.is_dir():
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(src, dst)
            elif src.is_file():
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
            elif dst.exists():
                dst.unlink()
        git(repo, "add", "-A", "-f", "--", *paths)
        return git(repo, "diff", "--cached", "HEAD", "--", *paths)
    finally:
        git(repo, "reset", "-q", "--hard", "HEAD")
        git(repo, "clean", "-q", "-fdx")


def edit_diff(repo: Path, rel: str, old: str, new: str) -> str:
    """The diff of one replacement of ``old`` by ``new`` in ``rel`` at the base commit."""
    text = (repo / rel).read_text()
    if text.count(old) != 1:
        raise SystemExit(f"{rel}: expected the edited text exactly once, found it {text.count(old)} times")
    with tempfile.TemporaryDirectory() as tmp:
        edited = Path(tmp) / rel
        edited.parent.mkdir(parents=True)
        edited.write_text(text.replace(old, new))
        return diff_against(repo, Path(tmp), [rel])


def touched_files(patch: str) -> list[str]:
    return re.findall(r"^diff --git a/(\S+) b/", patch, re.M)


def run_tests(repo: Path, patches: list[str], files: list[str]) -> dict[str, str]:
    """pytest's outcome per test id ("pass" / "fail") on the base commit with ``patches`` applied."""
    with tempfile.TemporaryDirectory(prefix="swebench-public-") as tmp:
        world = Path(tmp) / "world"
        shutil.copytree(repo, world, ignore=shutil.ignore_patterns(".git"))
        for patch in patches:
            done = subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], cwd=world, input=patch,
                                  capture_output=True, text=True)
            if done.returncode:
                raise SystemExit(f"a patch does not apply: {done.stderr.strip()}")
        env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(world),
               "PYTHONDONTWRITEBYTECODE": "1"}
        done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *files],
                              cwd=world, capture_output=True, text=True, env=env, timeout=600)
    outcomes: dict[str, str] = {}
    for line in done.stdout.splitlines():
        match = _RA_LINE.match(line)
        if match:
            outcomes[match.group(2)] = "pass" if match.group(1) == "PASSED" else "fail"
    if not outcomes:
        raise SystemExit(f"pytest reported no test:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return outcomes


def release_note(tree: Path, changelog: str, version: str) -> str:
    """The changelog section of ``version``: the lines after its heading up to the next release's."""
    lines = (tree / changelog).read_text().splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.strip().startswith(version)), None)
    if start is None:
        raise SystemExit(f"{changelog} has no section for {version}")
    body: list[str] = []
    for ln in lines[start + 1:]:
        if re.match(r"^\d+\.\d+(\.\d+)?\b", ln.strip()):
            break
        if set(ln.strip()) <= set("-=~^") and ln.strip():
            continue  # a heading's underline
        if ln.startswith(".. _"):
            continue  # reStructuredText link targets
        body.append(ln)
    return re.sub(r"`([^`]+)`_", r"\1", "\n".join(body).strip())


def documented_contract(tree: Path, rel: str, qualname: str) -> str:
    """The docstring of ``Class.method`` in ``rel``, as the base release documents it."""
    module = ast.parse((tree / rel).read_text())
    cls_name, method = qualname.split(".")
    for node in ast.walk(module):
        if isinstance(node, ast.ClassDef) and node.name == cls_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == method:
                    return ast.get_docstring(item) or ""
    raise SystemExit(f"{rel} has no {qualname}")


def build(project: Project, base_tree: Path, fixed_tree: Path, out: Path) -> dict:
    """Write the repository, dataset, predictions and reports for ``project`` under ``out``."""
    owner, name = project.repo.split("/")
    repo = out / "repos" / f"{owner}__{name}"
    base_commit = make_repo(base_tree, repo)
    patch = diff_against(repo, fixed_tree, list(project.fix_files))
    test_patch = diff_against(repo, fixed_tree, [project.tests_dir])
    if not patch or not test_patch:
        raise SystemExit("the two releases differ in no fixed file or in no test file")
    test_files = [f for f in touched_files(test_patch) if f.endswith(".py")]
    before = run_tests(repo, [test_patch], test_files)
    after = run_tests(repo, [patch, test_patch], test_files)
    fail_to_pass = sorted(t for t, o in after.items() if o == "pass" and before.get(t) != "pass")
    pass_to_pass = sorted(t for t, o in after.items() if o == "pass" and before.get(t) == "pass")
    note = release_note(fixed_tree, project.changelog, project.fixed)
    contract = documented_contract(base_tree, *project.function)
    statement = (
        f"{project.function[1]}() regression in {project.base}\n\n"
        f"Release notes of {project.fixed}:\n\n{note}\n\n"
        f"The documentation of {project.function[1]}() in {project.base} says:\n\n"
        + "\n".join("    " + ln if ln else "" for ln in contract.splitlines())
    )
    row = {
        "instance_id": f"{owner}__{name}-{project.issue}",
        "repo": project.repo,
        "base_commit": base_commit,
        "problem_statement": statement,
        "patch": patch,
        "test_patch": test_patch,
        "FAIL_TO_PASS": json.dumps(fail_to_pass),
        "PASS_TO_PASS": json.dumps(pass_to_pass),
        "version": ".".join(project.base.split(".")[:2]),
        "created_at": "",
        "hints_text": "",
        "environment_setup_commit": base_commit,
    }
    (out / "dataset.jsonl").write_text(json.dumps(row) + "\n")

    graded = fail_to_pass + pass_to_pass
    predictions, resolved = [], {}
    for model, (old, new) in project.predictions.items():
        model_patch = edit_diff(repo, project.fix_files[0], old, new)
        predictions.append({"instance_id": row["instance_id"], "model_name_or_path": model,
                            "model_patch": model_patch})
        outcomes = run_tests(repo, [model_patch, test_patch], test_files)
        resolved[model] = all(outcomes.get(t) == "pass" for t in graded)
        iid = row["instance_id"]
        report = {
            "total_instances": 1, "submitted_instances": 1, "completed_instances": 1,
            "resolved_instances": int(resolved[model]), "unresolved_instances": int(not resolved[model]),
            "empty_patch_instances": 0, "error_instances": 0,
            "completed_ids": [iid], "submitted_ids": [iid], "empty_patch_ids": [], "error_ids": [],
            "resolved_ids": [iid] if resolved[model] else [], "unresolved_ids": [] if resolved[model] else [iid],
            "schema_version": 2,
        }
        (out / f"{model.replace('/', '__')}.{RUN_ID}.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "predictions.jsonl").write_text("".join(json.dumps(p) + "\n" for p in predictions))
    return {"instance_id": row["instance_id"], "base_commit": base_commit, "FAIL_TO_PASS": fail_to_pass,
            "PASS_TO_PASS": len(pass_to_pass), "resolved": resolved}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="directory to write the task into")
    parser.add_argument("--sdists", type=Path, help="take the two sdists from here instead of downloading them")
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    project = PATHSPEC
    sdists = args.sdists or out / "sdists"
    base_sdist, fixed_sdist = download(project, sdists) if not args.sdists else (
        _sdist(sdists, project.dist, project.base), _sdist(sdists, project.dist, project.fixed))
    if base_sdist is None or fixed_sdist is None:
        raise SystemExit(f"{sdists} lacks {project.dist} {project.base} or {project.fixed} sdists")
    src = out / "src"
    shutil.rmtree(src, ignore_errors=True)
    summary = build(project, unpack(base_sdist, src / "base"), unpack(fixed_sdist, src / "fixed"), out)
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
