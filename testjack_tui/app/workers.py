"""Background work for the console: store reads in thread workers, and audits running in threads.

An audit's thread is the only writer of its results; its tests run on the executor the console
was opened with (``local`` threads, or tasks on a Ray cluster), as ``testjack audit`` runs them.

Store connections are per thread, so every worker opens its own ``Store(path)`` inside the
thread and closes it at the end. Results travel back as messages posted to the node that asked
(``post_message`` is thread-safe); a node that is gone by then simply never sees them, and a
worker superseded by a newer one of the same group drops its result.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Any, Callable, TypeVar

from textual.dom import DOMNode
from textual.worker import Worker, get_current_worker

from testjack_tui.store import Store
from testjack_tui.review.lifecycle import Interrupted, record_progress
from testjack_tui.app.messages import AuditFinished, AuditProgress, AuthorChecked, Loaded, LoadFailed
from testjack_tui.audit import Audit, AuditOptions, Progress
from testjack_tui.audit.execution import ExecutorUnavailable
from testjack_tui.authors.base import AuthorUnavailable

T = TypeVar("T")


def with_store(store_path: str, fn: Callable[[Store], T]) -> T:
    """Run ``fn`` with a Store opened in (and closed by) the calling thread."""
    store = Store(store_path)
    try:
        return fn(store)
    finally:
        store.close()


def load(
    node: DOMNode,
    what: str,
    fn: Callable[[Store], T],
    apply: Callable[[T], None],
    *,
    group: str | None = None,
    exclusive: bool = True,
) -> Worker[None]:
    """Read (or write) the store in a thread worker; ``apply(result)`` later runs on the UI thread.

    ``group`` defaults to ``what``: a newer call in the same group supersedes an older one.
    """
    store_path = str(node.app.store_path)  # type: ignore[attr-defined]

    def job() -> None:
        worker = get_current_worker()
        try:
            result = with_store(store_path, fn)
        except Exception as exc:  # shown to the analyst; the console keeps running
            if not worker.is_cancelled:
                node.post_message(LoadFailed(what, exc))
            return
        if not worker.is_cancelled:
            node.post_message(Loaded(apply, result))

    return node.run_worker(
        job, name=what, group=group or what, exclusive=exclusive, thread=True, exit_on_error=False
    )


@dataclass
class AuditJob:
    """One audit running in the background, as the console tracks it."""

    run_id: str
    options: AuditOptions
    cancel: threading.Event = field(default_factory=threading.Event)
    audit: Audit | None = None
    progress: Progress | None = None
    status: str = "running"
    worker: Worker[None] | None = None
    summary: str = ""  # what the run looks like after the audit, once it is done
    resumes: Interrupted | None = None  # the interrupted audit it resumes, offered again if it does not start

    @property
    def fraction(self) -> float:
        p = self.progress
        return (p.done / p.total) if p and p.total else 0.0

    def describe(self) -> str:
        p = self.progress
        if p is None:
            return "starting"
        text = f"{p.phase} {p.done}/{p.total}"
        return f"{text}: {p.message}" if p.message else text


class AuditJobs:
    """Audits the console runs, one thread worker each; several runs may be audited at once."""

    def __init__(self, app: Any, executor: str = "local", ray_address: str | None = None) -> None:
        self.app = app
        self.jobs: dict[str, AuditJob] = {}
        self.executor = executor
        self.ray_address = ray_address

    def where(self) -> str:
        """Where the audits' tests run, for the console's notices."""
        if self.executor == "local":
            return "threads on this machine"
        return f"the Ray cluster at {self.ray_address}" if self.ray_address else "a private Ray on this machine"

    def running(self, run_id: str) -> bool:
        job = self.jobs.get(run_id)
        return job is not None and job.status == "running"

    def running_jobs(self) -> list[AuditJob]:
        return [j for j in self.jobs.values() if j.status in ("running", "cancelling")]

    def start(self, run_id: str, options: AuditOptions) -> AuditJob | None:
        """Start auditing ``run_id``; None when it is already being audited.

        Whatever asked (the form, a resume, ``--audit``), the audit runs on this session's executor.
        """
        if self.running(run_id):
            return None
        options = replace(options, executor=self.executor, ray_address=self.ray_address)
        job = AuditJob(run_id, options)
        self.jobs[run_id] = job
        app = self.app
        store_path = str(app.store_path)
        opened: dict[str, Store] = {}
        last = {"done": -1}

        def report(progress: Progress) -> None:  # called on the audit's thread
            if progress.done != last["done"] and "store" in opened:
                last["done"] = progress.done
                try:  # how far the audit got, for "interrupted at N%" when the console reopens
                    record_progress(opened["store"], run_id, progress, options)
                except Exception:  # a progress note must never stop the audit
                    pass
            app.post_message(AuditProgress(run_id, progress))

        def execute() -> None:
            store = Store(store_path)
            opened["store"] = store
            try:
                audit = _checked_audit(app, store, run_id, options, report, job.cancel)
                if audit is None:
                    return  # the author cannot work: nothing started, nothing recorded
                job.audit = audit
                if options.executor != "local":
                    audit.service.open()  # joins the cluster: one that is not there fails before any step
                if job.cancel.is_set():
                    audit.service.close()
                    status = "cancelled"
                else:
                    status = audit.execute()
                app.post_message(AuditFinished(run_id, status))
            except ExecutorUnavailable as exc:
                app.post_message(AuditFinished(run_id, "failed", str(exc)))
            except Exception as exc:
                app.post_message(AuditFinished(run_id, "failed", f"{type(exc).__name__}: {exc}"))
            finally:
                opened.clear()
                store.close()

        job.worker = app.run_worker(
            execute, name=f"audit {run_id}", group=f"audit:{run_id}", thread=True, exit_on_error=False
        )
        return job

    def forget(self, run_id: str) -> AuditJob | None:
        """Drop the job of an audit that never started (its author cannot work)."""
        return self.jobs.pop(run_id, None)

    def cancel(self, run_id: str) -> bool:
        job = self.jobs.get(run_id)
        if job is None or job.status != "running":
            return False
        job.cancel.set()
        if job.audit is not None:
            job.audit.stop()
        job.status = "cancelling"
        return True

    def cancel_all(self) -> None:
        for run_id in list(self.jobs):
            self.cancel(run_id)


def _checked_audit(app: Any, store: Store, run_id: str, options: AuditOptions, report: Callable[[Progress], None],
                   cancel: threading.Event) -> Audit | None:
    """The audit, once its author can work; None (after telling the app why) when it cannot.

    An LLM author runs the preflight first, as ``testjack audit --author llm`` does: one tool-call
    round trip on this worker thread, before the audit writes anything to the store.
    """
    try:
        audit = Audit(store, run_id, options, on_progress=report, cancel=cancel)
    except AuthorUnavailable as exc:  # no model set, an option it cannot use
        who = "LLM" if options.author == "llm" else options.author  # as the preflight's line names it
        app.post_message(AuthorChecked(run_id, False, f"the {who} author cannot work: {exc}"))
        return None
    if options.author != "llm":
        return audit
    from testjack_tui.authors.llm.preflight import check  # loads openai only for an LLM audit

    result = check(audit.author.client)
    app.post_message(AuthorChecked(run_id, result.works, result.before_audit()))
    return audit if result.works else None
