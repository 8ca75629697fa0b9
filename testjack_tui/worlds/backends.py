"""Which backend runs a request: ``run_request``, the one entry point the engine needs."""

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
