"""testjack import, and naming a run by id, name or path (a path not in the store yet is imported)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from testjack_tui.cli.common import EXIT_OK, CliError, _err, _store, store_removed_on_error


def _import(store, path: str, fmt: str = "auto", name: str | None = None, quiet: bool = False,
            print_id: bool = False, **options: Any):
    from testjack_tui.formats import ImportError_
    from testjack_tui.formats.importing import import_path
    from testjack_tui.store import StoreError

    try:
        outcome = import_path(store, path, fmt, name, **options)
    except ImportError_ as exc:
        raise CliError("cannot import " + path + ":\n  " + "\n  ".join(str(p) for p in exc.problems)) from exc
    except StoreError as exc:
        raise CliError(str(exc)) from exc
    if not quiet:
        what = "imported" if outcome.created else "already in the store"
        if print_id:
            print(f"{outcome.run_id}", file=sys.stdout)
        _err(f"{what}: run {outcome.run_id} ({outcome.format}): {outcome.tasks} tasks, {outcome.trials} trials")
        if outcome.skipped:
            _err(f"skipped {len(outcome.skipped)} record(s):")
            for p in outcome.skipped:
                _err(f"  {p}")
        for p in outcome.warnings:
            _err(f"warning: {p}")
    return outcome


def cmd_import(args: argparse.Namespace) -> int:
    options: dict[str, Any] = {}
    for key in ("samples", "predictions", "report", "repos", "repo_url", "jobs", "swebench_envs",
                "scripts", "image_repository", "t0"):
        value = getattr(args, key, None)
        if value:
            options[key] = value
    with store_removed_on_error(args) as store:
        _import(store, args.path, args.format, args.name, print_id=True, **options)
    return EXIT_OK


def _resolve_run(store, ref: str, allow_path: bool = True) -> str:
    """RUN is an id or a name; a path that is not in the store yet is imported first."""
    from testjack_tui.store import NotFound

    try:
        return store.get_run(ref).id
    except NotFound as exc:
        if allow_path and Path(ref).exists():
            known = store.find_run_by_source(str(Path(ref).resolve()))
            if known is not None:
                return known.id
            return _import(store, ref, quiet=False).run_id
        if allow_path:  # RUN may have been meant as a path: say that neither exists
            raise CliError(f"{exc}, and there is no file or folder {ref!r} to import "
                           f"(from {Path.cwd()})") from exc
        raise CliError(str(exc)) from exc
