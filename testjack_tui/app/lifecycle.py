"""An audit's life cycle as the console shows it: its progress kept in the store, an interrupted
audit found again when the console reopens, and the summary announced when one ends. No Textual.

The audit engine commits every finished step; what it does not keep is how far along the whole
audit was. The console's audit thread records that (``record_progress``, one small checkpoint row
per finished step, written on the audit's own thread and connection), so that a console killed or
quit mid-audit can say "interrupted at 43%" when it opens again, and resume with the same options.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from store import Store
from testjack_tui.audit import AuditOptions, Progress
from testjack_tui.audit.engine import DEFAULT_ROUNDS
from testjack_tui.model import RunSummary

PROGRESS_STEP = "console:progress"  # a steps row: how far the console's last audit of the run got
INTERRUPTED = ("running", "cancelled")  # an audit row left so: killed, or stopped before its end


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
    percent: int | None = None  # how far it got, when the console ran it
    phase: str = ""

    def describe(self) -> str:
        at = f" at {self.percent}%" if self.percent is not None else ""
        return f"audit interrupted{at} — press a to resume"

    def detail(self) -> str:
        where = f" ({self.phase})" if self.phase else ""
        return (f"the {self.options.mode} audit of {self.run_id} started {self.started_at} did not finish{where}; "
                "every finished step is in the store and resuming redoes none of them")


def interrupted_audit(store: Store, run_id: str) -> Interrupted | None:
    """The run's last audit when it did not finish (killed, or stopped), else None."""
    audits = store.list_audits(run_id)
    if not audits or audits[-1]["status"] not in INTERRUPTED:
        return None
    last = audits[-1]
    options = AuditOptions(
        mode=last["mode"], author=last["author"], seed=int(last["seed"] or 0),
        rounds=int(last["rounds"] or DEFAULT_ROUNDS), backend=last["backend"] or None,
    )
    found = Interrupted(run_id, last["status"], str(last["started_at"] or ""), options)
    progress = store.get_step(run_id, PROGRESS_STEP)
    # only the console's record of this very audit counts (one written after it started)
    if isinstance(progress, dict) and str(progress.get("updated", "")) >= found.started_at[:19]:
        total = int(progress.get("total") or 0)
        if total:
            found.percent = min(99, int(100 * int(progress.get("done") or 0) / total))
        found.phase = str(progress.get("phase") or "")
    return found


def summary_text(s: RunSummary) -> str:
    """What an audit left the run with, in one line (for the end-of-audit notification)."""
    return (f"{s.refuted} refuted or reward hack ({s.reward_hack} reward hacks) · {s.sound} sound · "
            f"{s.unaudited} unaudited · {s.ambiguous_witnesses} ambiguous witnesses · resolution "
            f"{100 * s.resolution_before:.1f}% → {100 * s.resolution_after:.1f}%")
