"""What every command shares: exit codes, the error that ends a command, the store it opens."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

EXIT_OK, EXIT_BAD_INPUT, EXIT_ENVIRONMENT = 0, 2, 3


class CliError(Exception):
    def __init__(self, message: str, code: int = EXIT_BAD_INPUT):
        super().__init__(message)
        self.code = code

# How many tests run at once unless --workers says otherwise (and a private Ray's CPUs for the
# console's audits): the machine's cores, at most 4
DEFAULT_WORKERS = max(1, min(4, os.cpu_count() or 1))

# How each command uses the store. Both kinds run SQLite's quick_check first and refuse a damaged
# store (exit 2); "write" also refuses a store it may not write and removes staging directories an
# interrupted import left behind. A command not listed here opens the store for reading.
STORE_ACCESS = {
    None: "write", "open": "write", "import": "write", "audit": "write", "replay": "write",
    "rule": "write", "verdict": "write", "undo": "write",
    "report": "read", "compare": "read", "leaderboard": "read", "export": "read",
}


def _store(args: argparse.Namespace):
    from testjack_tui.store import Store, StoreError

    try:
        store = Store(args.store, access=STORE_ACCESS.get(args.command, "read"))
    except StoreError as exc:
        raise CliError(str(exc)) from exc
    for leftover in store.removed_staging:
        _err(f"removed {leftover}: staging left by an interrupted import")
    return store


@contextmanager
def store_removed_on_error(args: argparse.Namespace) -> Iterator[Any]:
    """The store for a command that may create it (import, audit of a path): when the command
    fails and there was no store before, the store it created is removed again, so a failed first
    import leaves no empty store (nor the folders made for it) behind."""
    made = [p for p in (Path(args.store), *Path(args.store).parents) if not p.exists()]
    store = _store(args)
    try:
        yield store
    except BaseException:
        if made:
            store.remove()
            for folder in made[1:]:  # innermost first; only folders this command made, and only if empty
                if folder.is_dir() and not any(folder.iterdir()):
                    folder.rmdir()
        raise


def _err(text: str) -> None:
    print(f"testjack: {text}", file=sys.stderr)
