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


def missing_images(images: dict[str, str]) -> str | None:
    """None when the engine has every ready-made image ``images`` names (task id -> the task's
    ``Environment.image``); otherwise a message naming the missing images and their tasks.

    Asked before an audit: a task image (SWE-bench Pro's, Harbor's ``docker_image``) is never
    pulled, so an audit without it would only fail every world of its tasks."""
    import docker
    import docker.errors

    from .images import ImageProblem, base_image_map, ready_image_of

    try:
        mapping = base_image_map()
    except ImageProblem as exc:  # a map that cannot be read is named now, not in every world
        return str(exc)
    wanted: dict[str, list[str]] = {}
    for task, spec in images.items():
        ready = ready_image_of(spec)
        if ready:
            wanted.setdefault(mapping.get(ready, ready), []).append(task)
    if not wanted:
        return None
    client = docker.from_env(timeout=30)
    try:
        missing = []
        for image, tasks in wanted.items():
            try:
                client.images.get(image)
            except docker.errors.ImageNotFound:
                missing.append(f"{image} (task {', '.join(tasks[:3])}{' and more' if len(tasks) > 3 else ''})")
    finally:
        client.close()
    if not missing:
        return None
    shown = "; ".join(missing[:5]) + (f"; and {len(missing) - 5} more" if len(missing) > 5 else "")
    return (f"{len(missing)} task image(s) are not on this Docker engine, and images are never pulled: "
            f"{shown}. Provide each (`docker load` a saved copy, or `docker pull` it where a registry "
            f"is reachable), or map it to a local image with TESTJACK_BASE_IMAGE_MAP=\"IMAGE=LOCAL\"")
