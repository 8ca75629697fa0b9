"""Materialise the sample runs' null and model worlds as plain directories, for the evidence tests."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

SAMPLE_RUNS = Path(__file__).resolve().parents[2] / "sample_runs"


def _apply(world: Path, patch: str) -> bool:
    if not patch.strip():
        return True
    done = subprocess.run(["patch", "-p1", "--batch", "--silent", "--forward"], input=patch, text=True,
                          cwd=world, capture_output=True)
    return done.returncode == 0


def _reader(root: Path):
    def read(path: str) -> str | None:
        target = root / path
        try:
            return target.read_text()
        except (OSError, UnicodeDecodeError):
            return None
    return read


@dataclass
class SampleTrial:
    run: str
    id: str
    task: str
    patch: str
    prompt: str
    reference: str
    test_patch: str
    read_model: object
    read_official: object


def sample_trials(workdir: Path) -> list[SampleTrial]:
    trials = []
    for run in sorted(p for p in SAMPLE_RUNS.glob("*") if (p / "trials.jsonl").exists()):
        for line in (run / "trials.jsonl").read_text().splitlines():
            if not line.strip():
                continue
            record = json.loads(line)
            task = run / "tasks" / record["task"]
            test_patch = (task / "tests.patch").read_text() if (task / "tests.patch").exists() else ""
            official = workdir / run.name / record["id"] / "null"
            model = workdir / run.name / record["id"] / "model"
            shutil.copytree(task / "repo", official)
            assert _apply(official, test_patch), f"{task}: tests.patch does not apply"
            shutil.copytree(official, model)
            patch = (run / record["patch"]).read_text()
            assert _apply(model, patch), f"{record['id']}: trial patch does not apply"
            trials.append(SampleTrial(run.name, record["id"], record["task"], patch,
                                      (task / "prompt.md").read_text(), (task / "reference.patch").read_text(),
                                      test_patch, _reader(model), _reader(official)))
    return trials
