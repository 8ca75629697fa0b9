"""Import a run into the store: pick the format, load it into staging, commit it in one go."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from testjack_tui.store import Store
from testjack_tui.formats import FORMATS, ImportError_, ImportProblem, detect_format


@dataclass
class ImportOutcome:
    run_id: str
    created: bool  # False when the same content was already in the store
    format: str
    tasks: int
    trials: int
    skipped: list[ImportProblem] = field(default_factory=list)
    warnings: list[ImportProblem] = field(default_factory=list)


def import_path(
    store: Store, path: str | Path, fmt: str = "auto", name: str | None = None, **options: Any
) -> ImportOutcome:
    path = Path(path)
    if not path.exists():
        raise ImportError_([ImportProblem(str(path), "", "no such file or directory")])
    fmt = detect_format(path) if fmt == "auto" else fmt
    if fmt not in FORMATS:
        raise ImportError_([ImportProblem(str(path), "", f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")])
    try:
        loader = importlib.import_module(f"testjack_tui.formats.{fmt}")
    except ModuleNotFoundError as exc:
        raise ImportError_([ImportProblem(str(path), "", f"the {fmt} importer is not available ({exc})")]) from exc
    staging = store.staging_dir()
    try:
        imported = loader.load(path, staging, name=name, **options)
        run_id, created = store.import_run(imported.run, imported.tasks, imported.trials)
    finally:
        store.discard_staging(staging)
    return ImportOutcome(
        run_id=run_id,
        created=created,
        format=fmt,
        tasks=len(imported.tasks),
        trials=len(imported.trials),
        skipped=imported.skipped,
        warnings=imported.warnings,
    )
