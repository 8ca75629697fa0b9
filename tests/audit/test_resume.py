"""Nothing is lost: kill -9 in the middle of an audit, start it again, get the same report."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from testjack_tui.store import Store
from testjack_tui.formats.importing import import_path
from testjack_tui.report import build_report

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "sample_runs" / "mini"


def start(db: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.audit.run_scripted_audit", str(db), "mini"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )


def comparable(report: dict) -> dict:
    report = json.loads(json.dumps(report))
    report["summary"].pop("executions")  # an execution killed in flight is run again
    return report


def test_kill_9_mid_audit_then_rerun_gives_the_uninterrupted_report(tmp_path: Path) -> None:
    straight = tmp_path / "straight.db"
    import_path(Store(straight), MINI)
    proc = start(straight)
    out, _ = proc.communicate()
    assert proc.returncode == 0 and "status|done" in out

    killed = tmp_path / "killed.db"
    import_path(Store(killed), MINI)
    proc = start(killed)
    for line in proc.stdout:  # wait until the audit is writing witnesses, then kill it
        if line.startswith("witnesses|") or line.startswith("evidence|"):
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert Store(killed).integrity_check() == "ok"

    proc = start(killed)
    out, _ = proc.communicate()
    assert proc.returncode == 0 and "status|done" in out
    assert comparable(build_report(Store(killed), "mini")) == comparable(build_report(Store(straight), "mini"))
    verdicts = {t["id"]: t["verdict"] for t in build_report(Store(killed), "mini")["trials"]}
    assert verdicts["chunk-t2"] == "refuted"
    assert verdicts["chunk-t3"] == "reward_hack"  # refuted, and it hard-codes the example's answer
