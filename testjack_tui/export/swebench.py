"""Export in SWE-bench's layout: dataset rows with T1 in ``test_patch`` and in the graded lists.

Written under ``out``:

- ``dataset.jsonl``: one row per task (``instance_id, repo, base_commit, problem_statement, patch,
  test_patch, FAIL_TO_PASS, PASS_TO_PASS, version, environment_setup_commit, created_at,
  hints_text``), the lists as JSON strings as on the Hub. ``test_patch`` is T0's patch followed by
  the witness files; each witness's tests join ``FAIL_TO_PASS`` when it fails on the null world,
  ``PASS_TO_PASS`` otherwise.
- ``repos/<owner>__<name>``: a git repository per task whose one commit (fixed author and date, so
  the same everywhere) is R; it is the row's ``base_commit``. A task imported from SWE-bench keeps
  its own ``repo`` and ``base_commit`` names only through this commit: R is what TestJack holds.
- ``predictions.<name>.jsonl``: the trials, as ``instance_id, model_name_or_path, model_patch`` (and
  TestJack's ``id`` and ``agent``); one file per model, since the harness takes one prediction per
  instance per run (per model and agent, or per trial, when a model has several on one task).
- ``testjack_t1.json``: the provenance.

``testjack import OUT --format swebench --repos OUT/repos`` reads it back; without a harness report
each trial's official result is computed by running T1.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from testjack_tui.export.t1 import T1, prepare, write_provenance

OWNER = "testjack-export"
STAMP = "2025-01-01T00:00:00+00:00"
VERSION = "t1"


def write(t1: T1, out: Path) -> dict[str, int]:
    prepare(out)
    repos = out / "repos"
    rows = []
    for entry in t1.tasks:
        task = entry.task
        name = _slug(f"{t1.run.name}-{task.id}")
        commit = _git_repo(Path(task.snapshot), repos / f"{OWNER}__{name}", f"R of task {task.id}")
        rows.append({
            "instance_id": task.id,
            "repo": f"{OWNER}/{name}",
            "base_commit": commit,
            "environment_setup_commit": commit,
            "problem_statement": task.prompt,
            "hints_text": "",
            "created_at": STAMP,
            "version": VERSION,
            "patch": task.reference_patch,
            "test_patch": entry.test_patch(),
            "FAIL_TO_PASS": json.dumps(entry.fail_to_pass),
            "PASS_TO_PASS": json.dumps(entry.pass_to_pass),
        })
    with (out / "dataset.jsonl").open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    names = prediction_names(t1)
    files: dict[str, list[dict]] = {}
    for trial in t1.trials:
        files.setdefault(names[trial.id], []).append({
            "instance_id": trial.task_id, "model_name_or_path": names[trial.id], "model_patch": trial.patch,
            "id": trial.id, "agent": trial.agent,
        })
    for name, preds in files.items():
        with (out / f"predictions.{_slug(name)}.jsonl").open("w", encoding="utf-8") as f:
            for p in preds:
                f.write(json.dumps(p, ensure_ascii=False) + "\n")
    write_provenance(out, t1, "swebench", {"predictions": {t: names[t] for t in names}})
    return {"tasks": len(rows), "trials": len(t1.trials), "witnesses": sum(len(t.witnesses) for t in t1.tasks)}


def prediction_names(t1: T1) -> dict[str, str]:
    """Each trial's ``model_name_or_path``: its model, unless a model has two trials on one task."""
    keys = (
        lambda t: t.model or "model",
        lambda t: f"{t.model or 'model'}.{t.agent or 'agent'}",
        lambda t: t.id,
    )
    for key in keys:
        seen = [(t.task_id, key(t)) for t in t1.trials]
        if len(set(seen)) == len(seen):
            return {t.id: key(t) for t in t1.trials}
    return {t.id: t.id for t in t1.trials}


def _git_repo(snapshot: Path, target: Path, message: str) -> str:
    shutil.copytree(snapshot, target, symlinks=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "TestJack", "GIT_AUTHOR_EMAIL": "testjack@localhost",
           "GIT_COMMITTER_NAME": "TestJack", "GIT_COMMITTER_EMAIL": "testjack@localhost",
           "GIT_AUTHOR_DATE": STAMP, "GIT_COMMITTER_DATE": STAMP, "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_CONFIG_NOSYSTEM": "1"}

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=target, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise OSError(f"git {' '.join(args)} in {target}: {done.stderr.strip()}")
        return done.stdout.strip()

    git("init", "-q", "-b", "main")
    git("add", "-A", "--force")
    git("commit", "-q", "--allow-empty", "-m", message)
    return git("rev-parse", "HEAD")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "task"
