"""How many tasks of each labelled corpus the offline author's language rule touches.

The offline author writes no witness for a task whose reference patch changes code of a language
it does not read (``authors.offline.language``). A task it touches would go from audited to
unaudited, so this counts them on every corpus (imported whole into a temporary store, the slice
of ``corpora.write_slice``): none means no verdict on that corpus can change.

    .venv/bin/python benchmarks/offline_language_reach.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpora import CORPORA, CORPORA_ROOT, write_slice  # noqa: E402

from testjack_tui.authors.offline.language import unread_language  # noqa: E402
from testjack_tui.formats.importing import import_path  # noqa: E402
from testjack_tui.store import Store  # noqa: E402


def main() -> int:
    for name, corpus in CORPORA.items():
        if not (CORPORA_ROOT / name).is_dir():
            print(f"{name}: not here")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            sliced = write_slice(CORPORA_ROOT / name, Path(tmp) / "slice", corpus=corpus)
            store = Store(Path(tmp) / "s.db")
            outcome = import_path(store, sliced.directory / "problems.jsonl", "humaneval",
                                  samples=sliced.directory / "samples.jsonl")
            tasks = store.list_tasks(outcome.run_id)
            touched = [t.id for t in tasks if unread_language(t)]
            print(f"{name}: {len(tasks)} tasks, the rule touches {len(touched)} {touched[:3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
