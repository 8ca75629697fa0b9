"""Small repositories made in tmp_path, and requests that run them on the local backend."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from testjack_tui.authors.base import Candidate, NoneAuthor
from testjack_tui.model import AuthorKind, RequirementKind
from testjack_tui.worlds.request import ExecRequest

# Plugins installed next to TestJack (textual snapshots, hypothesis, ...) triple pytest's start-up
# here; the worlds under test need none of them.
FAST_PYTEST = ("PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python -m pytest -p no:cacheprovider -q "
               "--junitxml={junit} {tests}")


def digest_of(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def write_repo(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory) -> Path:
    # one cache for the session: pristine trees and the base shim are built once
    return tmp_path_factory.mktemp("tjcache")


# The same command without the variable assignment: a single ``python -m pytest``, which the local
# backend runs in a warm process (docs/worlds.md); FAST_PYTEST's shell syntax keeps it cold.
WARM_PYTEST = "python -m pytest -p no:cacheprovider -q --junitxml={junit} {tests}"


@pytest.fixture
def default_command() -> str:
    """``make_request``'s default command; a module overrides it to run its tests warm too."""
    return FAST_PYTEST


@pytest.fixture
def make_request(tmp_path, default_command):
    counter = iter(range(10**6))

    def make(files: dict[str, str], **fields) -> ExecRequest:
        root = write_repo(tmp_path / f"repo{next(counter)}", files)
        fields.setdefault("command", default_command)
        return ExecRequest(snapshot=str(root), snapshot_digest=digest_of(root), **fields)

    return make


def _snapshot_state(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), os.stat(p).st_mode)
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def snapshot_state():
    """Content and mode of every file, to show a run left the snapshot as it was."""
    return _snapshot_state


START_HINT = "run `bash .ci/docker.sh` as root to install and start the engine and build the image"


@pytest.fixture(scope="session")
def engine():
    """The client of a Docker engine that has TestJack's base image; else fail (CI=true) or skip."""
    import docker.errors

    from testjack_tui.worlds.docker_backend import BASE_IMAGE, DockerBackend, EngineUnreachable

    problem = None
    try:
        client = DockerBackend().client()
        client.images.get(BASE_IMAGE)
    except EngineUnreachable as exc:
        problem = f"no Docker engine answers ({exc}); {START_HINT}"
    except docker.errors.ImageNotFound:
        problem = f"the engine has no image {BASE_IMAGE}; {START_HINT}"
    if problem:
        if os.environ.get("CI") == "true":
            pytest.fail(problem)
        pytest.skip(problem)
    return client


class OneWitnessAuthor(NoneAuthor):
    """An analyst who writes one explicit witness at task analysis, and nothing per trial."""

    kind = AuthorKind.ANALYST

    def __init__(self, requirement: str, path: str, code: str):
        self.candidate = Candidate(requirement=requirement, kind=RequirementKind.EXPLICIT, path=path, code=code)

    def analyse_task(self, ctx):
        return [self.candidate]
