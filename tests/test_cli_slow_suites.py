"""`testjack audit` on slow suites: progress lines in a log, SIGTERM, --no-mutation."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from testjack_tui.store import Store

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "sample_runs" / "mini"


def _cli(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "testjack_tui.cli", *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def _processes_with(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if token.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_audit_in_a_log_prints_a_line_per_finished_step(tmp_path):
    proc = _cli("audit", str(MINI), "--author", "none", "--no-mutation", "--workers", "2",
                "--store", str(tmp_path / "s.db"))
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    lines = [ln for ln in err.splitlines() if ln.startswith("[")]
    # stderr is a pipe here, not a terminal: no bar, but one line per step with counts
    assert any("official tests: T0 done for chunk" in ln and "executions" in ln for ln in lines), err
    assert lines[-1].startswith("[") and "done" in lines[-1]
    assert "trials" in out  # the summary table


def test_sigterm_kills_the_test_processes_and_keeps_what_finished(tmp_path):
    run = tmp_path / "slow"
    shutil.copytree(MINI, run)
    token = f"tj-sigterm-{uuid.uuid4().hex[:8]}"
    marker = tmp_path / "started"
    toml = run / "tasks" / "chunk" / "task.toml"
    slow = (f"python -c \"import pathlib, time; pathlib.Path('{marker}').write_text('x'); time.sleep(900)\" "
            f"{token} && ")
    toml.write_text(toml.read_text().replace('command = "', 'command = "' + slow.replace('"', '\\"'), 1))
    db = tmp_path / "s.db"
    proc = _cli("audit", str(run), "--author", "none", "--workers", "2", "--store", str(db))
    deadline = time.monotonic() + 300
    while not marker.exists():  # the first T0 run has started its (endless) test process
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "the test command never started"
        time.sleep(0.05)
    assert _processes_with(token)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    assert "run the same command again to continue" in err
    assert _processes_with(token) == []  # every process group the audit started is gone
    store = Store(db)
    assert store.list_audits(store.get_run("mini").id)[-1]["status"] == "cancelled"  # recorded, to be continued
