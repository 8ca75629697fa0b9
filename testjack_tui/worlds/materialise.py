"""Make a fresh world directory from a task snapshot, cheaply, without ever changing the snapshot.

How (measured in docs/readme/worlds.md): ext4 here has no copy-on-write clones, so a world is a
tree of *hard links*. Links are never made to the caller's snapshot directory itself (that would
force its files read-only, in the user's own checkout). Instead the snapshot is copied once into a
*pristine* tree under the cache (``<cache>/snapshots/<digest>``) whose files belong to an unused
uid (``PRISTINE_OWNER``)
and have no write bit, and every world links to that. Then:

- every file a patch touches, and every extra file, gets its own inode first (``own_copy``);
- the local backend runs tests as root *without capabilities* (see ``limits``): such a process is
  neither the owner of a pristine file nor allowed to override its mode, so it can neither write
  through a link nor ``chmod`` one; it can still unlink and recreate any file of its own world,
  whose directories are fresh.

When we are not root (a pristine tree cannot be handed to another user), when the snapshot digest
is unknown, or when the world sits on another file system, files are copied instead.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import stat
import uuid
from pathlib import Path

from testjack_tui.environment import cache_dir
from testjack_tui.paths import path_inside

from .cache import mark_used
from .patching import PatchFailed, apply_patch
from .request import ExecRequest

__all__ = ["PatchFailed", "materialise_world", "own_copy", "pristine_tree", "default_cache_dir"]


def default_cache_dir() -> Path:
    """$TESTJACK_CACHE, else the user's cache folder (``environment.cache_dir``)."""
    return cache_dir()


# Owner of pristine trees: a uid no account or container image uses. Not ``nobody`` (65534):
# containers often run as nobody, and an owner may chmod its files and then write through a link.
PRISTINE_OWNER = (1_999_999, 1_999_999)


def _pristine_owner() -> tuple[int, int]:
    return PRISTINE_OWNER


def links_are_safe() -> bool:
    """Hard links are used only when the pristine tree can be given to another user (root)."""
    return os.geteuid() == 0


def pristine_tree(snapshot: Path, digest: str, cache_dir: Path) -> Path:
    """The read-only copy of ``snapshot`` worlds link to; built once per digest, under a lock."""
    base = cache_dir / "snapshots"
    base.mkdir(parents=True, exist_ok=True)
    # owned by that uid too: a capability-less root, not the owner, cannot rename trees away
    if base.stat().st_uid != _pristine_owner()[0]:
        os.chown(base, *_pristine_owner())
    tree = base / digest
    if mark_used(base / f"{digest}.ready"):  # False when never built or pruned just now
        return tree
    with open(base / f"{digest}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (base / f"{digest}.ready").exists():
            return tree
        if tree.exists():  # a build that died half-way
            _make_writable(tree)
            shutil.rmtree(tree)
        tmp = base / f"{digest}.tmp-{uuid.uuid4().hex[:8]}"
        shutil.copytree(snapshot, tmp, symlinks=True)
        uid, gid = _pristine_owner()
        for root, dirs, files in os.walk(tmp):
            # directories too: a capability-less process must not add or unlink entries here
            os.chown(root, uid, gid)
            os.chmod(root, 0o555)
            for name in files:
                path = os.path.join(root, name)
                if os.path.islink(path):
                    continue
                mode = os.lstat(path).st_mode
                os.chown(path, uid, gid)
                os.chmod(path, stat.S_IMODE(mode) & ~0o7222)  # keep x bits, drop w and set-id
        os.rename(tmp, tree)
        (base / f"{digest}.ready").touch()
    return tree


def _make_writable(tree: Path) -> None:
    for root, dirs, files in os.walk(tree):
        os.chmod(root, 0o755)


def own_copy(path: Path) -> None:
    """Give ``path`` its own writable inode (breaks a hard link; no-op for a private file)."""
    st = path.lstat()
    if not stat.S_ISREG(st.st_mode):
        return
    if st.st_nlink == 1 and st.st_uid == os.geteuid() and st.st_mode & stat.S_IWUSR:
        return
    tmp = path.with_name(f".{path.name}.tj-{uuid.uuid4().hex[:8]}")
    shutil.copyfile(path, tmp)
    os.chmod(tmp, (stat.S_IMODE(st.st_mode) | 0o644) & ~0o7000)
    os.replace(tmp, path)


def _link_tree(src: Path, dest: Path) -> None:
    """Mirror ``src`` into ``dest``: fresh directories, hard-linked files, copied symlinks."""
    dest.mkdir(parents=True, exist_ok=True)
    src_s = str(src)
    for root, dirs, files in os.walk(src_s):
        rel = os.path.relpath(root, src_s)
        out = str(dest) if rel == "." else os.path.join(str(dest), rel)
        for name in dirs:
            s = os.path.join(root, name)
            if os.path.islink(s):
                os.symlink(os.readlink(s), os.path.join(out, name))
            else:
                os.mkdir(os.path.join(out, name))
        for name in files:
            s = os.path.join(root, name)
            d = os.path.join(out, name)
            if os.path.islink(s):
                os.symlink(os.readlink(s), d)
            else:
                os.link(s, d)


def _copy_tree(src: Path, dest: Path) -> None:
    shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True)
    for root, dirs, files in os.walk(dest):  # the copy is the world's own: make it writable
        os.chmod(root, 0o755)
        for name in files:
            p = os.path.join(root, name)
            if not os.path.islink(p):
                os.chmod(p, stat.S_IMODE(os.lstat(p).st_mode) | 0o600)


def _inside(dest: Path, rel: str) -> Path:
    """``dest / rel`` for a file to write or remove; its folders must not lead out through a link
    (a trial's patch can add one), the file itself may be a link: it is replaced, not written through."""
    try:
        target = path_inside(dest, rel, follow_links=False)
        path_inside(dest, os.path.dirname(os.path.normpath(rel)) or ".")
    except ValueError as exc:
        raise ValueError(f"path {rel!r} leaves the world: {exc}") from exc
    return target


def materialise_world(request: ExecRequest, dest: Path, *, cache_dir: Path | None = None,
                      link: bool | None = None) -> None:
    """Build world ``dest`` (must not exist or be empty) from ``request``: snapshot, patches in
    order, extra files, removals. Raises PatchFailed (naming patch and hunk) or ValueError.

    ``link=False`` forces a plain copy (e.g. when the code that runs may hold CAP_DAC_OVERRIDE,
    like root in a container, and could write through a link); None decides as described above.
    """
    dest = Path(dest)
    snapshot = Path(request.snapshot)
    if not snapshot.is_dir():
        raise ValueError(f"snapshot {snapshot} is not a directory")
    use_links = links_are_safe() if link is None else link
    if use_links and request.snapshot_digest:
        tree = pristine_tree(snapshot, request.snapshot_digest, cache_dir or default_cache_dir())
        try:
            _link_tree(tree, dest)
        except OSError as exc:
            if exc.errno not in (errno.EXDEV, errno.EMLINK, errno.EPERM):
                raise
            shutil.rmtree(dest, ignore_errors=True)
            _copy_tree(tree, dest)
    else:
        _copy_tree(snapshot, dest)
    for patch in request.patches:
        apply_patch(dest, patch, own_copy)
    for rel, content in request.extra_files:
        target = _inside(dest, rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink() or target.exists():
            target.unlink()
        target.write_text(content)
    for rel in request.remove_files:
        target = _inside(dest, rel)
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.is_dir():
            shutil.rmtree(target)
