"""The console in a real terminal: tmux runs ``testjack open`` on the toolbox sample run, and the
test drives it with keys alone, reading the screen as the analyst would.

The run is imported and audited in task-analysis mode first (the CLI, two workers), so refuted
trials are there from the start. In the console the test starts a second audit (``a``, then
``ctrl+s``), steps with ``f`` to a refuted trial, opens it and walks its five tabs with ``1``-``5``,
then quits with ``ctrl+q`` and the confirmation the running audit asks for. Opened again, the
console says where that audit stopped and how to resume it, and quits at once.

tmux runs on its own socket, and the test kills that server (and only it) at the end. CI installs
tmux (``.ci/run``); elsewhere the test is skipped without it.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLBOX = ROOT / "sample_runs" / "toolbox"
pytestmark = pytest.mark.slow


class Tmux:
    def __init__(self, socket: Path, env: dict[str, str]) -> None:
        self.socket = socket
        self.env = env
        self.sessions = 0

    def run(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-S", str(self.socket), *args], capture_output=True, text=True,
                              env=self.env, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def start(self, command: str, width: int = 160, height: int = 48) -> str:
        self.sessions += 1
        name = f"tj{self.sessions}"
        # the pane outlives the console, so its exit status can be read
        self.run("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height),
                 f"{command}; echo EXIT-STATUS-$?; sleep 600")
        return name

    def screen(self, session: str) -> str:
        return self.run("capture-pane", "-p", "-t", session)

    def keys(self, session: str, *keys: str) -> None:
        for key in keys:
            self.run("send-keys", "-t", session, key)
            time.sleep(0.3)  # a terminal user's pace: the console reads each key as it comes

    def type_fast(self, session: str, text: str) -> None:
        """``text`` in one burst, as a fast typist sends it: the console gets every key at once."""
        self.run("send-keys", "-t", session, "-l", text)

    def wait(self, session: str, pattern: str, timeout: float = 120.0) -> str:
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.screen(session)
            if re.search(pattern, text):
                return text
            time.sleep(0.5)
        raise AssertionError(f"{pattern!r} never appeared; the screen:\n{text}")

    def wait_gone(self, session: str, pattern: str, timeout: float = 30.0) -> str:
        """The screen once ``pattern`` is no longer on it (a dialog closed)."""
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.screen(session)
            if not re.search(pattern, text):
                return text
            time.sleep(0.5)
        raise AssertionError(f"{pattern!r} never went away; the screen:\n{text}")

    def kill(self) -> None:
        subprocess.run(["tmux", "-S", str(self.socket), "kill-server"], capture_output=True, env=self.env)


@pytest.fixture
def tmux(tmp_path):
    if shutil.which("tmux") is None:
        if os.environ.get("CI"):
            pytest.fail("tmux is not installed (.ci/run installs it)")
        pytest.skip("tmux is not installed")
    env = {**os.environ, "TESTJACK_CONFIG_DIR": str(tmp_path / "config"), "TERM": "xterm-256color",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
           "TESTJACK_ANALYST": "smoke"}
    env.pop("TMUX", None)
    server = Tmux(tmp_path / "tmux.sock", env)
    yield server
    server.kill()


def test_keys_alone_through_a_refuted_trial_and_quit_with_the_confirmation(tmux, tmp_path):
    store = tmp_path / "testjack.db"
    cli = [sys.executable, "-m", "testjack_tui.cli", "--store", str(store)]
    audited = subprocess.run([*cli, "audit", str(TOOLBOX), "--mode", "task-analysis", "--workers", "2"],
                             capture_output=True, text=True, env=tmux.env, timeout=1500)
    assert audited.returncode == 0, audited.stdout + audited.stderr
    console = " ".join(shlex.quote(part) for part in [*cli, "open", "toolbox"])

    s = tmux.start(console)
    screen = tmux.wait(s, r"Run toolbox")
    assert re.search(r"\b[1-9]\d* refuted or reward hack", screen), screen
    assert "F1" in screen.upper() and "Help" in screen  # the help key is in the footer

    tmux.keys(s, "a")  # start an audit, so that quitting has something to ask about
    tmux.wait(s, r"Audit toolbox")
    tmux.keys(s, "C-s")
    tmux.wait(s, r"audit running")

    tmux.keys(s, "f")  # the first refutation below the cursor
    tmux.keys(s, "Enter")
    screen = tmux.wait(s, r"Trial \S+")
    trial = re.search(r"Trial (\S+)", screen).group(1)
    tmux.wait(s, rf"{re.escape(trial)}\s+task .*(refuted|reward hack)")  # its header, read in a worker
    for key, shows in (("1", r"Checklist: \d+ requirements P states"),
                       ("2", r"the trial's patch"),
                       ("3", r"detector|No evidence for this trial"),
                       ("4", r"this trial\s+others\s+domain"),
                       ("5", r"Verdict: (refuted|reward hack)")):
        tmux.keys(s, key)
        tmux.wait(s, shows, timeout=30)
    tmux.keys(s, "4", "Tab", "5")  # the tab keys work from the witness runs table too
    tmux.wait(s, r"Verdict: (refuted|reward hack)", timeout=30)

    # a reason typed at once after o (and after A) is all in the dialog, none of it on the trial
    tmux.type_fast(s, "omx typed at once")
    screen = tmux.wait(s, r"Override the verdict of", timeout=30)
    tmux.wait(s, r"mx typed at once", timeout=30)
    # each Escape is seen to close its dialog before the next key: a key that follows an Escape
    # in the same read of the terminal makes an alt-key of the two (a busy machine reads late)
    tmux.keys(s, "Escape")
    tmux.wait_gone(s, r"Override the verdict of")
    tmux.keys(s, "4")
    tmux.type_fast(s, "Amx typed at once too")
    tmux.wait(s, r"Rule \S+ ambiguous", timeout=30)
    tmux.wait(s, r"mx typed at once too", timeout=30)
    tmux.keys(s, "Escape")
    tmux.wait_gone(s, r"Rule \S+ ambiguous")
    screen = tmux.wait(s, rf"{re.escape(trial)}\s+task ", timeout=30)
    assert not re.search(rf"{re.escape(trial)}\s+task .*reviewed", screen)  # m never marked it reviewed

    tmux.keys(s, "C-q")
    screen = tmux.wait(s, r"Quit while auditing\?", timeout=30)
    assert "toolbox at" in screen and "a resumes it" in screen
    tmux.keys(s, "y")
    tmux.wait(s, r"EXIT-STATUS-0", timeout=120)

    again = tmux.start(console)
    screen = tmux.wait(again, r"audit interrupted( at \d+%)? — press a to resume", timeout=60)
    tmux.keys(again, "C-q")  # no audit runs now: it quits at once
    tmux.wait(again, r"EXIT-STATUS-0", timeout=60)
