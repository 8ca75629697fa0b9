"""The command line: import, audit, open, report, replay, rule, verdict (CONTRACTS.md).

Exit codes: 0 done; 2 bad usage or bad input (the message names the file and the record);
3 the environment is missing (no Docker engine, no LLM endpoint when --author llm).

The package holds one module per group of commands; ``main`` here parses and dispatches.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Sequence

from testjack_tui.cli.common import EXIT_BAD_INPUT, EXIT_OK, CliError, _err
from testjack_tui.cli.console import cmd_open
from testjack_tui.cli.parser import build_parser, parse
from testjack_tui.environment import BadVariable

__all__ = ["CliError", "build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parse(parser, argv)
    if not args.command:
        args.target = None
        args.audit = False
        args.analyst = None
        args.func = cmd_open
    from testjack_tui.store import StoreError

    try:
        return args.func(args)
    except CliError as exc:
        _err(str(exc))
        return exc.code
    except BadVariable as exc:  # an environment variable holds what TestJack cannot use
        _err(str(exc))
        return EXIT_BAD_INPUT
    except StoreError as exc:  # an unknown run, trial, witness or ruling; a store we cannot open
        _err(str(exc))
        return EXIT_BAD_INPUT
    except sqlite3.DatabaseError as exc:  # met after the opening checks: damage, a lock, a read-only file
        from testjack_tui.store.db import store_problem

        _err(str(store_problem(Path(args.store), exc)))
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return EXIT_OK
