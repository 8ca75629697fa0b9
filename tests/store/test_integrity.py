"""The store checks itself (issue 14): damaged stores, paths that are no store, staging left behind.

Every case drives the real command line in a subprocess on real SQLite files under tmp_path.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "sample_runs" / "mini"


def cli(*args: str, prefix: list[str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*(prefix or []), sys.executable, "-m", "testjack_tui.cli", *args],
                          capture_output=True, text=True, cwd=ROOT)


def refused(proc: subprocess.CompletedProcess, *words: str) -> None:
    """Exit 2, a one-line reason naming what it must, and no traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    for word in words:
        assert word in proc.stderr, (word, proc.stderr)


def imported_store(tmp_path: Path, name: str = "s.db") -> Path:
    db = tmp_path / name
    proc = cli("import", str(MINI), "--store", str(db))
    assert proc.returncode == 0, proc.stderr
    return db


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def overwrite(path: Path, offset: int, length: int) -> None:
    noise = random.Random(14).randbytes(length)
    with open(path, "r+b") as fh:
        fh.seek(offset)
        fh.write(noise)


def page_of(db: Path, name: str) -> tuple[int, int]:
    """(offset, size) of the root page of table or index ``name``."""
    conn = sqlite3.connect(db)
    try:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)).fetchone()
    finally:
        conn.close()
    return (root - 1) * size, size


WRITING = [
    ("audit", "mini", "--author", "none", "--workers", "1"),
    ("verdict", "chunk-t1", "--set", "sound", "--reason", "checked by hand"),
    ("import", str(MINI), "--name", "again"),
]
EVERY = [("report", "mini", "--format", "json"), *WRITING]


# ---------------------------------------------------------------------- damaged stores


def test_80_kb_of_noise_in_the_middle_is_refused_by_every_command_and_nothing_is_written(tmp_path: Path) -> None:
    db = imported_store(tmp_path)
    overwrite(db, db.stat().st_size // 2 - 40 * 1024, 80 * 1024)
    before = digest(db)
    for command in EVERY:
        proc = cli(*command, "--store", str(db))
        refused(proc, str(db), "damaged", f"testjack doctor --store {db}", "from a copy")
    assert digest(db) == before


@pytest.mark.parametrize("damaged", ["sqlite_autoindex_trials_1", "rulings"])
def test_one_damaged_page_that_the_commands_would_not_read_is_still_refused(tmp_path: Path, damaged: str) -> None:
    # Before the check, report and verdict exited 0 over a damaged trials index, audit over damaged rulings.
    db = imported_store(tmp_path)
    overwrite(db, *page_of(db, damaged))
    for command in EVERY:
        refused(cli(*command, "--store", str(db)), str(db), "the store is damaged", "testjack doctor")


def test_a_file_that_is_not_a_database_is_refused_naming_it(tmp_path: Path) -> None:
    notes = tmp_path / "notes.db"
    notes.write_text("these are my notes, not a store\n" * 200)
    for command in EVERY:
        refused(cli(*command, "--store", str(notes)), str(notes), "file is not a database", "a file of another kind")
    assert notes.read_text().startswith("these are my notes")


# ---------------------------------------------------------------------- doctor


def test_doctor_on_a_healthy_store_prints_what_it_checked_and_exits_0(tmp_path: Path) -> None:
    from testjack_tui.store.schema import CURRENT_VERSION

    db = imported_store(tmp_path)
    before = digest(db)
    proc = cli("doctor", "--store", str(db))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"store: {db}" in out
    assert "integrity: ok" in out
    assert f"schema version: {CURRENT_VERSION} (current)" in out
    assert "contents: 1 runs, 1 tasks, 4 trials" in out
    assert "staging: no leftover directories" in out
    assert out.rstrip().endswith("healthy: nothing to do")
    assert digest(db) == before  # doctor only reads


def test_doctor_on_a_damaged_store_lists_problems_and_the_runs_to_import_again(tmp_path: Path) -> None:
    db = imported_store(tmp_path)
    overwrite(db, *page_of(db, "sqlite_autoindex_trials_1"))
    before = digest(db)
    proc = cli("doctor", "--store", str(db))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    out = proc.stdout
    assert "integrity: DAMAGED" in out and "Page " in out  # SQLite's own words, page by page
    assert "contents: 1 runs, 1 tasks" in out  # what can still be read is counted
    assert f"testjack import {MINI} --store NEW.db" in out
    assert "restore s.db and s.db.files from a copy" in out
    assert digest(db) == before


def test_doctor_does_not_create_a_store_that_is_not_there(tmp_path: Path) -> None:
    missing = tmp_path / "typo.db"
    refused(cli("doctor", "--store", str(missing)), str(missing), "no store here")
    assert not missing.exists()


# ---------------------------------------------------------------------- paths that are no store


@pytest.mark.parametrize("command", ["import", "report", "doctor"])
def test_dev_null_is_not_a_store(command: str) -> None:
    args = {"import": ("import", str(MINI)), "report": ("report", "mini"), "doctor": ("doctor",)}[command]
    refused(cli(*args, "--store", "/dev/null"), "/dev/null: is not a regular file")


def test_a_folder_is_not_a_store(tmp_path: Path) -> None:
    folder = tmp_path / "stores"
    folder.mkdir()
    for command in [*EVERY, ("doctor",)]:
        refused(cli(*command, "--store", str(folder)), f"{folder}: is a folder", str(folder / "testjack.db"))
    assert list(folder.iterdir()) == []


def _as_a_plain_user() -> list[str]:
    """A command prefix under which file permissions hold (root ignores them)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root ignores file permissions and setpriv is not installed to drop that power")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


def test_writing_to_a_read_only_store_is_refused_and_reading_it_still_works(tmp_path: Path) -> None:
    db = imported_store(tmp_path)
    db.chmod(0o444)
    plain = _as_a_plain_user()
    before = digest(db)
    for command in WRITING:
        refused(cli(*command, "--store", str(db), prefix=plain), f"{db}: the store is read-only", "chmod u+w")
    assert digest(db) == before
    report = cli("report", "mini", "--format", "json", "--store", str(db), prefix=plain)
    assert report.returncode == 0, report.stderr
    assert '"trials": 4' in report.stdout


def test_a_store_in_a_read_only_folder_is_refused_naming_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "shelf"
    folder.mkdir()
    db = imported_store(folder)
    folder.chmod(0o555)
    try:
        proc = cli("import", str(MINI), "--name", "again", "--store", str(db), prefix=_as_a_plain_user())
        refused(proc, str(db), f"its folder {folder} is read-only", "s.db-wal")
    finally:
        folder.chmod(0o755)


# ---------------------------------------------------------------------- staging left behind


def _die_while_staging(db: Path) -> Path:
    """A process that opens the store, takes a staging directory, writes into it and is killed (SIGKILL)."""
    code = (
        "import os, signal, sys\n"
        "from store import Store\n"
        "d = Store(sys.argv[1]).staging_dir()\n"
        "(d / 'snapshot').mkdir(); (d / 'snapshot' / 'f.py').write_text('x = 1\\n')\n"
        "print(d, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == -9, proc.stderr
    left = Path(proc.stdout.strip())
    assert left.is_dir()
    return left


def test_staging_left_by_a_killed_import_is_reported_by_doctor_and_removed_at_the_next_write(tmp_path: Path) -> None:
    db = imported_store(tmp_path)
    left = _die_while_staging(db)
    older = Path(f"{db}.files") / "staging" / "made-before-lock-files"  # a leftover without a lock file
    older.mkdir()

    doctor = cli("doctor", "--store", str(db))
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr  # leftovers are not damage
    assert f"staging: left over by an interrupted import: {left}" in doctor.stdout
    assert f"staging: left over by an interrupted import: {older}" in doctor.stdout
    assert "healthy; 2 leftover staging directories (above), removed by the next command that writes" in doctor.stdout

    report = cli("report", "mini", "--store", str(db))  # reading leaves them alone
    assert report.returncode == 0 and left.exists()

    proc = cli("verdict", "chunk-t1", "--set", "sound", "--reason", "checked by hand", "--store", str(db))
    assert proc.returncode == 0, proc.stderr
    assert not left.exists() and not older.exists()
    assert f"removed {left}: staging left by an interrupted import" in proc.stderr
    assert "staging: no leftover directories" in cli("doctor", "--store", str(db)).stdout


def test_staging_a_live_import_holds_is_never_removed(tmp_path: Path) -> None:
    db = imported_store(tmp_path)
    code = (
        "import sys\n"
        "from store import Store\n"
        "s = Store(sys.argv[1]); d = s.staging_dir()\n"
        "print(d, flush=True)\n"
        "sys.stdin.readline()\n"  # holds the directory until told to go on
        "s.discard_staging(d); print('discarded', flush=True)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(db)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        held = Path(holder.stdout.readline().strip())
        assert held.is_dir()
        proc = cli("import", str(MINI), "--name", "again", "--store", str(db))  # opens the store for writing
        assert proc.returncode == 0, proc.stderr
        assert held.is_dir()
        doctor = cli("doctor", "--store", str(db))
        assert f"staging: in use by a running import: {held}" in doctor.stdout
        assert doctor.stdout.rstrip().endswith("healthy: nothing to do")
        holder.stdin.write("go on\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "discarded"
    finally:
        holder.stdin.close()
        holder.wait()
    assert not held.exists()
