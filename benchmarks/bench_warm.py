"""Where one execution's time goes, and what warm test processes save (docs/worlds.md).

1. Audits HumanEval/2 and /4 of evalplus-dev per trial (``bench_evalplus.measure``'s slice writer
   and the engine's API) and keeps requests its T0 runs and its offline author made.
2. Times the pieces of one such run, ``--repeat`` times each, CPU seconds of this process and its
   children: a world made and deleted, the sandbox around ``true``, ``python -c pass``, importing
   pytest (and coverage), the pytest command by hand and in the sandbox, and
   ``LocalBackend().run`` of the request without and with coverage, and of the audit's offline
   probe (``python _tj_probe.py``, which never imports pytest), all cold.
3. The marginal cost of one more run of the request, cold and warm: ``--runs`` runs minus one
   run, each in a fresh interpreter (``python -c``) inside a ``cpuacct`` cgroup of its own, so
   the warm processes' CPU counts as well (root and cgroup v1 ``cpuacct``; skipped otherwise).
4. Where a warm run's CPU goes: the same marginal cost, warm, for commands that stop earlier
   (``coverage --version``: the fork, the sandbox and an interpreter's exit, next to nothing
   else; ``pytest --version``: and pytest's start; ``--co``: and collection),
   the whole command, and the command with coverage; and the share of it spent in the runner's
   own process (``LocalBackend.run``: the world, the pipes, reading the JUnit report).
5. The engine's own work per execution in the audit of step 1 (warm): CPU of the audit's
   threads (``thread_time``) outside the backend's ``run``, and of that the store's part.

    .venv/bin/python benchmarks/bench_warm.py [--repeat 8] [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpora import CORPORA_ROOT, write_slice  # noqa: E402

CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class _Spent:
    """CPU seconds of the calling thread inside the wrapped functions (outermost calls only)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0
        self._depth = threading.local()

    def wrap(self, fn):
        def timed(*args, **kwargs):
            depth = getattr(self._depth, "n", 0)
            self._depth.n = depth + 1
            started = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self._depth.n = depth
                if depth == 0:
                    self.seconds += time.thread_time() - started
                    self.calls += 1
        return timed


def requests_of_an_audit(tmp: Path) -> tuple[list, dict[str, float]]:
    """The T0 requests (without and with coverage) and an offline probe of a small per-trial audit, and the engine's
    own CPU seconds in it: every thread's, the backend's ``run`` and the store's methods."""
    from testjack_tui.audit import Audit, AuditOptions
    from testjack_tui.formats.importing import import_path
    from testjack_tui.store import Store
    from testjack_tui.worlds import local

    kept, runner, store_spent = [], _Spent(), _Spent()
    run = local.LocalBackend.run
    timed_run = runner.wrap(run)
    local.LocalBackend.run = lambda self, request: (kept.append(request), timed_run(self, request))[1]
    methods = {name: getattr(Store, name) for name in dir(Store)
               if not name.startswith("_") and callable(getattr(Store, name))}
    for name, fn in methods.items():
        setattr(Store, name, store_spent.wrap(fn))
    try:
        write_slice(CORPORA_ROOT / "evalplus-dev", tmp / "slice", tasks={2, 4})
        store = Store(tmp / "s.db")
        run_id = import_path(store, tmp / "slice").run_id
        own = resource.getrusage(resource.RUSAGE_SELF)
        store_spent.seconds = 0.0
        Audit(store, run_id, AuditOptions(mode="per-trial", workers=1, mutation_budget_s=0)).execute()
        after = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        local.LocalBackend.run = run
        for name, fn in methods.items():
            setattr(Store, name, fn)
    spent = {"executions": len(kept), "all threads": after.ru_utime + after.ru_stime - own.ru_utime - own.ru_stime,
             "backend run": runner.seconds, "store": store_spent.seconds}
    return [r for r in kept if r.label.startswith("T0") and "reference" in r.label][:1] + \
        [r for r in kept if r.label.startswith("T0") and r.coverage][:1] + \
        [r for r in kept if r.label.startswith("offline probe")][:1], spent


def pieces(plain, measured, probe, repeat: int) -> list[tuple[str, float, float]]:
    from testjack_tui.worlds import limits
    from testjack_tui.worlds.local import LocalBackend
    from testjack_tui.worlds.materialise import default_cache_dir, materialise_world

    world = Path(tempfile.mkdtemp()) / "world"
    materialise_world(plain, world, cache_dir=default_cache_dir())
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(world), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_ADDOPTS": "-o junit_family=xunit1", "HOME": str(world)}
    quiet = {"cwd": world, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    py = sys.executable
    pytest_argv = [py, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--junitxml={world}/j.xml", *plain.test_ids]
    wrapped = limits.wrap(limits.probe(), memory_mb=2048, pids=256, cgroup=None)

    def fresh_world():
        d = Path(tempfile.mkdtemp())
        materialise_world(plain, d / "w", cache_dir=default_cache_dir())
        shutil.rmtree(d)

    table = [
        ("a world (hard links) made and deleted", fresh_world),
        ("the sandbox around `true`", lambda: subprocess.run(wrapped, env={**env, "TJ_COMMAND": "true"}, **quiet)),
        ("python -c pass", lambda: subprocess.run([py, "-c", "pass"], env=env, **quiet)),
        ("python -c 'import pytest'", lambda: subprocess.run([py, "-c", "import pytest"], env=env, **quiet)),
        ("python -c 'import pytest, coverage'", lambda: subprocess.run([py, "-c", "import pytest, coverage"],
                                                                       env=env, **quiet)),
        ("python -m pytest on the test, by hand", lambda: subprocess.run(pytest_argv, env=env, **quiet)),
        ("the same in the sandbox", lambda: subprocess.run(
            wrapped, env={**env, "TJ_COMMAND": " ".join(pytest_argv)}, **quiet)),
        ("LocalBackend().run, cold", lambda: LocalBackend().run(plain)),
        ("LocalBackend().run with coverage, cold", lambda: LocalBackend().run(measured)),
        ("LocalBackend().run of the offline probe (`python _tj_probe.py`), cold", lambda: LocalBackend().run(probe)),
    ]
    os.environ["TESTJACK_WARM"] = "0"
    out = []
    for name, fn in table:
        fn()
        wall, cpu = time.monotonic(), _cpu()
        for _ in range(repeat):
            fn()
        out.append((name, (time.monotonic() - wall) / repeat, (_cpu() - cpu) / repeat))
    shutil.rmtree(world.parent)
    return out


_LOOP = """\
import json, resource, sys
from testjack_tui.worlds.local import LocalBackend
from testjack_tui.worlds.request import ExecRequest
request = ExecRequest.from_dict(json.loads(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    result = LocalBackend().run(request)
    assert result.status == "ok" and result.exit_code == 0, (result.status, result.message, result.stderr)
own = resource.getrusage(resource.RUSAGE_SELF)
print(own.ru_utime + own.ru_stime)
"""


def in_cgroup(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall and CPU seconds of ``argv`` and everything it starts (its own cpuacct cgroup), and
    the CPU seconds it says its own process took (its last line)."""
    group = CPUACCT / f"testjack-bench-{uuid.uuid4().hex[:8]}"
    group.mkdir()
    try:
        started = time.monotonic()
        said = subprocess.run(argv, env=env, check=True, capture_output=True, text=True,
                              preexec_fn=lambda: (group / "cgroup.procs").write_text("0")).stdout
        wall = time.monotonic() - started
        time.sleep(0.5)  # processes killed with their parent leave the group's count settled
        return wall, int((group / "cpuacct.usage").read_text()) / 1e9, float(said.split()[-1])
    finally:
        group.rmdir()


def _marginal(request, runs: int, warm: str) -> tuple[float, float, float]:
    """(wall, CPU, CPU of the runner's own process) of one more run of ``request``."""
    import json

    env = {**os.environ, "TESTJACK_WARM": warm}
    one = in_cgroup([sys.executable, "-c", _LOOP, json.dumps(request.to_dict()), "1"], env)
    many = in_cgroup([sys.executable, "-c", _LOOP, json.dumps(request.to_dict()), str(runs + 1)], env)
    return tuple((m - o) / runs for m, o in zip(many, one))


def marginal(request, runs: int) -> list[tuple[str, float, float]]:
    return [(name, *_marginal(request, runs, warm)[:2]) for name, warm in (("cold", "0"), ("warm", "1"))]


def warm_breakdown(plain, measured, runs: int) -> list[tuple[str, float, float]]:
    """(what, CPU, of which the runner's process) of one more warm run of shorter and longer commands."""
    import dataclasses

    stop_early = [("fork, sandbox, no test framework (`coverage --version`)", "python -m coverage --version"),
                  ("fork, sandbox, pytest's start (`pytest --version`)", "python -m pytest --version"),
                  ("and collection (`--co`)", plain.command.replace(" -q ", " -q --co ", 1))]
    variants = [(name, dataclasses.replace(plain, command=command)) for name, command in stop_early]
    variants += [("the whole command", plain), ("the whole command with coverage", measured)]
    return [(name, *_marginal(request, runs, "1")[1:]) for name, request in variants]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=8)
    ap.add_argument("--runs", type=int, default=20)
    opts = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-warm-") as tmp:
        (plain, measured, probe), spent = requests_of_an_audit(Path(tmp))
        print(f"load average {os.getloadavg()[0]:.1f}; request: {plain.label}")
        print("| piece | wall per execution | CPU per execution |\n| --- | ---: | ---: |")
        for name, wall, cpu in pieces(plain, measured, probe, opts.repeat):
            print(f"| {name} | {wall * 1000:.0f} ms | {cpu * 1000:.0f} ms |")
        if os.geteuid() == 0 and (CPUACCT / "cpuacct.usage").exists():
            print(f"\nmarginal cost of one more run ({opts.runs + 1} runs minus 1):")
            print("| | CPU per execution | wall per execution |\n| --- | ---: | ---: |")
            for name, wall, cpu in marginal(plain, opts.runs):
                print(f"| {name} | {cpu:.3f} s | {wall:.2f} s |")
            print("\nwarm, by where the command stops:")
            print("| command | CPU per execution | of which the runner's process |\n| --- | ---: | ---: |")
            for name, cpu, runner in warm_breakdown(plain, measured, opts.runs):
                print(f"| {name} | {cpu * 1000:.0f} ms | {runner * 1000:.0f} ms |")
        n = spent["executions"]
        print(f"\nthe engine, warm audit of step 1 ({n} executions), CPU per execution:")
        print(f"| all of the audit's threads | {spent['all threads'] / n * 1000:.0f} ms |")
        print(f"| in the backend's run (world, pipes, JUnit) | {spent['backend run'] / n * 1000:.0f} ms |")
        print(f"| in the store's methods | {spent['store'] / n * 1000:.0f} ms |")
        rest = spent["all threads"] - spent["backend run"] - spent["store"]
        print(f"| the rest (authoring, analysis, cache look-ups, hand-offs) | {rest / n * 1000:.0f} ms |")
        print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
