"""Where settings and the cache live (the platform's folders, an old ~/.config or ~/.cache kept),
and a bad environment variable named with exit 2. Real variables, real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from testjack_tui.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "sample_runs" / "mini"


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    """A fresh HOME with XDG_CONFIG_HOME and XDG_CACHE_HOME elsewhere, and no TestJack folder."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    for name in ("TESTJACK_CONFIG_DIR", "TESTJACK_CACHE"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def cache_in_use() -> Path:
    """The folder ``testjack cache`` says it uses."""
    proc = subprocess.run([sys.executable, "-m", "testjack_tui.cli", "cache"],
                          capture_output=True, text=True, cwd=ROOT, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.startswith("cache: ")
    return Path(first.removeprefix("cache: "))


def test_settings_and_cache_go_to_the_xdg_folders(home: Path, tmp_path: Path) -> None:
    Settings(theme="testjack-light").save()
    saved = tmp_path / "xdg-config" / "testjack" / "settings.json"
    assert json.loads(saved.read_text())["theme"] == "testjack-light"
    assert Settings.load().theme == "testjack-light"
    assert not (home / ".config").exists()
    assert cache_in_use() == tmp_path / "xdg-cache" / "testjack"


def test_an_existing_dot_config_and_dot_cache_are_still_used(home: Path, tmp_path: Path) -> None:
    old_config, old_cache = home / ".config" / "testjack", home / ".cache" / "testjack"
    old_config.mkdir(parents=True)
    old_cache.mkdir(parents=True)
    (old_config / "settings.json").write_text(json.dumps({"theme": "testjack-light", "analyst": "ada"}))
    settings = Settings.load()
    assert (settings.theme, settings.analyst) == ("testjack-light", "ada")
    settings.resume_audits = True
    settings.save()
    assert json.loads((old_config / "settings.json").read_text())["resume_audits"] is True
    assert not (tmp_path / "xdg-config").exists()
    assert cache_in_use() == old_cache


def test_the_variables_win_over_every_folder(home: Path, tmp_path: Path, monkeypatch) -> None:
    (home / ".config" / "testjack").mkdir(parents=True)
    (home / ".cache" / "testjack").mkdir(parents=True)
    monkeypatch.setenv("TESTJACK_CONFIG_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("TESTJACK_CACHE", str(tmp_path / "my-cache"))
    Settings(analyst="bo").save()
    assert json.loads((tmp_path / "mine" / "settings.json").read_text())["analyst"] == "bo"
    assert cache_in_use() == tmp_path / "my-cache"


def test_an_empty_variable_counts_as_unset(home: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TESTJACK_CACHE", "")
    assert cache_in_use() == tmp_path / "xdg-cache" / "testjack"


@pytest.mark.parametrize("value", ["lots", "8", "12.5"])
def test_a_bad_docker_disk_bound_stops_a_docker_audit_naming_it(tmp_path: Path, value: str) -> None:
    env = {**os.environ, "TESTJACK_DOCKER_DISK_MB": value}
    proc = subprocess.run(
        [sys.executable, "-m", "testjack_tui.cli", "audit", str(MINI), "--backend", "docker",
         "--store", str(tmp_path / "s.db")],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    # was: the audit ran, and every test in a container ended in the same error
    assert proc.returncode == 2, proc.stderr
    assert (f"TESTJACK_DOCKER_DISK_MB={value!r}: the disk bound of a docker world is a whole number "
            f"of MiB, at least 16") in proc.stderr
    assert "Traceback" not in proc.stderr
