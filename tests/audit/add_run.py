"""A native run of one task, ``add(a, b)`` in ``addkit.py``, with the trials a test hands in: the
ground on which the hostile-trial tests (dodging witnesses, reaching the store) are played."""

from __future__ import annotations

import json
from pathlib import Path

from tests.patches import diff

REFERENCE = "def add(a, b):\n    return a + b\n"
T0 = "from addkit import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def write_add_run(root: Path, trials: dict[str, str], *, backend: str = "local", timeout: int = 20) -> Path:
    """The run folder at ``root``; ``trials``: trial id -> its patch (the whole diff)."""
    task = root / "tasks" / "add"
    (task / "repo").mkdir(parents=True)
    (task / "repo" / "README").write_text("add\n")
    (task / "prompt.md").write_text("Add `add(a, b)` returning the sum of two integers.\n")
    (task / "reference.patch").write_text(diff("addkit.py", "", REFERENCE))
    (task / "tests.patch").write_text(diff("tests/test_add.py", "", T0))
    (task / "task.toml").write_text(
        'id = "add"\n\n[tests]\ncommand = "python -m pytest -p no:cacheprovider -q --junitxml={junit} {tests}"\n'
        f'fail_to_pass = ["tests/test_add.py::test_add"]\ntimeout = {timeout}\n')
    (root / "trials").mkdir()
    rows = []
    for name, patch in trials.items():
        (root / "trials" / f"{name}.patch").write_text(patch)
        rows.append({"id": name, "task": "add", "model": name, "patch": f"trials/{name}.patch", "official": "passed"})
    (root / "run.toml").write_text(f'name = "{root.name}"\n\n[defaults]\nbackend = "{backend}"\n')
    (root / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root
