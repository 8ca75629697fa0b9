"""The console's side of audits: start, resume and cancel them, follow their progress, and find
the ones the last session left unfinished or another process is running (``lifecycle``).

A mixin of ``TestJackApp``: it needs the app's ``audits`` (the jobs of this process), its
``interrupted`` (runs whose last audit did not finish here), ``settings`` and ``_tell_screens``.
"""

from __future__ import annotations

from typing import Any

from testjack_tui.figures import counted, outcome_line
from testjack_tui.review.lifecycle import Interrupted, interrupted_audit
from testjack_tui.app.messages import AuditFinished, AuditProgress, AuthorChecked
from testjack_tui.app.workers import AuditJobs, load
from testjack_tui.audit import AuditOptions

ELSEWHERE_POLL = 5.0  # seconds between looks at an audit running in another process


class AuditControl:
    audits: AuditJobs
    interrupted: dict[str, Interrupted]
    settings: Any

    def _look_for_interrupted_audits(self, first: bool = True) -> None:
        """An audit the last session did not finish: say so (or resume it, if the settings say to).

        An audit still running in another process is shown with its progress and looked at again
        every ``ELSEWHERE_POLL`` seconds until it ends (then it is finished, or interrupted).
        """

        def read(store) -> list[Interrupted]:
            found = (interrupted_audit(store, run.id) for run in store.list_runs())
            return [i for i in found if i is not None]

        def show(found: list[Interrupted]) -> None:
            seen = {i.run_id for i in found}
            for run_id, old in list(self.interrupted.items()):
                if old.elsewhere and run_id not in seen:  # it finished over there
                    del self.interrupted[run_id]
                    self.notify(f"{run_id}: the audit running in another process finished", title="Audit")
                    self._tell_screens("audit_changed", run_id)
                    self._tell_screens("store_changed", run_id)
            for item in found:
                if self.audits.running(item.run_id):
                    continue
                old = self.interrupted.get(item.run_id)
                if item.elsewhere:
                    self.interrupted[item.run_id] = item
                    if old is None or not old.elsewhere:
                        self.notify(f"{item.run_id}: {item.describe()}\n{item.detail()}", title="Audit running elsewhere",
                                    timeout=15)
                    self._tell_screens("audit_changed", item.run_id)
                    if old is not None and old.percent != item.percent:
                        self._tell_screens("store_changed", item.run_id)  # its finished steps' verdicts
                    continue
                if not first and old is not None and not old.elsewhere:
                    continue  # already said
                if self.settings.resume_audits:
                    at = f" at {item.percent}%" if item.percent is not None else ""
                    self.notify(f"resuming the audit of {item.run_id}, interrupted{at}", title="Audit", timeout=10)
                    self.start_run_audit(item.run_id, item.options)
                    continue
                self.interrupted[item.run_id] = item
                self.notify(f"{item.run_id}: {item.describe()}\n{item.detail()}", title="Audit interrupted",
                            severity="warning", timeout=30)
                self._tell_screens("audit_changed", item.run_id)
            if any(i.elsewhere for i in self.interrupted.values()):
                self.set_timer(ELSEWHERE_POLL, lambda: self._look_for_interrupted_audits(first=False))

        load(self, "interrupted audits", read, show)

    def start_run_audit(self, run_id: str, options: AuditOptions) -> None:
        job = self.audits.start(run_id, options)
        if job is None:
            self.notify(f"{run_id} is already being audited", severity="warning")
            return
        resumed = job.resumes = self.interrupted.pop(run_id, None)
        what = "resuming the audit of" if resumed else "auditing"
        self.notify(f"{what} {run_id}: {options.mode}, author {options.author}, {counted(options.rounds, 'round')}, "
                    f"tests on {self.audits.where()}")
        self._tell_screens("audit_changed", run_id)

    def audit_form(self, run_id: str) -> None:
        """The audit form for ``run_id``; filled in with the interrupted audit's options, if any."""
        from testjack_tui.app.screens.forms import AuditForm

        if self.audits.running(run_id):
            self.notify(f"{run_id} is already being audited (c cancels it)", severity="warning")
            return
        item = self.interrupted.get(run_id)
        if item is not None and item.elsewhere:
            self.notify(f"the audit of {run_id} is running in another process ({item.elsewhere}): a second one "
                        "would redo its steps; cancel it there first", severity="warning")
            return
        note = ""
        if item is not None:
            at = f" at {item.percent}%" if item.percent is not None else ""
            note = (f"Resumes the audit interrupted{at}, with its options: finished steps are not run again.")

        def chosen(options) -> None:
            if options is not None:
                self.start_run_audit(run_id, options)

        self.push_screen(AuditForm(run_id, item.options if item else None, note), chosen)

    def cancel_run_audit(self, run_id: str) -> None:
        if self.audits.cancel(run_id):
            self.notify(f"cancelling the audit of {run_id}; finished steps stay in the store")
        else:
            self.notify(f"no audit of {run_id} is running", severity="warning")
        self._tell_screens("audit_changed", run_id)

    def on_audit_progress(self, message: AuditProgress) -> None:
        job = self.audits.jobs.get(message.run_id)
        finished_a_step = False
        if job is not None:
            before = job.progress.done if job.progress is not None else -1
            job.progress = message.progress
            finished_a_step = message.progress.done != before
        self._tell_screens("audit_changed", message.run_id)
        if finished_a_step:
            # Each finished step may have refuted trials: let the screens re-read the store, so
            # counts and verdicts grow while the audit runs (the reads happen in workers).
            self._tell_screens("store_changed", message.run_id)

    def on_author_checked(self, message: AuthorChecked) -> None:
        """The LLM check's line as the audit starts; or the audit does not start, and the console says why."""
        run_id = message.run_id
        if message.works:
            self.notify(f"{run_id}: {message.line}", title="Audit")
            return
        job = self.audits.forget(run_id)
        if job is not None and job.resumes is not None:
            self.interrupted[run_id] = job.resumes  # still there to resume once the author works
        self.notify(f"the audit of {run_id} did not start: {message.line}", title="Audit not started",
                    severity="error", timeout=30)
        self._tell_screens("audit_changed", run_id)

    def on_audit_finished(self, message: AuditFinished) -> None:
        run_id = message.run_id
        job = self.audits.jobs.get(run_id)
        if job is not None:
            job.status = message.status
        if message.status == "failed":
            self.notify(f"the audit of {run_id} failed: {message.error}", severity="error", timeout=20)
        elif message.status == "cancelled":
            at = f" at {100 * job.fraction:.0f}%" if job is not None else ""
            self.notify(f"the audit of {run_id} stopped{at}; finished steps stay in the store, a resumes it",
                        title="Audit cancelled", severity="warning", timeout=15)
            if job is not None:
                self.interrupted[run_id] = Interrupted(run_id, "cancelled", "", job.options,
                                                       int(100 * job.fraction), job.progress.phase if job.progress else "")
        else:
            def announce(summary) -> None:
                text = outcome_line(summary)
                if job is not None:
                    job.summary = text
                self.notify(f"{run_id}: {text}", title="Audit finished", timeout=30)
                self._tell_screens("audit_changed", run_id)

            load(self, f"summary {run_id}", lambda store: store.summary(run_id), announce)
        self._tell_screens("audit_changed", run_id)
        self._tell_screens("store_changed", run_id)
