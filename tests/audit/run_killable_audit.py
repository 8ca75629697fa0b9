"""An offline per-trial audit that can kill itself at an exact point of its own step log.

Used by tests/audit/test_fault_injection.py as a separate process::

    python -m tests.audit.run_killable_audit STORE RUN

Every commit the audit's completeness rests on is an event: a checkpoint (``Store.mark_step``),
a witness result (``Store.put_witness_result``) and a witness row (``Store.put_witness``). The
wrappers below are installed in this process only; the product code is not touched.

- ``TESTJACK_TRACE=FILE`` appends one tab-separated line per event, after it is committed:
  ``step KEY``, ``result WITNESS WORLD OUTCOME`` or ``witness WITNESS STATUS``.
- ``TESTJACK_KILL_AT=N`` sends SIGKILL to this process right after the N-th event (1-based) is
  committed: no ``finally``, no ``atexit``, no flush, as with ``kill -9`` from outside.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

from testjack_tui.store import Store
from testjack_tui.audit import Audit, AuditOptions

OPTIONS = dict(mode="per-trial", author="offline", workers=2, backend="local", evidence=False)


def install_hooks(trace: str | None, kill_at: int) -> None:
    lock = threading.Lock()
    count = 0

    def event(*fields: object) -> None:
        nonlocal count
        with lock:
            count += 1
            if trace:
                with open(trace, "a", encoding="utf-8") as fh:
                    fh.write("\t".join(str(f) for f in fields) + "\n")
            if count == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

    def hook(name: str, describe) -> None:
        original = getattr(Store, name)

        def wrapped(self, *args, **kwargs):
            result = original(self, *args, **kwargs)  # committed when it returns (one transaction)
            event(*describe(*args, **kwargs))
            return result

        setattr(Store, name, wrapped)

    hook("mark_step", lambda run_id, key, value=None: ("step", key))
    hook("put_witness_result", lambda r: ("result", r.witness_id, r.world, r.outcome))
    hook("put_witness", lambda w: ("witness", w.id, w.status))


def main() -> None:
    install_hooks(os.environ.get("TESTJACK_TRACE"), int(os.environ.get("TESTJACK_KILL_AT") or 0))
    status = Audit(Store(sys.argv[1]), sys.argv[2], AuditOptions(**OPTIONS)).execute()
    print(f"status|{status}", flush=True)


if __name__ == "__main__":
    main()
