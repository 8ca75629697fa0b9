"""Messages that background workers post to the UI thread (widgets are never touched from threads)."""

from __future__ import annotations

from typing import Any, Callable

from textual.message import Message

from testjack_tui.audit import Progress


class Loaded(Message):
    """A thread worker finished reading the store; ``apply(result)`` runs on the UI thread."""

    def __init__(self, apply: Callable[[Any], None], result: Any) -> None:
        super().__init__()
        self.apply = apply
        self.result = result


class LoadFailed(Message):
    def __init__(self, what: str, error: BaseException) -> None:
        super().__init__()
        self.what = what
        self.error = error


class AuditProgress(Message):
    """Posted from an audit's worker thread at each step."""

    def __init__(self, run_id: str, progress: Progress) -> None:
        super().__init__()
        self.run_id = run_id
        self.progress = progress


class AuditFinished(Message):
    """An audit ended: ``status`` is "done", "cancelled" or "failed" (with ``error``)."""

    def __init__(self, run_id: str, status: str, error: str = "") -> None:
        super().__init__()
        self.run_id = run_id
        self.status = status
        self.error = error


class AuthorChecked(Message):
    """Posted from an audit's worker thread once the LLM author's preflight (or its settings) answered:
    ``works`` False means the audit did not start and recorded nothing; ``line`` says why, or what works."""

    def __init__(self, run_id: str, works: bool, line: str) -> None:
        super().__init__()
        self.run_id = run_id
        self.works = works
        self.line = line


class StoreChanged(Message):
    """Something wrote to the store (a ruling, a review mark, a witness): screens re-read it."""

    def __init__(self, run_id: str) -> None:
        super().__init__()
        self.run_id = run_id
