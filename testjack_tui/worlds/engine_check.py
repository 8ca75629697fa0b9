"""Is a Docker engine reachable? One question, asked before an audit that needs one."""

from __future__ import annotations

# Both messages end with this advice (each closes the parenthesis itself).
START_HINT = ("Start one (for example: sudo bash .ci/docker.sh, which installs docker.io, starts dockerd "
              "and builds the base image")


def docker_problem(only_docker: list[str] = ()) -> str | None:
    """None when an engine answers; otherwise a message that says how to get one.

    ``only_docker``: tasks that cannot run anywhere else (Harbor tasks build their own image), so
    the message does not suggest the local backend for them.
    """
    try:
        import docker

        client = docker.from_env(timeout=5)
        client.ping()
        client.close()
        return None
    except Exception as exc:  # the SDK raises several types for "no engine"
        if only_docker:
            named = ", ".join(list(only_docker)[:3]) + (f" and {len(only_docker) - 3} more" if len(only_docker) > 3 else "")
            return (
                f"task(s) {named} build their own container image (Harbor tasks) and run on the docker "
                f"backend only, and no Docker engine answers ({type(exc).__name__}). {START_HINT})."
            )
        return (
            f"the docker backend needs a running Docker engine, and none answers ({type(exc).__name__}). "
            f"{START_HINT}), or use --backend local for runs you trust."
        )
