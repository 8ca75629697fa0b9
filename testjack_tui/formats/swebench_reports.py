"""The official verdicts of SWE-bench predictions, read from the harness's reports.

The harness writes one report per model, named ``<model>.<run_id>.json`` (``/`` in the model's name
as ``__``); a report may also list ``resolved_ids`` for every model, or hold ``{instance: {"resolved": bool}}``, or ``{instance: bool}`` (SWE-bench Pro's ``eval_results.json``).
"""

from __future__ import annotations

from pathlib import Path

from testjack_tui.formats import ImportError_, ImportProblem
from testjack_tui.formats._common import read_records


class Reports:
    """The official verdict of a prediction from the reports: its model's own, else a shared one.

    A report is a model's own when its file name is ``<model>.<anything>`` (the harness's naming);
    a prediction whose model has no report of its own is judged by the reports named for no model.
    """

    def __init__(self, reports: list[tuple[Path, dict[str, bool]]]):
        self.reports = reports
        self.models: set[str] = set()  # every prediction's model, set before trials are made

    def resolved(self, iid: str, model: str) -> bool:
        own = [r for p, r in self.reports if model and self._owner(p) == model]
        shared = [r for p, r in self.reports if self._owner(p) is None]
        for resolved in own or shared:
            if iid in resolved:
                return resolved[iid]
        return False

    def _owner(self, path: Path) -> str | None:
        return next((m for m in self.models if m and path.name.startswith(m.replace("/", "__") + ".")), None)

    

def read_report(path: Path) -> dict[str, bool]:
    """instance id -> resolved, from a run report (``resolved_ids``) or per-instance reports."""
    out: dict[str, bool] = {}
    problems: list[ImportProblem] = []
    for where, row in read_records(path):
        if isinstance(row, ImportProblem):
            problems.append(row)
            continue
        if "resolved_ids" in row or "resolved" in row and isinstance(row["resolved"], list):
            ids = row.get("resolved_ids", row.get("resolved"))
            if not isinstance(ids, list):
                problems.append(ImportProblem(str(path), where, "resolved_ids is not a list"))
                continue
            for other in ("unresolved_ids", "error_ids", "completed_ids", "empty_patch_ids", "incomplete_ids"):
                for iid in row.get(other) or []:
                    out.setdefault(str(iid), False)
            out.update({str(i): True for i in ids})
            continue
        if row and "resolved" not in row and all(isinstance(v, bool) for v in row.values()):
            out.update({str(i): v for i, v in row.items()})  # {instance: bool}: SWE-bench Pro's eval_results.json
            continue
        for iid, entry in row.items():
            if isinstance(entry, dict) and isinstance(entry.get("resolved"), bool):
                out[iid] = entry["resolved"]
            elif iid == "instance_id" and isinstance(row.get("resolved"), bool):
                out[str(row["instance_id"])] = row["resolved"]
    if problems:
        raise ImportError_(problems)
    if not out:
        raise ImportError_([ImportProblem(str(path), "", "report names no instance (expected resolved_ids or {id: {resolved}})")])
    return out
