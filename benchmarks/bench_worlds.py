"""Measure the local backend: world materialisation, per-run overhead, parallel speed-up.

Run as ``python benchmarks/bench_worlds.py [--quick]``; the figures go to docs/worlds.md.
(a) materialising a world of a generated 2,000-file repository (first world of a snapshot, which
    builds the pristine tree, then later worlds), against a plain full copy;
(b) one local run from a cached environment against the same pytest command run by hand in a
    prepared directory (goal: under 15 % more);
(c) one test replayed on 40 worlds with 2 workers against 40 runs one after another (goal 1.8x).
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from testjack_tui.worlds.command import PYTEST_ENV  # noqa: E402
from testjack_tui.worlds.executor import Executor  # noqa: E402
from testjack_tui.worlds.local import LocalBackend  # noqa: E402
from testjack_tui.worlds.materialise import materialise_world  # noqa: E402
from testjack_tui.worlds.request import DEFAULT_COMMAND, ExecRequest, Patch  # noqa: E402

FAST = ("PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python -m pytest -p no:cacheprovider -q "
        "--junitxml={junit} {tests}")


def _repo(root: Path, files: int) -> ExecRequest:
    for i in range(files):
        path = root / f"pkg{i % 40}" / f"mod{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"VALUE_{i} = {i}\n" + "def f(x):\n    return x + 1\n" * 20)
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests/test_one.py").write_text(
        "from pkg0.mod0 import f\ndef test_f():\n    assert f(1) == 2\n")
    digest = hashlib.sha256(f"{root}-{time.time_ns()}".encode()).hexdigest()
    return ExecRequest(snapshot=str(root), snapshot_digest=digest,
                       test_ids=("tests/test_one.py::test_f",))


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def bench_materialise(work: Path, cache: Path) -> dict:
    request = _repo(work / "big", 2000)
    patch = Patch("reference", "--- a/pkg0/mod0.py\n+++ b/pkg0/mod0.py\n@@ -1,2 +1,2 @@\n"
                  "-VALUE_0 = 0\n+VALUE_0 = 100\n def f(x):\n")
    patched = ExecRequest(**{**request.to_dict(), "patches": (patch,)})
    first = _timed(lambda: materialise_world(patched, work / "w0", cache_dir=cache))
    later = [_timed(lambda i=i: materialise_world(patched, work / f"w{i}", cache_dir=cache))
             for i in range(1, 6)]
    copies = [_timed(lambda i=i: shutil.copytree(request.snapshot, work / f"c{i}"))
              for i in range(3)]
    return {"first": first, "later": statistics.median(later), "copy": statistics.median(copies)}


def bench_overhead(work: Path, cache: Path, command: str, reps: int) -> dict:
    files = {"pkg/__init__.py": "def add(a, b):\n    return a + b\n",
             "tests/test_add.py": "from pkg import add\ndef test_add():\n    assert add(1, 2) == 3\n"}
    root = work / f"small-{abs(hash(command))}"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    request = ExecRequest(snapshot=str(root), snapshot_digest=f"small{abs(hash(command))}",
                          command=command, test_ids=("tests/test_add.py::test_add",))
    backend = LocalBackend(cache_dir=cache)
    assert backend.run(request).passed(request.test_ids)  # warm: pristine tree, shims
    prepared = work / f"prepared-{abs(hash(command))}"
    shutil.copytree(root, prepared)
    line = command.replace("{junit}", str(work / "hand.xml")).replace("{tests}",
                                                                        request.test_ids[0])
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "PYTHONPATH": str(prepared),
           **PYTEST_ENV}
    hand, ours = [], []
    for _ in range(reps):  # interleaved, so drift hits both alike
        hand.append(_timed(lambda: subprocess.run(line, shell=True, cwd=prepared, env=env,
                                                  capture_output=True, check=True)))
        ours.append(_timed(lambda: backend.run(request)))
    h, o = statistics.median(hand), statistics.median(ours)
    return {"hand": h, "ours": o, "overhead": (o - h) / h}


def bench_parallel(work: Path, cache: Path, worlds: int) -> dict:
    base = work / "replay"
    (base / "tests").mkdir(parents=True)
    (base / "mod.py").write_text("def f():\n    return 1\n")
    (base / "tests/test_w.py").write_text("from mod import f\ndef test_w():\n    assert f() == 1\n")
    requests = [ExecRequest(snapshot=str(base), snapshot_digest="replay", command=FAST,
                            test_ids=("tests/test_w.py::test_w",),
                            patches=(Patch(f"trial:{i}", "--- a/mod.py\n+++ b/mod.py\n"
                                           f"@@ -1,2 +1,3 @@\n def f():\n+    # trial {i}\n"
                                           "     return 1\n"),)) for i in range(worlds)]
    backend = LocalBackend(cache_dir=cache)
    backend.run(requests[0])  # warm
    t0 = time.perf_counter()
    seq = [backend.run(r) for r in requests]
    sequential = time.perf_counter() - t0
    t0 = time.perf_counter()
    with Executor(workers=2, run=backend.run) as ex:
        par = [res for _, res in ex.run_all(requests)]
    parallel = time.perf_counter() - t0
    assert all(r.passed(requests[0].test_ids) for r in seq + par)
    return {"sequential": sequential, "parallel": parallel, "speedup": sequential / parallel}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and worlds")
    args = parser.parse_args()
    reps, worlds = (3, 10) if args.quick else (9, 40)
    with tempfile.TemporaryDirectory() as tmp:
        work, cache = Path(tmp) / "work", Path(tmp) / "cache"
        work.mkdir()
        m = bench_materialise(work, cache)
        print(f"(a) 2,000-file world: first {m['first'] * 1000:.0f} ms (builds the pristine tree), "
              f"then {m['later'] * 1000:.0f} ms per world; full copy {m['copy'] * 1000:.0f} ms")
        for name, command in (("default command", DEFAULT_COMMAND), ("no plugin autoload", FAST)):
            o = bench_overhead(work, cache, command, reps)
            print(f"(b) {name}: by hand {o['hand']:.3f} s, local backend {o['ours']:.3f} s, "
                  f"overhead {o['overhead'] * 100:+.1f} %")
        p = bench_parallel(work, cache, worlds)
        print(f"(c) {worlds} worlds: sequential {p['sequential']:.1f} s, 2 workers "
              f"{p['parallel']:.1f} s, speed-up {p['speedup']:.2f}x")


if __name__ == "__main__":
    main()
