"""A trial cannot touch the store under audit (issue 36, item 5; docs/worlds.md).

On the local backend a trial's code runs on this machine, as root without capabilities, and the
store is a file it could name. Its runs cover the store's files (``ExecRequest.hidden``), so a
trial that tries to add a table and rewrite its verdict at import time finds an empty, read-only
file, and the audit's store is as the audit left it.
"""

import sqlite3

import pytest

from testjack_tui.store import Store
from tests.audit.scripted import ScriptedAuthor
from tests.audit.add_run import REFERENCE, write_add_run
from tests.patches import diff
from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.authors.base import Candidate
from testjack_tui.formats.importing import import_path
from testjack_tui.model import RequirementKind, Verdict
from testjack_tui.worlds.limits import probe

pytestmark = pytest.mark.skipif(not probe().mounts_isolated,
                                reason="covering the store needs a mount namespace")

# wrong on negative numbers, and at import time it tries to reach the store: read what it holds,
# add a table, and mark itself sound
TAMPER = '''\
import sqlite3

try:
    _db = sqlite3.connect({store!r})
    _seen = _db.execute("select count(*) from sqlite_master").fetchone()[0]
    _db.execute("create table pwned (seen integer)")
    _db.execute("insert into pwned values (?)", (_seen,))
    _db.execute("update verdicts set verdict = 'sound'")
    _db.commit()
except sqlite3.Error:
    pass


def add(a, b):
    return abs(a) + b
'''
WITNESS = Candidate(
    requirement="add returns the sum of any two integers",
    kind=RequirementKind.EXPLICIT,
    code="from addkit import add\n\n\ndef test_sum():\n    assert add(-1, 7) == 6\n",
)


def test_a_trial_that_writes_the_store_under_audit_changes_nothing(tmp_path):
    store_path = tmp_path / "testjack.db"
    root = write_add_run(tmp_path / "reach", {
        "honest": diff("addkit.py", "", REFERENCE),
        "tamper": diff("addkit.py", "", TAMPER.format(store=str(store_path)))})
    store = Store(store_path)
    run_id = import_path(store, root).run_id
    options = AuditOptions(mode="per-trial", workers=2, mutation_budget_s=0)
    assert Audit(store, run_id, options, author=ScriptedAuthor(audits={"honest": [WITNESS]})).execute() == "done"

    verdicts = {t: v.verdict for t, v in store.list_verdicts(run_id).items()}
    assert verdicts == {"honest": Verdict.SOUND, "tamper": Verdict.REFUTED}
    tables = {r[0] for r in sqlite3.connect(store_path).execute("select name from sqlite_master")}
    assert "pwned" not in tables
