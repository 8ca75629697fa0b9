"""Execution: materialise a world, apply patches, run tests, parse results, collect coverage.

``run_request`` is the one entry point the engine needs; ``Executor`` runs many in parallel.
This package knows nothing of the store or the audit.
"""

from __future__ import annotations

# run_request has a module of its own, so the executor can use it without importing this package back.
from .backends import run_request
from .request import ExecRequest, ExecResult


def __getattr__(name: str):
    # lazy, so importing the package does not import the executor's thread pool machinery
    if name == "Executor":
        from .executor import Executor

        return Executor
    raise AttributeError(name)


__all__ = ["ExecRequest", "ExecResult", "Executor", "run_request"]
