"""testjack open (and no command at all): the review console."""

from __future__ import annotations

import argparse
import sys

from testjack_tui.cli.auditing import _ray_address
from testjack_tui.cli.common import DEFAULT_WORKERS, EXIT_ENVIRONMENT, EXIT_OK, CliError, _store
from testjack_tui.cli.importing import _resolve_run


def cmd_open(args: argparse.Namespace) -> int:
    # the console's audits run their tests where testjack audit would with the same options
    # (no command at all: no such options, threads)
    if not hasattr(args, "executor"):
        args.executor, args.ray_address = "local", None
    ray_address = _ray_address(args)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CliError("the review console needs a terminal; for scripts use testjack audit, report, rule or verdict")
    store = _store(args)
    run_id = None
    if getattr(args, "target", None):
        run_id = _resolve_run(store, args.target)
    try:
        from testjack_tui.app.main import run_console
    except ImportError as exc:
        raise CliError(f"the review console is not available in this build ({exc})", EXIT_ENVIRONMENT) from exc
    from testjack_tui.audit.execution import ExecutorUnavailable

    try:
        run_console(store.path, run_id=run_id, audit=getattr(args, "audit", False),
                    analyst=getattr(args, "analyst", None), executor=args.executor, ray_address=ray_address,
                    cpus=DEFAULT_WORKERS)
    except ExecutorUnavailable as exc:  # raised before the console opens
        raise CliError(str(exc), EXIT_ENVIRONMENT) from exc
    return EXIT_OK
