"""Execution: materialise a world, apply patches, run tests, parse results, collect coverage.

``run_request`` is the one entry point the engine needs; ``Executor`` runs many in parallel.
This package knows nothing of the store or the audit.
"""

from __future__ import annotations

from .request import STATUS_ERROR, STATUS_SETUP_FAILED, ExecRequest, ExecResult


def run_request(request: ExecRequest) -> ExecResult:
    """Run ``request`` on the backend it names ("local" or "docker")."""
    if request.backend == "local":
        from .images import needs_docker, task_of
        from .local import LocalBackend

        if needs_docker(request.image):  # a Harbor task: its world is an image built for it
            return ExecResult(status=STATUS_SETUP_FAILED, message=(
                f"task {task_of(request.image) or request.label}: Harbor tasks need the docker "
                "backend (the environment is a Dockerfile, which only the docker backend builds "
                "and runs); audit with --backend docker and a running Docker engine"))

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
