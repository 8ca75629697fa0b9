"""Probes run in the task's environment: what T0's command sets before its runner, they get too.

On a ``src/`` layout T0's command exports ``PYTHONPATH=src``; a probe run with a bare ``python``
could not import the package (``ModuleNotFoundError``) and the offline author saw nothing. The
probe now answers there as T0's tests do. The shell line for each runner is pinned below, and a
native task's probe keeps the plain line it always had (same request, same cache key), so
function-level audits are not touched.
"""

from __future__ import annotations

import pytest

from testjack_tui.audit.execution import ExecutionService
from testjack_tui.authors.base import AuthorContext
from testjack_tui.authors.offline.probe import PROBE_FILE, run_probe
from testjack_tui.formats.humaneval import COMMAND as HUMANEVAL_COMMAND
from testjack_tui.formats.importing import import_path
from testjack_tui.store import Store
from testjack_tui.worlds.request import DEFAULT_COMMAND
from testjack_tui.worlds.task_environment import in_task_environment

from swebench_layouts import build


def test_a_probe_on_a_src_layout_imports_the_package(tmp_path, monkeypatch):
    monkeypatch.setenv("TESTJACK_CACHE", str(tmp_path / "cache"))
    data = build(tmp_path, ["flasklike"])
    store = Store(tmp_path / "s.db")
    outcome = import_path(store, data, "swebench", repos=data / "repos", swebench_envs=tmp_path / "envs.toml")
    (task,) = store.list_tasks(outcome.run_id)
    service = ExecutionService(store, store.get_run(outcome.run_id))
    try:
        ctx = AuthorContext(task=task, trial=None, run_id=outcome.run_id, execute=service.run,
                            world_request=lambda world, **kw: service.world_request(task, world, **kw))
        out = run_probe(ctx, ["reference", "null"], [("g", "url_join('a/', '/b')")],
                        {"g": ["from flasklike import url_join"]})
    finally:
        service.close()
    assert out["reference"][0].status == "ok" and out["reference"][0].repr == "'a/b'"
    assert out["null"][0].repr == "'a///b'"  # R's own code, imported from src/ as well


@pytest.mark.parametrize("command, parser, line", [
    ("export PYTHONPATH=src:$PYTHONPATH && python -m pytest -rA tests/t.py", "swebench-pytest",
     "export PYTHONPATH=src:$PYTHONPATH && python _tj_probe.py"),
    ("PYTHONWARNINGS='ignore::UserWarning' python bin/test -C --verbose a/tests/t.py", "swebench-sympy",
     "export PYTHONWARNINGS=ignore::UserWarning && python _tj_probe.py"),
    ("export PATH=/env/bin:$PATH && cd /testbed && ./tests/runtests.py --settings=test_sqlite a.tests",
     "swebench-django",
     "export PATH=/env/bin:$PATH && export DJANGO_SETTINGS_MODULE=test_sqlite && "
     "export PYTHONPATH=tests:$PYTHONPATH && python _tj_probe.py"),
    ("python3.9 -m pytest {tests}", "", "python3.9 _tj_probe.py"),
    # function-level and native tasks: the line probes always had (same request, same cache key)
    (DEFAULT_COMMAND, "", "python _tj_probe.py"),
    (HUMANEVAL_COMMAND, "", "python _tj_probe.py"),  # HumanEval, MBPP and EvalPlus imports
    ("bash tests/test.sh", "", "python _tj_probe.py"),  # a runner it does not know: nothing kept
])
def test_the_probe_line_keeps_what_t0s_command_sets_up(command, parser, line):
    assert in_task_environment(command, parser, PROBE_FILE) == line
