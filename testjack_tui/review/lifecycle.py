"""An audit's life cycle as the console shows it: its progress kept in the store, an interrupted
audit found again when the console reopens (the summary announced when one ends is
``figures.outcome_line``). No Textual.

The audit engine commits every finished step; what it does not keep is how far along the whole
audit was. The console's audit thread records that (``record_progress``, one small checkpoint row
per finished step, written on the audit's own thread and connection), so that a console killed or
quit mid-audit can say "interrupted at 43%" when it opens again, and resume with the same options.

An audit row still 'running' may also be a live audit of another process (``testjack audit``, or
another console): the row names the process and host that started it, and the engine keeps its
steps so far and a heartbeat in it. On this host a process that still exists is taken as alive;
on another host, a heartbeat in the last ``STALE_AFTER`` is. Such an audit is "running in another
process", with its percentage, and is never offered for resuming.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from testjack_tui.store import Store
from testjack_tui.audit import AuditOptions, Progress
from testjack_tui.audit.engine import DEFAULT_ROUNDS

PROGRESS_STEP = "console:progress"  # a steps row: how far the console's last audit of the run got
INTERRUPTED = ("running", "cancelled")  # an audit row left so: killed, or stopped before its end
STALE_AFTER = timedelta(minutes=10)  # an audit on another host that said nothing for this long is taken as dead


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def record_progress(store: Store, run_id: str, progress: Progress, options: AuditOptions) -> None:
    """Keep how far the audit got (called on the audit's thread, with its store)."""
    store.mark_step(run_id, PROGRESS_STEP, {
        "done": progress.done, "total": progress.total, "phase": progress.phase, "updated": _now(),
        "mode": str(options.mode), "author": options.author,
    })


@dataclass
class Interrupted:
    """An audit of the run that did not reach its end, and how to resume it."""

    run_id: str
    status: str  # "running" (the process was killed) or "cancelled" (stopped, by a quit or c)
    started_at: str
    options: AuditOptions
    percent: int | None = None  # how far it got, when the store kept it
    phase: str = ""
    elsewhere: str = ""  # the live process running it ("pid 4242", "pid 4242 on host-b"), if any

    def describe(self) -> str:
        at = f" at {self.percent}%" if self.percent is not None else ""
        if self.elsewhere:
            return f"audit running in another process ({self.elsewhere}){at}"
        return f"audit interrupted{at} — press a to resume"

    def detail(self) -> str:
        where = f" ({self.phase})" if self.phase else ""
        if self.elsewhere:
            return (f"the {self.options.mode} audit of {self.run_id} started {self.started_at} is running in "
                    f"another process{where}; its verdicts appear here as its steps finish (r refreshes)")
        return (f"the {self.options.mode} audit of {self.run_id} started {self.started_at} did not finish{where}; "
                "every finished step is in the store and resuming redoes none of them")


def running_elsewhere(row: dict[str, Any], now: datetime | None = None) -> str:
    """Who runs the audit of this 'running' row, when that is a live process other than this one."""
    pid, host = row.get("pid"), str(row.get("host") or "")
    if not pid or row.get("status") != "running":
        return ""
    if host == socket.gethostname():
        if pid == os.getpid():
            return ""  # this very process started it: its audit, if any, is tracked as a job
        try:
            os.kill(int(pid), 0)  # signal 0: only asks whether the process exists
        except ProcessLookupError:
            return ""
        except PermissionError:  # it exists, run by another user
            pass
        except OSError:
            return ""
        return f"pid {pid}"
    try:
        beat = datetime.fromisoformat(str(row.get("heartbeat")))
    except ValueError:
        return ""
    return f"pid {pid} on {host}" if (now or datetime.now(timezone.utc)) - beat < STALE_AFTER else ""


def interrupted_audit(store: Store, run_id: str) -> Interrupted | None:
    """The run's last audit when it did not finish (killed, stopped, or still running in another
    process: then ``elsewhere`` says which), else None."""
    audits = store.list_audits(run_id)
    if not audits or audits[-1]["status"] not in INTERRUPTED:
        return None
    last = audits[-1]
    options = AuditOptions(
        mode=last["mode"], author=last["author"], seed=int(last["seed"] or 0),
        rounds=int(last["rounds"] or DEFAULT_ROUNDS), backend=last["backend"] or None,
        author_options=dict(last.get("endpoint") or {}),
    )
    found = Interrupted(run_id, last["status"], str(last["started_at"] or ""), options,
                        elsewhere=running_elsewhere(last))
    progress = store.get_step(run_id, PROGRESS_STEP)
    if last.get("total"):  # the engine's own record, whichever process ran it
        found.percent = min(99, int(100 * int(last.get("done") or 0) / int(last["total"])))
        found.phase = str(last.get("phase") or "")
    # else the console's record of this very audit (one written after it started)
    elif isinstance(progress, dict) and str(progress.get("updated", "")) >= found.started_at[:19]:
        total = int(progress.get("total") or 0)
        if total:
            found.percent = min(99, int(100 * int(progress.get("done") or 0) / total))
        found.phase = str(progress.get("phase") or "")
    return found
