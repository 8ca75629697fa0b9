"""Which image a world runs in, and building a task's own image from its Dockerfile.

A request names its image in ``ExecRequest.image``: an image name (``python:3.11``), nothing (the
backend's base image) or a *build spec*, ``build:<Dockerfile>#<task>``, which means "the image
built from this Dockerfile with the task's snapshot (R, before any patch) as build context"; the
task's name is there for messages only. Harbor tasks use the spec: their environment is
``environment/Dockerfile`` and its directory. The spec is a plain string, so requests stay pure and
serialisable; the docker backend turns it into an image here.

Building (``EnvironmentImages.resolve``):

- the tag is ``testjack/env:<12 hex>``, a digest of the context (``snapshot_digest``) and of the
  Dockerfile as built (after the base-image map), so a second audit, or a second world of the
  same task, finds the image and builds nothing;
- a lock per tag makes two workers that want the same image wait for one build, and a build
  that failed is not tried again by the same process (every world of the task gets its message);
- images are never pulled (``pull=False``; this project's machines reach no registry). Before a
  build, every ``FROM`` image must be on the engine; when one is not, the message names it and
  says how to provide it or substitute it.

The base-image map substitutes local images for missing ``FROM`` images without editing tasks:
``TESTJACK_BASE_IMAGE_MAP="python:3.11-slim=testjack/base:bookworm,ubuntu:24.04=my/ubuntu"``.
It rewrites the ``FROM`` lines of the Dockerfile sent to the engine, never the task's file, and
the mapped Dockerfile has a tag of its own. An environment variable rather than a field of the
request: it says what this machine has, not what the task is, so it stays out of the request's
key (results cached under another map are reused).

Where a task image's world goes (``task_layout``): Harbor writes its tasks for the image's
``WORKDIR`` (the agent's directory, ``/app`` when the Dockerfile sets none), with the task's
``tests/`` at ``/tests`` and the oracle's ``solution/`` at ``/solution``, run as the image's user.
The layout is read from the built image's configuration, so it follows the Dockerfile.

The Dockerfile is parsed only for its ``FROM`` lines (line continuations, ``--platform``, ``AS``
stage names, ``ARG`` defaults declared before the first ``FROM``); the docker SDK does the rest
(context tar, ``.dockerignore``, the build itself).
"""

from __future__ import annotations

import hashlib
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from testjack_tui.environment import Variables, read

BUILD_PREFIX = "build:"
READY_PREFIX = "task-image:"  # a ready-made image that gets the task layout too (Harbor's docker_image)
ENV_REPOSITORY = "testjack/env"
MAP_VARIABLE = "TESTJACK_BASE_IMAGE_MAP"
LOG_TAIL = 15  # build log lines shown when a build fails
DEFAULT_WORKDIR = "/app"  # Harbor's convention when the Dockerfile sets no WORKDIR
# World subdirectories Harbor's verifier also finds at an absolute path (its oracle and its tests)
HARBOR_COPIES = (("tests", "/tests"), ("solution", "/solution"))


class ImageProblem(Exception):
    """The world's image cannot be had; the message says why and what to do."""


def build_spec(dockerfile: str = "Dockerfile", task: str = "") -> str:
    """The ``ExecRequest.image`` value for "build ``dockerfile`` of the snapshot" (of ``task``)."""
    return BUILD_PREFIX + dockerfile + (f"#{task}" if task else "")


def dockerfile_of(image: str | None) -> str | None:
    """The Dockerfile a build spec names (relative to the snapshot); None for an image name."""
    if image and image.startswith(BUILD_PREFIX):
        return image[len(BUILD_PREFIX):].split("#", 1)[0] or "Dockerfile"
    return None


def ready_spec(image: str, task: str = "") -> str:
    """The ``ExecRequest.image`` value for "run in the ready-made ``image``, laid out as a task image"."""
    return READY_PREFIX + image + (f"#{task}" if task else "")


def ready_image_of(image: str | None) -> str | None:
    """The image a ready spec names; None otherwise."""
    if image and image.startswith(READY_PREFIX):
        return image[len(READY_PREFIX):].split("#", 1)[0] or None
    return None


def task_of(image: str | None) -> str:
    """The task a build or ready spec names, for messages ("" when none)."""
    named = dockerfile_of(image) or ready_image_of(image)
    return image.split("#", 1)[1] if image and named and "#" in image else ""


def needs_docker(image: str | None) -> bool:
    """Whether a world in ``image`` can only run on the docker backend, in the task layout (a
    Harbor task's image: built from its Dockerfile, or ready-made)."""
    return dockerfile_of(image) is not None or ready_image_of(image) is not None


@dataclass(frozen=True)
class TaskLayout:
    """Where a task image's world sits and who runs its commands."""

    workdir: str  # the world, and the commands' working directory
    copies: tuple[tuple[str, str], ...]  # (world subdirectory, absolute path it is copied to)
    user: str  # the image's USER ("" = root)
    writable_root: bool = True  # Harbor's containers write outside the world (/tests, /solution)


def task_layout(client, tag: str) -> TaskLayout:
    """The layout of the built image ``tag``: its ``WORKDIR`` (else ``/app``) and ``USER``."""
    config = client.images.get(tag).attrs.get("Config") or {}
    workdir = (config.get("WorkingDir") or "").rstrip("/") or DEFAULT_WORKDIR
    return TaskLayout(workdir=workdir, copies=HARBOR_COPIES, user=config.get("User") or "")


def base_image_map(text: str | None = None) -> dict[str, str]:
    """``OLD=NEW`` pairs separated by commas or white space; ``text`` defaults to the variable."""
    text = read(Variables).base_image_map if text is None else text
    mapping: dict[str, str] = {}
    for item in re.split(r"[,\s]+", text.strip()):
        if not item:
            continue
        old, sep, new = item.partition("=")
        if not sep or not old or not new:
            raise ImageProblem(f"{MAP_VARIABLE}: {item!r} is not OLD=NEW "
                               f"(for example python:3.11-slim=testjack/base:bookworm)")
        mapping[old] = new
    return mapping


# -- the Dockerfile's FROM lines ---------------------------------------------------------------

_FROM = re.compile(r"^(\s*FROM\s+)((?:--\S+\s+)*)(\S+)(.*)$", re.IGNORECASE)
_ARG = re.compile(r"^\s*ARG\s+([A-Za-z_]\w*)=(\S+)", re.IGNORECASE)
_VAR = re.compile(r"\$\{?([A-Za-z_]\w*)\}?")


def _logical_lines(text: str) -> list[str]:
    """Lines with backslash continuations joined (FROM is seldom split, but may be)."""
    out: list[str] = []
    pending = ""
    for line in text.splitlines():
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending)
    return out


def from_images(dockerfile_text: str) -> list[str]:
    """The images the Dockerfile builds on, in order: no stage names, no ``scratch``."""
    args: dict[str, str] = {}
    stages: set[str] = set()
    images: list[str] = []
    seen_from = False
    for line in _logical_lines(dockerfile_text):
        arg = _ARG.match(line)
        if arg and not seen_from:
            args[arg.group(1)] = arg.group(2).strip("\"'")
            continue
        m = _FROM.match(line)
        if not m:
            continue
        seen_from = True
        image = _VAR.sub(lambda v: args.get(v.group(1), v.group(0)), m.group(3))
        rest = m.group(4).split()
        if image.lower() != "scratch" and image not in stages and image not in images:
            images.append(image)
        if len(rest) >= 2 and rest[0].lower() == "as":
            stages.add(rest[1])
    return images


def rewrite_from(dockerfile_text: str, mapping: dict[str, str]) -> str:
    """The Dockerfile with every mapped ``FROM`` image replaced (other lines as they were)."""
    if not mapping:
        return dockerfile_text
    out = []
    for line in dockerfile_text.splitlines(keepends=True):
        m = _FROM.match(line.rstrip("\r\n"))
        if m and m.group(3) in mapping:
            ending = line[len(line.rstrip("\r\n")):]
            line = m.group(1) + m.group(2) + mapping[m.group(3)] + m.group(4) + ending
        out.append(line)
    return "".join(out)


def _context_digest(root: Path) -> str:
    """Content hash of the build context, for requests that carry no snapshot digest."""
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def env_tag(context_digest: str, dockerfile_text: str) -> str:
    """``testjack/env:<digest12>`` for this context and this (mapped) Dockerfile."""
    digest = hashlib.sha256(f"{context_digest}\0{dockerfile_text}".encode()).hexdigest()
    return f"{ENV_REPOSITORY}:{digest[:12]}"


def missing_image_message(image: str, where: str, mapped_from: str | None = None) -> str:
    shown = f"{image} (mapped from {mapped_from})" if mapped_from else image
    return (
        f"{where} builds FROM {shown}, which is not on this Docker engine, and images are never "
        f"pulled. Provide it: `docker pull {image}` where a registry is reachable (or "
        f"`docker load` a saved copy), or `docker tag LOCAL-IMAGE {image}`; or substitute a "
        f"local image: {MAP_VARIABLE}=\"{mapped_from or image}=testjack/base:bookworm\"")


# -- building ----------------------------------------------------------------------------------


class EnvironmentImages:
    """Resolves a request's image to one the engine has, building task images once per tag."""

    def __init__(self) -> None:
        self._locks: dict[str, threading.Lock] = {}
        self._failed: dict[str, str] = {}  # tag -> the message of its failed build
        self._guard = threading.Lock()

    def _lock(self, tag: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(tag, threading.Lock())

    def resolve(self, client, snapshot: str, snapshot_digest: str, image: str | None,
                default: str) -> str:
        """The image name to create the container from; builds a build spec's image if needed.

        Raises ImageProblem (missing FROM image, failed build, bad map) with a message for the
        user that names the task and its Dockerfile.
        """
        import docker.errors

        ready = ready_image_of(image)
        if ready is not None:  # ready-made: never built, never pulled; the map may stand in for it
            mapping = base_image_map()
            name = mapping.get(ready, ready)
            try:
                client.images.get(name)
            except docker.errors.ImageNotFound:
                task = task_of(image)
                where = f"task {task}: its environment" if task else "the task's environment"
                raise ImageProblem(missing_image_message(name, where, ready if name != ready else None)
                                   .replace(" builds FROM ", " runs in ")) from None
            return name
        dockerfile = dockerfile_of(image)
        if dockerfile is None:
            return image or default

        context = Path(snapshot)
        path = context / dockerfile
        task = task_of(image)
        where = f"task {task}: the {dockerfile} of its environment" if task else f"{path}"
        try:
            original = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ImageProblem(f"{where} cannot be read ({exc})") from exc
        mapping = base_image_map()
        text = rewrite_from(original, mapping)
        tag = env_tag(snapshot_digest or _context_digest(context), text)
        with self._lock(tag):
            if tag in self._failed:
                raise ImageProblem(self._failed[tag])
            try:
                client.images.get(tag)
                return tag  # built before, by this audit or an earlier one
            except docker.errors.ImageNotFound:
                pass
            try:
                self._check_bases(client, text, mapping, where)
                self._build(client, context, text, tag, where)
            except ImageProblem as exc:
                self._failed[tag] = str(exc)
                raise
        return tag

    @staticmethod
    def _check_bases(client, dockerfile_text: str, mapping: dict[str, str], where: str) -> None:
        """Every FROM image is on the engine (a build would otherwise try to pull it)."""
        import docker.errors

        back = {new: old for old, new in mapping.items()}
        for base in from_images(dockerfile_text):
            try:
                client.images.get(base)
            except docker.errors.ImageNotFound:
                raise ImageProblem(missing_image_message(base, where, back.get(base))) from None

    @staticmethod
    def _build(client, context: Path, dockerfile_text: str, tag: str, where: str) -> None:
        import docker.errors

        # The Dockerfile as built sits outside the context: the SDK adds it to the context tar
        # under a name of its own, and the task's own file stays as it was.
        with tempfile.TemporaryDirectory(prefix="testjack-dockerfile-") as tmp:
            built = Path(tmp) / "Dockerfile"
            built.write_text(dockerfile_text, encoding="utf-8")
            try:
                client.images.build(path=str(context), dockerfile=str(built), tag=tag,
                                    pull=False, rm=True, forcerm=True,
                                    labels={"org.testjack.env": "1"})
            except docker.errors.BuildError as exc:
                raise ImageProblem(f"building {where} failed: {exc.msg}"
                                   + _log_tail(exc.build_log)) from None
            except docker.errors.APIError as exc:
                raise ImageProblem(f"building {where} failed: {exc.explanation or exc}") from None


def _log_tail(build_log) -> str:
    lines: list[str] = []
    for chunk in build_log or ():
        text = (chunk.get("stream") or chunk.get("error") or "") if isinstance(chunk, dict) else ""
        lines += [line for line in str(text).splitlines() if line.strip()]
    tail = lines[-LOG_TAIL:]
    return ("\nlast lines of the build log:\n  " + "\n  ".join(tail)) if tail else ""
