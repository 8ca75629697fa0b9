"""The audit engine: the official evaluator, witness validation and sharing, verdicts, modes."""

from testjack_tui.audit.engine import Audit, AuditOptions, Progress, run_audit

__all__ = ["Audit", "AuditOptions", "Progress", "run_audit"]
