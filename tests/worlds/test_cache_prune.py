"""`testjack cache` and `cache prune`: what goes, what stays, and that nothing in use breaks."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from testjack_tui.worlds.cache import prune, usage
from testjack_tui.worlds.materialise import materialise_world, pristine_tree
from testjack_tui.worlds.request import ExecRequest
from testjack_tui.worlds.venvs import requirements_key, venv_environment
from tests.worlds.conftest import digest_of, write_repo

# pristine trees (chowned to an unused uid) are made only by root; the CI runs as root
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="pristine trees need root")

DAY = 24 * 3600
REPO_ROOT = Path(__file__).resolve().parents[2]


def _age(path: Path, days: float) -> None:
    then = time.time() - days * DAY
    os.utime(path, (then, then))


def _snapshot(tmp_path: Path, name: str, text: str) -> tuple[Path, str]:
    root = write_repo(tmp_path / name, {"calc.py": text, "pkg/util.py": "X = 1\n"})
    return root, digest_of(root)


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "cache"
    monkeypatch.setenv("TESTJACK_CACHE", str(path))
    return path


def _names(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()}


def test_prune_removes_an_unused_tree_keeps_a_fresh_one_and_linked_worlds_still_work(tmp_path, cache):
    old_snap, old = _snapshot(tmp_path, "old", "OLD = 1\n")
    new_snap, new = _snapshot(tmp_path, "new", "NEW = 2\n")
    pristine_tree(old_snap, old, cache)
    pristine_tree(new_snap, new, cache)
    world = tmp_path / "world"
    materialise_world(ExecRequest(snapshot=str(old_snap), snapshot_digest=old), world,
                      cache_dir=cache, link=True)
    _age(cache / "snapshots" / f"{old}.ready", 40)

    summary = prune(cache, 30)

    assert [(e.kind, e.name) for e in summary.removed] == [("snapshot", old)]
    assert summary.freed > 0 and not summary.skipped
    assert not (cache / "snapshots" / old).exists()
    assert not (cache / "snapshots" / f"{old}.ready").exists()
    assert (world / "calc.py").read_text() == "OLD = 1\n"  # hard links outlive the tree
    # the fresh tree stays and still makes worlds
    assert (cache / "snapshots" / f"{new}.ready").exists()
    world2 = tmp_path / "world2"
    materialise_world(ExecRequest(snapshot=str(new_snap), snapshot_digest=new), world2, cache_dir=cache)
    assert (world2 / "calc.py").read_text() == "NEW = 2\n"
    # the next user of the removed digest gets it rebuilt
    assert (pristine_tree(old_snap, old, cache) / "calc.py").read_text() == "OLD = 1\n"
    assert (cache / "snapshots" / f"{old}.ready").exists()


def test_handing_out_a_tree_counts_as_a_use(tmp_path, cache):
    snap, digest = _snapshot(tmp_path, "s", "A = 1\n")
    pristine_tree(snap, digest, cache)
    _age(cache / "snapshots" / f"{digest}.ready", 40)
    pristine_tree(snap, digest, cache)  # an existing tree, returned: touched
    assert not prune(cache, 30).removed
    assert (cache / "snapshots" / digest / "calc.py").exists()


def test_a_locked_entry_is_skipped(tmp_path, cache):
    snap, digest = _snapshot(tmp_path, "s", "A = 1\n")
    pristine_tree(snap, digest, cache)
    _age(cache / "snapshots" / f"{digest}.ready", 40)
    with open(cache / "snapshots" / f"{digest}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # as a builder holds it
        summary = prune(cache, 30)
    assert not summary.removed
    assert [(e.name, why) for e, why in summary.skipped] == [(digest, "locked: being built")]
    assert (cache / "snapshots" / f"{digest}.ready").exists()
    assert (cache / "snapshots" / digest / "calc.py").read_text() == "A = 1\n"


def test_dry_run_lists_but_removes_nothing(tmp_path, cache):
    snap, digest = _snapshot(tmp_path, "s", "A = 1\n")
    pristine_tree(snap, digest, cache)
    _age(cache / "snapshots" / f"{digest}.ready", 40)
    before = _names(cache / "snapshots")

    summary = prune(cache, 30, dry_run=True)

    assert [e.name for e in summary.removed] == [digest] and summary.dry_run
    assert _names(cache / "snapshots") == before
    assert (cache / "snapshots" / digest / "pkg" / "util.py").exists()


def test_world_leftovers_go_after_a_day_and_venvs_by_their_ready_marker(cache):
    crashed = cache / "worlds" / "run-crashed"
    (crashed / "world" / "locked").mkdir(parents=True)
    (crashed / "world" / "locked" / "f.txt").write_text("x")
    os.chmod(crashed / "world" / "locked", 0o555)
    _age(crashed, 2)
    running = cache / "worlds" / "run-running"
    running.mkdir()
    stale, used = requirements_key(("stale",)), requirements_key(("used",))
    for key in (stale, used):
        (cache / "venvs" / key / "bin").mkdir(parents=True)
        (cache / "venvs" / key / ".testjack-ready").touch()
        _age(cache / "venvs" / key / ".testjack-ready", 60)
    venv_environment(("used",), cache)  # already built: returned as is, and touched

    removed = {(e.kind, e.name) for e in prune(cache, 30).removed}

    assert removed == {("world", "run-crashed"), ("venv", stale)}
    assert running.exists() and not crashed.exists()
    assert (cache / "venvs" / used / ".testjack-ready").exists()
    assert not (cache / "venvs" / stale).exists()


def test_usage_lists_each_kind_with_its_size(tmp_path, cache):
    snap, digest = _snapshot(tmp_path, "s", "A = 1\n" * 2000)
    pristine_tree(snap, digest, cache)
    (cache / "worlds" / "run-x").mkdir(parents=True)
    entries = {(e.kind, e.name): e for e in usage(cache)}
    assert set(entries) == {("snapshot", digest), ("world", "run-x")}
    assert entries[("snapshot", digest)].bytes >= 12000  # calc.py alone is 12,000 bytes


def _cli(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TESTJACK_CACHE": str(cache)}
    return subprocess.run([sys.executable, "-m", "testjack_tui.cli", *args], capture_output=True,
                          text=True, env=env, cwd=REPO_ROOT)


def test_cli_prints_the_cache_and_what_prune_freed(tmp_path, cache):
    old_snap, old = _snapshot(tmp_path, "old", "OLD = 1\n")
    new_snap, new = _snapshot(tmp_path, "new", "NEW = 2\n")
    pristine_tree(old_snap, old, cache)
    pristine_tree(new_snap, new, cache)
    _age(cache / "snapshots" / f"{old}.ready", 10)

    shown = _cli("cache", cache=cache)
    assert shown.returncode == 0, shown.stderr
    assert f"cache: {cache}" in shown.stdout
    assert [line.split()[:2] for line in shown.stdout.splitlines() if line.startswith("snapshot")] \
        == [["snapshot", "2"]]
    assert "10 days ago" in shown.stdout  # the oldest last use

    dry = _cli("cache", "prune", "--older-than", "7", "--dry-run", cache=cache)
    assert f"would remove snapshot {old}" in dry.stdout and (cache / "snapshots" / old).exists()

    done = _cli("cache", "prune", "--older-than", "7", cache=cache)
    assert done.returncode == 0, done.stderr
    assert f"removed snapshot {old}" in done.stdout and new not in done.stdout
    assert f"in 1 entries from {cache}" in done.stdout and "freed " in done.stdout
    assert not (cache / "snapshots" / old).exists() and (cache / "snapshots" / new).exists()

    bad = _cli("cache", "prune", "--older-than", "-1", cache=cache)
    assert bad.returncode == 2 and "must not be negative" in bad.stderr


def test_docker_deps_go_when_unused_and_reusing_them_counts_as_a_use(cache):
    from testjack_tui.worlds.docker_backend import _deps_dir

    deps = cache / "docker-deps"
    for key, days in (("old", 45), ("recent", 1)):
        (deps / key).mkdir(parents=True)
        (deps / key / "pkg.py").write_text("x = 1\n")
        (deps / f"{key}.ready").touch()
        _age(deps / f"{key}.ready", days)
    summary = prune(cache, 30)
    assert [e.name for e in summary.removed] == ["old"]
    assert not (deps / "old").exists() and (deps / "recent" / "pkg.py").exists()

    # an installed set (made here as the backend leaves it): handing it out again marks it used
    import hashlib

    key = hashlib.sha256(b"tinylib==1.0").hexdigest()[:16]
    (deps / key).mkdir()
    ready = deps / f"{key}.ready"
    ready.touch()
    _age(ready, 45)
    assert _deps_dir(("tinylib==1.0",), cache) == deps / key
    assert time.time() - ready.stat().st_mtime < 60
    assert prune(cache, 30).removed == []
