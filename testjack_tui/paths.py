"""The one rule for a path that must stay inside a folder (a run, a snapshot, a world).

Importers, the worlds and the LLM author's tools all resolve untrusted paths here, so an absolute
path, a ``..`` that climbs out or a symbolic link leading out is refused the same way everywhere.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath, PureWindowsPath


def path_inside(root: Path, rel: str, follow_links: bool = True, shown: str | None = None) -> Path:
    """``root / rel`` when that path stays inside ``root``; raises ValueError saying why it does not.

    Refused: an empty path, an absolute one, one whose ``..`` climbs out of ``root``, and (unless
    ``follow_links`` is False: a check of the name alone, for a tree not on disk yet) one that
    leaves ``root`` through a symbolic link. Nothing is opened. ``shown`` names ``root`` in the
    message (default: the path itself).
    """
    where = shown or str(root)
    if not rel.strip():
        raise ValueError("is an empty path")
    if "\0" in rel:
        raise ValueError(f"{rel!r} contains a NUL character")
    if PurePosixPath(rel).is_absolute() or PureWindowsPath(rel).is_absolute():
        raise ValueError(f"{rel!r} is an absolute path, not one inside {where}")
    if os.path.normpath(rel).split(os.sep)[0] == "..":
        raise ValueError(f"{rel!r} climbs out of {where} with '..'")
    target = root / rel
    if not follow_links:
        return target
    real_root, real = root.resolve(), target.resolve()
    if not real.is_relative_to(real_root):
        raise ValueError(f"{rel!r} leads out of {where} through a symbolic link (to {real})")
    return target


def links_leading_out(root: Path) -> Iterator[tuple[Path, str]]:
    """Each symbolic link under ``root`` that leads outside it, with the link's own text (where it
    points). Links to folders are looked at, not entered."""
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            link = Path(dirpath) / name
            if not link.is_symlink():
                continue
            try:
                path_inside(root, os.path.relpath(link, root))
            except ValueError:
                yield link, os.readlink(link)
