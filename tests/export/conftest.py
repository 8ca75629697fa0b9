"""Audited runs to export, and the re-grading every round trip uses.

The round trip: import the exported benchmark with TestJack's own importer into a fresh store and
run only its official tests (``--author none``: T0 on every world, which is now T1, and the
evidence step, whose harness check reruns the tests with a trial's conftest.py dropped). A trial
fails T1 when its recomputed T1 does not pass, or the harness check refutes it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from testjack_tui.store import Store
from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.audit.metrics import REFUTING
from testjack_tui.formats.importing import import_path
from testjack_tui.model import Official
from tests.export.tiny_humaneval import write_tiny_humaneval
from tests.worlds.conftest import engine  # noqa: F401  (the docker tests' engine fixture)

ROOT = Path(__file__).resolve().parents[2]
TOOLBOX = ROOT / "sample_runs" / "toolbox"
# sample_runs/README.md's answer key
TOOLBOX_REFUTED = {"slug-t3", "slug-t4", "slug-t5", "duration-t5", "duration-t6", "pages-t3", "pages-t4",
                   "pages-t5", "pages-t6"}


def audited(db: Path, source: Path, **options) -> tuple[Store, str]:
    store = Store(db)
    run_id = import_path(store, source).run_id
    assert Audit(store, run_id, AuditOptions(workers=2, **options)).execute() == "done"
    return store, run_id


@pytest.fixture(scope="session")
def toolbox(tmp_path_factory) -> tuple[Store, str]:
    store, run_id = audited(tmp_path_factory.mktemp("toolbox") / "s.db", TOOLBOX)
    refuted = {t for t, v in store.list_verdicts(run_id).items() if v.verdict in REFUTING}
    assert refuted == TOOLBOX_REFUTED  # sound trials stay sound (harness witnesses are not shared)
    return store, run_id


@pytest.fixture(scope="session")
def tiny(tmp_path_factory) -> tuple[Store, str]:
    folder = write_tiny_humaneval(tmp_path_factory.mktemp("tiny-src") / "tiny")
    store, run_id = audited(tmp_path_factory.mktemp("tiny") / "s.db", folder, mode="per-trial")
    refuted = {t for t, v in store.list_verdicts(run_id).items() if v.verdict in REFUTING}
    assert refuted == {"tiny-0-bad", "tiny-1-bad"}
    return store, run_id


def fails_t1(db: Path, path: Path, fmt: str, **options) -> dict[str, bool]:
    """Import the export, run its official tests only, and say which trials fail them."""
    store = Store(db)
    run_id = import_path(store, path, fmt, **options).run_id
    assert Audit(store, run_id, AuditOptions(author="none", workers=2)).execute() == "done"
    verdicts = store.list_verdicts(run_id)
    return {t.id: t.recomputed != "passed" or verdicts[t.id].verdict in REFUTING
            for t in store.list_trial_objects(run_id)}


def expected_failures(store: Store, run_id: str) -> dict[str, bool]:
    """What T1 must do: fail the refuted trials and those the benchmark failed, pass the rest."""
    verdicts = store.list_verdicts(run_id)
    return {t.id: verdicts[t.id].verdict in REFUTING or t.official == Official.FAILED
            for t in store.list_trial_objects(run_id)}
