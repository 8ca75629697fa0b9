"""The official tests of every task go to the workers as one stream, before the tasks are evaluated
one by one: a slow trial's T0 run then overlaps the other tasks' runs instead of leaving the other
workers idle until it ends, and the evaluation finds every result where the stream left it.

The runs are the real local (or, failing, docker) backend's; ``run_many`` only records what the
audit hands to the executor and passes it on.
"""

from __future__ import annotations

from pathlib import Path

from testjack_tui.audit import Audit, AuditOptions
from testjack_tui.formats.importing import import_path
from testjack_tui.store import Store
from testjack_tui.worlds.executor import Executor

from tests.audit.scripted import ScriptedAuthor

TOOLBOX = Path(__file__).resolve().parents[2] / "sample_runs" / "toolbox"


def _audit(tmp_path: Path, **options) -> tuple[Store, str, Audit, list[list[str]]]:
    store = Store(tmp_path / "store.db")
    run_id = import_path(store, TOOLBOX).run_id
    handed: list[list[str]] = []  # the labels of each batch the audit hands to the executor
    executor = Executor(workers=2)

    def run_many(requests):
        handed.append([r.label for r in requests])
        return list(executor.run_all(requests))

    audit = Audit(store, run_id, AuditOptions(mode="per-trial", workers=2, evidence=False, **options),
                  author=ScriptedAuthor(), run_many=run_many)
    return store, run_id, audit, handed


def _t0_tasks(labels: list[str]) -> set[str]:
    return {label.split()[1] for label in labels if label.startswith("T0 ")}


def test_every_tasks_t0_runs_in_one_stream_and_is_not_run_again(tmp_path: Path) -> None:
    store, run_id, audit, handed = _audit(tmp_path)
    assert audit.execute() == "done"
    tasks = {t.id for t in store.list_tasks(run_id)}
    assert len(tasks) > 1
    assert _t0_tasks(handed[0]) == tasks
    assert not any(_t0_tasks(batch) for batch in handed[1:])  # evaluated from the cache
    assert audit.service.cache_hits == 0  # the progress lines' "cached": nothing of an earlier audit
    # and evaluated as before: every trial has T0's verdict of its own world
    assert all(t.recomputed in ("passed", "failed") for t in store.list_trial_objects(run_id))


def test_a_run_the_cache_does_not_keep_is_not_run_twice(tmp_path: Path, monkeypatch) -> None:
    # no engine answers: every run is an error the cache does not keep (the next audit retries it)
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    store, run_id, audit, handed = _audit(tmp_path, backend="docker")
    audit.execute()
    labels = [label for batch in handed for label in batch if label.startswith("T0 ")]
    assert labels and len(labels) == len(set(labels))
    assert all(t.recomputed not in ("passed", "failed") for t in store.list_trial_objects(run_id))
    assert store.list_executions(run_id) == {}
