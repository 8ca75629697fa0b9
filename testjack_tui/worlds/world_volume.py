"""Where a container's writable world lives: a size-bounded tmpfs at a path that names nothing.

Every container of the docker backend gets its own root directory, ``/r<12 hex digits>`` drawn per
run: the world (``<root>/world``, the working directory and ``PYTHONPATH`` of the standard
layout), the output directory and the read-only requirements sit below it, so no path the command
is given announces TestJack, and no trial can know the path in advance (issue 36).

The root is an anonymous volume of the ``local`` driver with ``type=tmpfs``: a file system of at
most ``disk_mb`` MiB, so a trial that writes gigabytes gets "No space left on device" instead of
filling the host's disk. tmpfs lives in memory: its pages are the host's RAM (the world itself,
copied in by the engine, counts there too), and what the test's processes write is also charged to
the container's memory limit, so a run can write at most the smaller of the two. The bound is a
setting of the machine, not of the request (a run that fits gives the same result under any
bound): ``$TESTJACK_DOCKER_DISK_MB``, else ``environment.DEFAULT_DISK_MB`` (4096).

A tmpfs volume exists only while something has it mounted: files copied in before the container
starts are lost, so the backend starts the container first and copies the world in afterwards.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from docker.types import DriverConfig, Mount

from testjack_tui.environment import DISK_VARIABLE, BadVariable, DockerWorlds, read

__all__ = ["DISK_VARIABLE", "DiskSettingInvalid", "Places", "disk_mb", "places", "volume"]


class DiskSettingInvalid(ValueError):
    """``$TESTJACK_DOCKER_DISK_MB`` is not a whole number of MiB we can use."""


def disk_mb() -> int:
    """The bound in MiB: the variable, else the default; raises DiskSettingInvalid."""
    try:
        return read(DockerWorlds).disk_mb
    except BadVariable as exc:
        raise DiskSettingInvalid(str(exc)) from None


@dataclass(frozen=True)
class Places:
    """The paths one container's command sees, all under ``root``."""

    root: str

    @property
    def world(self) -> str:
        return f"{self.root}/world"

    @property
    def out(self) -> str:
        return f"{self.root}/out"

    @property
    def deps(self) -> str:
        return f"{self.root}/deps"

    @property
    def channel(self) -> str:
        return f"{self.root}/channel"


def places() -> Places:
    return Places(root=f"/r{secrets.token_hex(6)}")


def volume(at: str, size_mb: int) -> Mount:
    """An anonymous tmpfs volume of ``size_mb`` MiB at ``at``, owned by root, mode 755 (the world
    and the output directory in it belong to the test user)."""
    options = {"type": "tmpfs", "device": "tmpfs", "o": f"size={size_mb}m,mode=0755"}
    return Mount(target=at, source=None, type="volume", driver_config=DriverConfig("local", options))
