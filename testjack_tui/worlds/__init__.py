"""Execution: materialise a world, apply patches, run tests, parse results, collect coverage.

``run_request`` is the one entry point the engine needs; ``Executor`` runs many in parallel.
This package knows nothing of the store or the audit.
"""

from __future__ import annotations

from .request import STATUS_ERROR, ExecRequest, ExecResult


def run_request(request: ExecRequest) -> ExecResult:
    """Run ``request`` on the backend it names ("local" or "docker")."""
    if request.backend == "local":
        from .local import LocalBackend

        return LocalBackend().run(request)
    if request.backend == "docker":
        try:
            from .docker_backend import DockerBackend
        except ImportError as exc:
            return ExecResult(status=STATUS_ERROR,
                              message=f"the docker backend is not available here ({exc})")
        return DockerBackend().run(request)
    return ExecResult(status=STATUS_ERROR, message=f"unknown backend {request.backend!r}")


def __getattr__(name: str):
    # lazy, so importing the package does not import the executor's thread pool machinery
    if name == "Executor":
        from .executor import Executor

        return Executor
    raise AttributeError(name)


__all__ = ["ExecRequest", "ExecResult", "Executor", "run_request"]
