"""Export a benchmark with T1 as its tests, in the benchmark's own format (issue 18).

``export_run(store, RUN, fmt, out)`` writes, under the folder ``out``:

- ``native``: a run folder whose ``tests.patch`` adds the witnesses (``testjack import`` reads it);
- ``swebench``: ``dataset.jsonl`` rows whose ``test_patch`` adds them and whose ``FAIL_TO_PASS`` /
  ``PASS_TO_PASS`` name their tests, ``predictions/`` and ``repos/`` (a git repository per task);
- ``evalplus``: a HumanEval+ problems file (``HUMANEVAL_OVERRIDE_PATH``) whose ``plus_input`` holds
  the witnesses' inputs and whose ``test`` runs T0's check and the witnesses, and ``samples.jsonl``;
- ``harbor``: task folders whose ``tests/`` hold the witnesses, run by ``tests/test.sh``, and jobs.

Each writes ``testjack_t1.json``: every witness with its id, requirement and classification, the
ones left out and why, and each trial's verdict, so the re-graded benchmark can be checked.
"""

from __future__ import annotations

from pathlib import Path

from testjack_tui.store import Store
from testjack_tui.export.t1 import PROVENANCE_FILE, T1, ExportError, collect

FORMATS = ("native", "swebench", "evalplus", "harbor")


def export_run(store: Store, run_ref: str, fmt: str, out: str | Path, include_ambiguous: bool = False) -> dict[str, int]:
    """Write the run's benchmark with T1 as its tests; returns counts (tasks, trials, witnesses)."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r} ({', '.join(FORMATS)})")
    t1 = collect(store, run_ref, include_ambiguous)
    out = Path(out)
    try:
        if fmt == "native":
            from testjack_tui.export.native import write
        elif fmt == "swebench":
            from testjack_tui.export.swebench import write
        elif fmt == "evalplus":
            from testjack_tui.export.evalplus import write
        else:
            from testjack_tui.export.harbor import write
        return write(t1, out)
    except FileExistsError as exc:
        raise ExportError(str(exc)) from exc


__all__ = ["FORMATS", "PROVENANCE_FILE", "T1", "ExportError", "collect", "export_run"]
