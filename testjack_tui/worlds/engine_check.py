"""Is a Docker engine reachable? One question, asked before an audit that needs one."""

from __future__ import annotations


def docker_problem() -> str | None:
    """None when an engine answers; otherwise a message that says how to get one."""
    try:
        import docker

        client = docker.from_env(timeout=5)
        client.ping()
        client.close()
        return None
    except Exception as exc:  # the SDK raises several types for "no engine"
        return (
            f"the docker backend needs a running Docker engine, and none answers ({type(exc).__name__}). "
            "Start one (for example: sudo bash .ci/docker.sh, which installs docker.io, starts dockerd and "
            "builds the base image), or use --backend local for runs you trust."
        )
