"""Run a lightweight audit of a run with the scripted author, printing each progress message.

Used by the kill -9 test as a separate process: ``python -m tests.audit.run_scripted_audit STORE RUN``.
"""

from __future__ import annotations

import sys

from testjack_tui.store import Store
from testjack_tui.audit import Audit, AuditOptions
from tests.audit.scripted import EMPTY, IMPLICIT_MOSTLY_SKIPPED, REMAINDER, ScriptedAuthor


def main() -> None:
    store = Store(sys.argv[1])
    author = ScriptedAuthor(analysis=[IMPLICIT_MOSTLY_SKIPPED], audits={"chunk-t2": [EMPTY], "chunk-t3": [REMAINDER]})

    def show(p) -> None:
        print(f"{p.phase}|{p.done}|{p.message}", flush=True)

    status = Audit(store, sys.argv[2], AuditOptions(mode="per-trial", workers=2), author=author, on_progress=show).execute()
    print(f"status|{status}", flush=True)


if __name__ == "__main__":
    main()
