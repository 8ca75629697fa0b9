"""Hypothesis draws that depend on the seed alone, not on the modules the process has loaded.

Hypothesis's provider sometimes returns a constant instead of a fresh value: from its built-in
edge values, or from constants it reads in the source of every "local" module loaded in the
process (anything outside the standard library and site-packages). For TestJack that second pool
is TestJack's own source when installed editable, the test modules of a test run, a benchmark
script: the same task, trial and seed drew different inputs in the CLI, the console, a test run
and a benchmark (and on a user's ordinary install). ``install`` empties that pool for the whole
process, so the built-in constants are the only ones, and every process draws what a process
with no local module draws.

Hypothesis has no setting for this. A provider of our own (its backend API) is not enough: some
draws construct the stock provider directly. So this replaces the module function the stock
provider asks for its local constants, and drops the pools it has cached; it is done once per
process (hypothesis is used in TestJack only to draw inputs), and tests/authors/test_offline_draws.py
fails if a hypothesis release moves the function.
"""

from __future__ import annotations

import threading

_installed = False
_lock = threading.Lock()


def install() -> None:
    """Draw with hypothesis's built-in constants only, in this process from now on (idempotent)."""
    global _installed
    if _installed:
        return
    with _lock:
        if _installed:
            return
        from hypothesis.internal.conjecture import providers

        if not callable(getattr(providers, "_get_local_constants", None)):
            raise RuntimeError("this hypothesis release reads local constants another way: "
                               "TestJack's generated inputs would depend on the loaded modules")
        no_local_constants = providers.Constants()
        providers._get_local_constants = lambda: no_local_constants
        providers.CONSTANTS_CACHE.cache.clear()  # pools cached with the local constants in them
        _installed = True
