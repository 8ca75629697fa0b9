"""Where a SWE-bench task's repository comes from, and writing R (the repository at base_commit).

Repositories come from local clones (``repos=DIR`` holding ``owner__name``, ``name`` or
``owner/name``) or are cloned once per import from ``repo_url`` (a template with ``{repo}``,
``{owner}``, ``{name}``). R is written with ``git read-tree`` + ``checkout-index`` into a temporary
index rather than ``git archive``: archive honours ``export-ignore``/``export-subst`` attributes and
would give a tree that differs from the checkout the harness tests; the temporary index leaves the
clone itself untouched.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from testjack_tui.formats import tree_digest
from testjack_tui.formats._common import new_snapshot_dir


class NoSource(Exception):
    """The repository or its base commit cannot be had; the message says why."""


class RepoSources:
    """Finds a clone for each repository (local, or cloned once from ``repo_url``) and writes R."""

    def __init__(self, repos: Path | None, repo_url: str | None, cache: Path):
        self.repos, self.repo_url, self.cache = repos, repo_url, cache
        self.clones: dict[str, Path | str] = {}  # repo -> clone, or the reason there is none

    def clone_for(self, repo: str) -> Path:
        if repo not in self.clones:
            self.clones[repo] = self._find(repo)
        found = self.clones[repo]
        if isinstance(found, str):
            raise NoSource(found)
        return found

    def _find(self, repo: str) -> Path | str:
        owner, name = repo.split("/", 1)
        if self.repos:
            for candidate in (f"{owner}__{name}", name, f"{owner}/{name}", f"{owner}__{name}.git", f"{name}.git"):
                p = self.repos / candidate
                if p.is_dir() and _git(p, "rev-parse", "--git-dir").returncode == 0:
                    return p
            if not self.repo_url:
                return f"no clone of {repo} under {self.repos} (looked for {owner}__{name}, {name}, {owner}/{name})"
        url = self.repo_url.format(repo=repo, owner=owner, name=name)  # type: ignore[union-attr]
        target = self.cache / f"{owner}__{name}"
        done = subprocess.run(
            ["git", "clone", "--quiet", "--no-checkout", url, str(target)], capture_output=True, text=True
        )
        if done.returncode:
            return f"cannot clone {url}: {done.stderr.strip()[:300]}"
        return target

    def snapshot(self, repo: str, commit: str, staging: Path) -> tuple[str, str]:
        clone = self.clone_for(repo)
        if _git(clone, "cat-file", "-e", f"{commit}^{{commit}}").returncode:
            raise NoSource(f"base_commit {commit} is not in the clone {clone} (fetch it first)")
        # absolute: git runs in the clone, so a relative prefix would land there
        root = new_snapshot_dir(staging, f"{repo}@{commit}").resolve()
        with tempfile.TemporaryDirectory(prefix="testjack-index-") as tmp:
            env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
            for args in (["read-tree", commit], ["checkout-index", "--all", f"--prefix={root}/"]):
                done = _git(clone, *args, env=env)
                if done.returncode:
                    raise NoSource(f"cannot check out {commit} of {repo}: {done.stderr.strip()[:300]}")
        return str(root), tree_digest(root)


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env)
