"""What crosses a container's wall: the world going in as tars owned by the test user, files and the
output directory coming back (bounded in size), and the exec streams kept to a bound. The docker
backend (``docker_backend``) drives these.
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
import time
from pathlib import Path

import docker.errors

MAX_ARCHIVE = 256 * 1024 * 1024  # largest output directory we copy back (JUnit XML + coverage)


class Bounded:
    """The first ``limit`` bytes of a stream; the rest is counted and dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.truncated = False

    def add(self, chunk: bytes | None) -> None:
        if not chunk:
            return
        room = self.limit - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        if len(chunk) > room:
            self.truncated = True

    def text(self, keep: int | None = None) -> str:
        """The kept bytes as text, only the first ``keep`` of them when given."""
        return bytes(self.data[:keep]).decode("utf-8", errors="replace")

    def cut_at(self, keep: int) -> bool:
        """Whether bytes were dropped, counting those kept beyond ``keep``."""
        return self.truncated or len(self.data) > keep


def tar_of(directory: Path, arcname: str, uid: int, gid: int) -> bytes:
    """``directory`` as a tar whose entries belong to ``uid:gid`` and are writable by them."""

    def owned(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid, info.gid, info.uname, info.gname = uid, gid, "", ""
        if info.isdir():
            info.mode = (info.mode | 0o755) & 0o777
        elif info.isfile():
            info.mode = (info.mode | 0o644) & 0o777  # pristine files are read-only on the host
        return info

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        tar.add(directory, arcname=arcname, filter=owned)
    return buf.getvalue()


def empty_dir_tar(name: str, uid: int, gid: int) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.type, info.mode, info.uid, info.gid = tarfile.DIRTYPE, 0o755, uid, gid
        info.mtime = int(time.time())
        tar.addfile(info)
    return buf.getvalue()


def files_tar(files: dict[str, str], uid: int, gid: int) -> bytes:
    """Text files (path -> content, folders made as needed) as a tar owned by ``uid:gid``."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        made: set[str] = set()
        for rel, text in sorted(files.items()):
            parts = rel.split("/")
            for depth in range(1, len(parts)):
                folder = "/".join(parts[:depth])
                if folder not in made:
                    made.add(folder)
                    info = tarfile.TarInfo(folder)
                    info.type, info.mode, info.uid, info.gid = tarfile.DIRTYPE, 0o755, uid, gid
                    tar.addfile(info)
            data = text.encode()
            info = tarfile.TarInfo(rel)
            info.size, info.mode, info.uid, info.gid = len(data), 0o644, uid, gid
            info.mtime = int(time.time())
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def user_ids(passwd: str, user: str) -> tuple[int, int] | None:
    """The uid and gid of ``user`` (a name or ``uid``, optionally ``:group``) in ``passwd``."""
    user, _, group = user.partition(":")
    if user.isdigit():
        return int(user), int(group) if group.isdigit() else int(user)
    for line in passwd.splitlines():
        parts = line.split(":")
        if len(parts) >= 4 and parts[0] == user:
            try:
                return int(parts[2]), int(parts[3])
            except ValueError:
                return None
    return None


def read_text(container, path: str) -> str:
    """The text of one file in the container; "" when there is none (an image without /etc/passwd)."""
    buf = io.BytesIO()
    try:
        stream, _ = container.get_archive(path)
        for chunk in stream:
            buf.write(chunk)
        buf.seek(0)
        with tarfile.open(fileobj=buf) as tar:
            member = tar.next()
            return tar.extractfile(member).read().decode() if member and member.isfile() else ""
    except Exception:
        return ""


def read_archive(container, path: str, dest: Path) -> None:
    """Copy regular files of ``path`` in the container into ``dest`` (flat; bounded in size)."""
    try:
        stream, _ = container.get_archive(path)
    except docker.errors.NotFound:
        return
    with tempfile.TemporaryFile() as spool:
        size = 0
        for chunk in stream:
            size += len(chunk)
            if size > MAX_ARCHIVE:  # a test that writes gigabytes into out/: keep nothing
                return
            spool.write(chunk)
        spool.seek(0)
        with tarfile.open(fileobj=spool, mode="r") as tar:
            for member in tar:
                if not member.isfile():  # no links, devices or directories from the container
                    continue
                src = tar.extractfile(member)
                if src is not None:
                    with open(dest / os.path.basename(member.name), "wb") as fh:
                        shutil.copyfileobj(src, fh)
