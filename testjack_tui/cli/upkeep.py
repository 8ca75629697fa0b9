"""Looking after the store and the cache: doctor, cache, cache prune."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from testjack_tui.cli.common import EXIT_BAD_INPUT, EXIT_OK, CliError

if TYPE_CHECKING:  # the store is imported by the commands that open one, not at start-up
    from testjack_tui.store.doctor import StoreHealth
    from testjack_tui.store.files import StagingDir


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return ""


def _days_ago(when: float) -> str:
    import time

    days = (time.time() - when) / 86400
    return "today" if days < 1 else f"{days:.0f} days ago"


def cmd_cache(args: argparse.Namespace) -> int:
    from testjack_tui.worlds.cache import totals, usage
    from testjack_tui.worlds.materialise import default_cache_dir

    cache_dir = default_cache_dir()
    print(f"cache: {cache_dir}")
    rows = totals(usage(cache_dir))
    if not rows:
        print("empty")
        return EXIT_OK
    print(f"{'kind':<12} {'entries':>7} {'size':>10}  oldest last use")
    for t in rows:
        print(f"{t.kind:<12} {t.count:>7} {_size(t.bytes):>10}  {_days_ago(t.oldest_use)}")
    print(f"{'total':<12} {sum(t.count for t in rows):>7} {_size(sum(t.bytes for t in rows)):>10}")
    return EXIT_OK


def cmd_cache_prune(args: argparse.Namespace) -> int:
    from testjack_tui.worlds.cache import prune
    from testjack_tui.worlds.materialise import default_cache_dir

    if args.older_than < 0:
        raise CliError(f"--older-than {args.older_than}: days must not be negative")
    cache_dir = default_cache_dir()
    summary = prune(cache_dir, args.older_than, dry_run=args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    for e in summary.removed:
        print(f"{verb} {e.kind} {e.name} ({_size(e.bytes)}, last used {_days_ago(e.last_used)})")
    for e, why in summary.skipped:
        print(f"skipped {e.kind} {e.name}: {why}")
    freed = "would free" if args.dry_run else "freed"
    print(f"{freed} {_size(summary.freed)} in {len(summary.removed)} entries from {cache_dir}")
    return EXIT_OK


# ---------------------------------------------------------------------- doctor

def cmd_doctor(args: argparse.Namespace) -> int:
    """The store's health, read without changing it: exit 0 healthy, 2 damaged or not a store."""
    from testjack_tui.store import examine

    health = examine(args.store)
    if health.problem and health.integrity is None:
        raise CliError(health.problem)  # not a file SQLite could examine at all
    print(f"store: {health.path} ({_size(health.size)})")
    problems = [p for p in health.integrity or [] if p != "ok"]
    _print_integrity(problems)
    _print_schema(health.schema_version, problems)
    counts = health.counts or {}
    print("contents: " + ", ".join(
        f"{'unreadable' if counts.get(t) is None else counts[t]} {t}" for t in ("runs", "tasks", "trials")))
    leftovers = _print_staging(health.staging or [])
    if health.problem:
        print(f"not healthy: {health.problem}")
        return EXIT_BAD_INPUT
    if problems:
        _print_repair(health, problems)
        return EXIT_BAD_INPUT
    if leftovers:
        print(f"healthy; {leftovers} leftover staging director{'y' if leftovers == 1 else 'ies'} "
              f"(above), removed by the next command that writes (import, audit, rule, verdict, undo, replay) "
              f"or by hand")
    else:
        print("healthy: nothing to do")
    return EXIT_OK


def _print_integrity(problems: list[str]) -> None:
    """What ``PRAGMA integrity_check`` found: the first ten problems, without SQLite's headers."""
    if not problems:
        print("integrity: ok (PRAGMA integrity_check)")
        return
    print(f"integrity: DAMAGED, {len(problems)} problem(s) found by PRAGMA integrity_check:")
    for p in problems[:10]:
        for line in p.splitlines():
            if line.strip() and not line.startswith("*** in database"):
                print(f"  {line.strip()}")
    if len(problems) > 10:
        print(f"  ... and {len(problems) - 10} more")


def _print_schema(version: int | None, problems: list[str]) -> None:
    from testjack_tui.store.schema import CURRENT_VERSION

    if version is None:
        print("schema version: unreadable" if problems else "schema version: none (no TestJack tables yet)")
    elif version < CURRENT_VERSION:
        print(f"schema version: {version} (older; the next command that writes migrates it to {CURRENT_VERSION})")
    elif version > CURRENT_VERSION:
        print(f"schema version: {version} (made by a newer TestJack; this one knows up to "
              f"{CURRENT_VERSION}: upgrade testjack to use it)")
    else:
        print(f"schema version: {version} (current)")


def _print_staging(staging: list[StagingDir]) -> int:
    """The import staging directories, left over or in use; how many are left over."""
    from datetime import datetime

    leftovers = [s for s in staging if not s.in_use]
    in_use = [s for s in staging if s.in_use]
    if not leftovers and not in_use:
        print("staging: no leftover directories")
    for s in leftovers:
        when = datetime.fromtimestamp(s.modified).isoformat(sep=" ", timespec="seconds")
        print(f"staging: left over by an interrupted import: {s.path} ({_size(s.bytes)}, last written {when})")
    for s in in_use:
        print(f"staging: in use by a running import: {s.path} ({_size(s.bytes)})")
    return len(leftovers)


def _print_repair(health: StoreHealth, problems: list[str]) -> None:
    """What to do with a damaged store: copy it aside, restore a copy, or import its runs again."""
    import shlex

    path = health.path
    print("damaged: every testjack command now refuses this store, so nothing more is written to it. To do:")
    print(f"  1. copy it aside as it is: cp {shlex.quote(str(path))} {shlex.quote(str(path) + '.damaged')}")
    print(f"  2. restore {path.name} and {path.name}.files from a copy made while nothing was writing, or")
    print("  3. import the runs again into a new store (rulings and verdicts set by hand are only in the "
          "store, so only a copy keeps them):")
    for run_id, source in health.runs or []:
        print(f"     testjack import {shlex.quote(source) if source else '<its folder>'} --store NEW.db   # {run_id}")
    if health.runs is None:
        print("     testjack import <each run's folder> --store NEW.db   (the list of runs is unreadable)")
    if any("not a database" in p for p in problems):
        print("note: SQLite does not recognise this file as a database at all; if it is not your store, "
              "give --store the right file")
