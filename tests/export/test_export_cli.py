"""`testjack export` as a user meets it: what it writes, and the clear refusals (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.report.test_leaderboard import SMALL, SMALL_AUDITED, make_store

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "testjack_tui.cli", *args], capture_output=True, text=True, cwd=ROOT)


def test_export_writes_a_native_run_with_its_provenance(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    make_store(db, SMALL, SMALL_AUDITED).close()
    out = tmp_path / "out"
    proc = cli("export", "board", "--format", "native", "-o", str(out), "--store", str(db))
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {out}: 1 task(s), 12 trial(s), 0 witness(es) added to T0" in proc.stderr
    assert (out / "run.toml").read_text().startswith('name = "board-t1"')
    rows = [json.loads(line) for line in (out / "trials.jsonl").read_text().splitlines()]
    assert rows[2]["metadata"]["testjack_verdict"] == "refuted" and rows[2]["official"] == "passed"
    prov = json.loads((out / "testjack_t1.json").read_text())
    assert prov["schema"] == "testjack.t1/1" and prov["trials"]["t3"]["verdict"] == "reward_hack"


def test_export_refuses_a_folder_with_files_and_a_format_the_run_is_not(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    make_store(db, SMALL, SMALL_AUDITED).close()
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    proc = cli("export", "board", "--format", "native", "-o", str(busy), "--store", str(db))
    assert proc.returncode == 2 and "already exists and is not an empty folder" in proc.stderr
    assert (busy / "keep.txt").read_text() == "mine"
    proc = cli("export", "board", "--format", "evalplus", "-o", str(tmp_path / "ep"), "--store", str(db))
    assert proc.returncode == 2 and "task task is not a HumanEval task" in proc.stderr
    proc = cli("export", "board", "--format", "csv", "-o", str(tmp_path / "x"), "--store", str(db))
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
