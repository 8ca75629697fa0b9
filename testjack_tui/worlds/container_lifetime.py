"""No container outlives the audit that started it.

A killed audit (SIGKILL, an OOM, a lost Ray node) runs no ``finally``, so the docker backend's
own clean-up never comes. Two things cover that:

- a container's first process sleeps for the request's time limit plus a margin, not forever:
  when it ends, the container stops and every process the test started goes with it, however
  long the test's own loop would have run;
- each container is labelled with its owner (host and pid); the first docker request of a process
  removes the containers, stopped or not, whose owner on this host is no longer alive.

A pid reused by another process keeps its containers until the next owner check (a leak, never
the removal of a live audit's container).
"""

from __future__ import annotations

import os
import socket
import threading

import docker.errors

OWNER_LABEL = "org.testjack.owner"
_MARGIN_S = 5  # past the request's own deadline and kill grace, when the backend has given up
_reaped = threading.Event()
_reap_lock = threading.Lock()


def owner() -> str:
    """This process, as the owner label names it."""
    return f"{socket.gethostname()}:{os.getpid()}"


def lifetime_s(timeout: float, kill_grace: float) -> int:
    """How long a request's container may live at most: its first process sleeps this long."""
    return int(timeout + kill_grace + _MARGIN_S) + 1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def orphans(client) -> list:
    """Containers on the engine whose owner on this host has died."""
    host = socket.gethostname()
    found = []
    for container in client.containers.list(all=True, filters={"label": OWNER_LABEL}):
        owner_host, _, pid = container.labels.get(OWNER_LABEL, "").rpartition(":")
        if owner_host == host and pid.isdigit() and not _alive(int(pid)):
            found.append(container)
    return found


def reap_orphans(client, *, force: bool = False) -> int:
    """Remove the orphans (once per process unless ``force``); how many went."""
    with _reap_lock:
        if _reaped.is_set() and not force:
            return 0
        _reaped.set()
    removed = 0
    for container in orphans(client):
        try:
            container.remove(force=True, v=True)
            removed += 1
        except docker.errors.APIError:  # gone meanwhile, or being removed by another process
            pass
    return removed
