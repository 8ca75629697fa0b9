"""Entry point of the review console, called by ``testjack open`` and ``testjack`` with no arguments."""

from __future__ import annotations

from pathlib import Path

from testjack_tui.app.app import TestJackApp


def run_console(store_path: str | Path, run_id: str | None = None, audit: bool = False,
                analyst: str | None = None, executor: str = "local", ray_address: str | None = None,
                cpus: int = 1) -> None:
    """Open the console on the store (on the run's trial list when ``run_id`` is given), and with
    ``audit`` start auditing that run with default options in a background worker. ``analyst``
    (``--by``) is the name stored on rulings, over $TESTJACK_ANALYST and the settings. Every audit
    of the session runs its tests on ``executor`` (``local`` threads, or ``ray`` at ``ray_address``,
    or a private Ray with ``cpus`` CPUs); a cluster that cannot be joined raises
    ``ExecutorUnavailable`` before the console opens."""
    held = join_executor(executor, ray_address, cpus)
    try:
        TestJackApp(store_path, run_id=run_id, audit=audit, analyst=analyst, executor=executor,
                    ray_address=ray_address).run()
    finally:
        if held is not None:
            held.close()


def join_executor(executor: str, ray_address: str | None, cpus: int):
    """The session's hold on a Ray cluster (None for threads), joined here, on the main thread and
    before the console takes the terminal: Ray starts its processes with this process's stdout and
    stderr, which the console replaces, and cannot from a worker thread. The audits' executors then
    share this connection (worlds.ray_executor.connect); closing it lets go of the session's hold."""
    if executor == "local":
        return None
    from testjack_tui.audit.execution import make_executor

    return make_executor(executor, cpus, ray_address)
