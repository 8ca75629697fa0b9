"""Build a real SWE-bench-format task from PyPI's public record, to try TestJack as a new user would.

    python benchmarks/swebench_public_task.py OUT [--task pathspec|sympy|flask] [--sdists DIR]

Three tasks (``swebench_public_projects.py``), each a pair of consecutive releases whose fix is small:

- ``pathspec`` (default; pytest, flat layout): issue #84, ``PathSpec.match_file()`` returns ``None``
  instead of ``False`` for a file no pattern matches, a regression of 0.12.0 fixed in 0.12.1;
- ``sympy`` (SymPy's own runner ``bin/test``): issue #26799, a zero vector of
  ``sympy.physics.vector`` cannot be pretty printed in 1.13.0, fixed in 1.13.1;
- ``flask`` (pytest, ``src/`` layout): 2.3.1 sets no ``Vary: Cookie`` header when the session
  cookie is deleted or refreshed, fixed in 2.3.2.

Nothing from these projects is kept in this repository: the script fetches both source
distributions at run time with ``pip download --no-deps --no-binary :all:`` (or takes them from
``--sdists DIR``) into OUT; we only download them at run time and diff them, we do not
redistribute them.

What OUT then holds, and where each piece comes from:

``repos/<owner>__<name>``
    a git repository with one commit: the base sdist as released (``base_commit``), plus, for SymPy,
    a stand-in ``bin/test`` of our own (its sdists do not ship the runner script; see
    ``swebench_public_runs.BIN_TEST``). Author and dates are fixed, so the commit id is the same on
    every machine.
``dataset.jsonl``
    one SWE-bench row. ``problem_statement``: our own words (``Project.statement``) or, for
    pathspec, the fixed release's changelog entry plus the contract the base release documents.
    ``patch``: the diff of the fixed module only (``fix_files``; version bumps are left out).
    ``test_patch``: the diff of the task's test files. ``FAIL_TO_PASS`` / ``PASS_TO_PASS``: computed
    here by running the repository's runner on the test files the test patch touches, as the
    harness does, on base + test patch and on base + patch + test patch (a test skipped after the
    fix is in neither list). ``version``: the base's major.minor, the harness's key.
``predictions.jsonl``
    three "model" predictions written for the walkthrough (``Project.predictions``): ``model-a``
    is equal in behaviour to the fix; ``model-b`` passes the official tests but misses a case the
    problem statement states (so TestJack has something to refute); ``model-c`` fails the
    official tests.
``model-a.public.json`` ...
    one harness-style report per model (``resolved_ids`` etc., named ``<model>.<run_id>.json`` as
    the harness names them), computed by running FAIL_TO_PASS and PASS_TO_PASS on each prediction
    and grading them as the harness does (a fail-to-pass test must pass; a pass-to-pass test must
    pass or be skipped).

The tests run in the task's environment: the pip packages TestJack's SWE-bench environment data
gives for the repository and version (``testjack_tui/formats/swebench_envs.toml``: Flask's pins,
SymPy's mpmath), in a virtualenv under ``OUT/venvs`` built from PyPI. Their outcomes are read by
``swebench_public_runs.py`` from the runner's console log, as the harness reads it, which keeps
this script free of TestJack's own engine (the thing under test).
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules, however we are run

from swebench_public_projects import PATHSPEC, PROJECTS, Edit, Project  # noqa: E402
from swebench_public_runs import BIN_TEST, python_for, run_tests  # noqa: E402

__all__ = ["PATHSPEC", "PROJECTS", "Project", "build", "download", "main"]

RUN_ID = "public"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "testjack", "GIT_AUTHOR_EMAIL": "testjack@localhost",
    "GIT_COMMITTER_NAME": "testjack", "GIT_COMMITTER_EMAIL": "testjack@localhost",
    "GIT_AUTHOR_DATE": "2023-12-09T00:00:00Z", "GIT_COMMITTER_DATE": "2023-12-09T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}


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
    base, fixed = _sdist(into, project.dist, project.base), _sdist(into, project.dist, project.fixed)
    return base, fixed  # type: ignore[return-value]


def _sdist(folder: Path, dist: str, version: str) -> Path | None:
    # older sdists keep the project's own capitalisation (Flask-2.3.1.tar.gz)
    wanted = {f"{d}-{version}.tar.gz".lower() for d in (dist, dist.replace("-", "_"))}
    found = sorted(p for p in folder.glob("*.tar.gz") if p.name.lower() in wanted) if folder.is_dir() else []
    return found[0] if found else None


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


def make_repo(base_tree: Path, target: Path, runner: str = "pytest") -> str:
    """A git repository at ``target`` whose one commit is ``base_tree``; returns the commit id."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(base_tree, target)
    if runner == "sympy" and not (target / "bin" / "test").is_file():
        (target / "bin").mkdir(exist_ok=True)
        (target / "bin" / "test").write_text(BIN_TEST)
        (target / "bin" / "test").chmod(0o755)
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


def edits_diff(repo: Path, default_file: str, edits: Edit | list[Edit]) -> str:
    """The diff of a prediction's edits (each an (old, new) replacement, made once) at the base commit."""
    steps = [edits] if isinstance(edits, tuple) else list(edits)
    texts: dict[str, str] = {}
    for step in steps:
        rel, old, new = step if len(step) == 3 else (default_file, *step)
        text = texts.get(rel, (repo / rel).read_text())
        if text.count(old) != 1:
            raise SystemExit(f"{rel}: expected the edited text exactly once, found it {text.count(old)} times")
        texts[rel] = text.replace(old, new)
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in texts.items():
            edited = Path(tmp) / rel
            edited.parent.mkdir(parents=True, exist_ok=True)
            edited.write_text(text)
        return diff_against(repo, Path(tmp), list(texts))


def touched_files(patch: str) -> list[str]:
    return re.findall(r"^diff --git a/(\S+) b/", patch, re.M)


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


def requirements(project: Project) -> list[str]:
    """The pip specs of the task's environment, from TestJack's SWE-bench environment data."""
    from testjack_tui.formats.swebench_env import repo_spec

    spec = repo_spec(project.repo, project.version)
    return [*spec.pip_packages, *([spec.pytest] if spec.pytest and project.runner == "pytest" else [])]


def problem_statement(project: Project, base_tree: Path, fixed_tree: Path) -> str:
    if project.statement:
        return project.statement.strip() + "\n"
    note = release_note(fixed_tree, project.changelog, project.fixed)
    contract = documented_contract(base_tree, *project.function)
    return (
        f"{project.function[1]}() regression in {project.base}\n\n"
        f"Release notes of {project.fixed}:\n\n{note}\n\n"
        f"The documentation of {project.function[1]}() in {project.base} says:\n\n"
        + "\n".join("    " + ln if ln else "" for ln in contract.splitlines())
    )


def resolves(outcomes: dict[str, str], fail_to_pass: list[str], pass_to_pass: list[str]) -> bool:
    """The harness's grading: every fail-to-pass test passes, every pass-to-pass one passes or skips."""
    return (all(outcomes.get(t) == "pass" for t in fail_to_pass)
            and all(outcomes.get(t) in ("pass", "skip") for t in pass_to_pass))


def build(project: Project, base_tree: Path, fixed_tree: Path, out: Path) -> dict:
    """Write the repository, dataset, predictions and reports for ``project`` under ``out``."""
    owner, name = project.repo.split("/")
    repo = out / "repos" / f"{owner}__{name}"
    base_commit = make_repo(base_tree, repo, project.runner)
    patch = diff_against(repo, fixed_tree, list(project.fix_files))
    test_patch = diff_against(repo, fixed_tree, list(project.test_files or (project.tests_dir,)))
    if not patch or not test_patch:
        raise SystemExit("the two releases differ in no fixed file or in no test file")
    test_files = [f for f in touched_files(test_patch) if f.endswith(".py")]
    python = python_for(requirements(project), out / "venvs", project.runner)

    def run(patches: list[str]) -> dict[str, str]:
        return run_tests(repo, patches, test_files, runner=project.runner, python=python)

    before = run([test_patch])
    after = run([patch, test_patch])
    fail_to_pass = sorted(t for t, o in after.items() if o == "pass" and before.get(t) != "pass")
    pass_to_pass = sorted(t for t, o in after.items() if o == "pass" and before.get(t) == "pass")
    row = {
        "instance_id": f"{owner}__{name}-{project.issue}",
        "repo": project.repo,
        "base_commit": base_commit,
        "problem_statement": problem_statement(project, base_tree, fixed_tree),
        "patch": patch,
        "test_patch": test_patch,
        "FAIL_TO_PASS": json.dumps(fail_to_pass),
        "PASS_TO_PASS": json.dumps(pass_to_pass),
        "version": project.version,
        "created_at": "",
        "hints_text": "",
        "environment_setup_commit": base_commit,
    }
    (out / "dataset.jsonl").write_text(json.dumps(row) + "\n")

    predictions, resolved = [], {}
    for model, edits in project.predictions.items():
        model_patch = edits_diff(repo, project.fix_files[0], edits)
        predictions.append({"instance_id": row["instance_id"], "model_name_or_path": model,
                            "model_patch": model_patch})
        resolved[model] = resolves(run([model_patch, test_patch]), fail_to_pass, pass_to_pass)
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
    parser.add_argument("--task", choices=sorted(PROJECTS), default="pathspec", help="which public task")
    parser.add_argument("--sdists", type=Path, help="take the two sdists from here instead of downloading them")
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    project = PROJECTS[args.task]
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
