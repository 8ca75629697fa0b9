"""The report pipe (``report_pipe``) into a container: a FIFO on the host that the runner reads.

A container cannot inherit a pipe from the runner, and the exec's own stdin or stdout will not do:
the trial's code writes and reads those too. So the runner makes a FIFO in a directory of its own
on the host, next to the plugin, and the directory is bind-mounted read-only into the container
(``world_volume.Places.channel``). The plugin, loaded by pytest before the world's conftest.py
and test modules, opens the FIFO for writing (a FIFO opens for writing on a read-only mount) and
writes its lines; a thread of the runner reads them as they come, so what was written is on the
host before the trial's exit hooks run, and nothing inside can take it back. The directory is
read-only, so the trial cannot rewrite the plugin either.

Nobody in the container can read the FIFO and so swallow lines before the runner sees them: the
runner opens its read end first, then sets the mode to write-only for everyone (``0222``); the
container's processes have no capabilities, root included, so the mode holds for them. The trial
can write lines of its own, as it can to the local backend's pipe: ``report_pipe.confirm`` counts
any failure it sees, so an extra line cannot hide one.

The runner also holds a write end itself, so the FIFO never reads as closed when the plugin's
process ends (no end-of-file to spin on, and a second pytest process of the same command is read
too); ``record`` stops the reader after the command has ended and drains what is left. A flood is
cut at ``limit`` bytes and the rest dropped while the reader keeps draining, so no writer blocks.
"""

from __future__ import annotations

import os
import selectors
import threading
from pathlib import Path

from . import report_pipe
from .container_io import Bounded

_CHUNK = 65536
_LAST_READS = 64  # 4 MiB: more than a pipe's buffer can hold (1 MiB at most, unprivileged)


class FifoChannel:
    """A FIFO and the report plugin in ``directory`` (made here), read while a command runs."""

    def __init__(self, directory: Path, seen_at: str, limit: int) -> None:
        """``seen_at``: where ``directory`` is mounted in the container."""
        self.directory = directory
        directory.mkdir(mode=0o755)
        directory.chmod(0o755)  # whatever the umask: the container's user must reach the plugin
        fifo_name = "f"
        fifo = directory / fifo_name
        os.mkfifo(fifo, 0o600)
        self._read = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        self._hold = os.open(fifo, os.O_WRONLY)  # never end-of-file while the runner listens
        fifo.chmod(0o222)  # the open ends are ours; inside, anyone may write and nobody read
        self.plugin = report_pipe.install(directory, f"{seen_at}/{fifo_name}")
        (directory / f"{self.plugin}.py").chmod(0o644)
        self._said = Bounded(limit)
        self._wake_read, self._wake = os.pipe()
        self._reader = threading.Thread(target=self._pump, daemon=True, name="testjack-report-fifo")
        self._reader.start()

    def _pump(self) -> None:
        with selectors.DefaultSelector() as sel:
            sel.register(self._read, selectors.EVENT_READ)
            sel.register(self._wake_read, selectors.EVENT_READ)
            while True:
                ready = {key.fd for key, _ in sel.select()}
                if self._read in ready:
                    self._take()
                if self._wake_read in ready:
                    # what the buffer still holds; bounded, as a process that escaped the
                    # command may go on writing for as long as the container lives
                    for _ in range(_LAST_READS):
                        if not self._take():
                            break
                    return

    def _take(self) -> bool:
        """One read of the FIFO into the record; False when it had nothing."""
        try:
            data = os.read(self._read, _CHUNK)
        except BlockingIOError:
            return False
        self._said.add(data)
        return bool(data)

    def record(self) -> str:
        """Everything the plugin (and anything else) wrote, once the command has ended."""
        os.write(self._wake, b"x")
        self._reader.join()
        return self._said.text()

    def close(self) -> None:
        if self._reader.is_alive():
            self.record()
        for fd in (self._read, self._hold, self._wake_read, self._wake):
            os.close(fd)

    def __enter__(self) -> "FifoChannel":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
