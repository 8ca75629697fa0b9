"""Warm test processes: what the test process sees and gets is what a cold run gives it."""

from __future__ import annotations

import json
import os
import re
import signal
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from testjack_tui.worlds import warm
from testjack_tui.worlds.local import LocalBackend

AS_ROOT = os.geteuid() == 0
pytestmark = pytest.mark.skipif(not AS_ROOT, reason="warm runs need the whole sandbox (root here)")

# the command a benchmark gives: one ``python -m pytest``, so it may run warm
WARM_COMMAND = "python -m pytest -s -p no:cacheprovider -q --junitxml={junit} {tests}"

SEEN = '''\
import json, os, resource, signal, socket, sys

def _status():
    keep = ("Cap", "NoNewPrivs", "Seccomp", "Uid", "Gid", "Groups")
    return [l for l in open("/proc/self/status").read().splitlines() if l.startswith(keep)]

def test_seen():
    main = sys.modules["__main__"]
    seen = {
        "argv": sys.argv, "orig_argv": sys.orig_argv, "executable": sys.executable,
        "flags": list(sys.flags), "path": sys.path, "cwd": os.getcwd(), "env": dict(os.environ),
        "ids": [os.getuid(), os.geteuid(), os.getgid()], "ppid": os.getppid(), "pid": os.getpid(),
        "last_pid": open("/proc/sys/kernel/ns_last_pid").read(),
        "session": [os.getsid(0), os.getpgrp() == os.getpid()],
        "status": _status(), "umask": os.umask(0o22),
        "limits": [resource.getrlimit(getattr(resource, n)) for n in
                   ("RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_CORE")],
        "net": sorted(n for _, n in socket.if_nameindex()),
        "stdin": os.readlink("/proc/self/fd/0"),
        "signals": [str(signal.getsignal(s)) for s in (signal.SIGINT, signal.SIGPIPE, signal.SIGTERM,
                                                          signal.SIGCHLD, signal.SIGXFSZ)],
        "main": sorted(k for k in vars(main) if not k.startswith("__")) + [main.__name__],
        "hidden": open(HIDDEN).read() if os.path.exists(HIDDEN) else None,
        "testjack": sorted(m for m in sys.modules if "testjack" in m),
        "modules": sorted(sys.modules),
        "cmdline": open("/proc/self/cmdline").read().split("\\0"),
        "environ": sorted(open("/proc/self/environ").read().split("\\0")),
    }
    print("SEEN " + json.dumps(seen))
'''


def _seen(result) -> dict:
    line = next(l for l in result.stdout.splitlines() if l.startswith("SEEN "))
    text = re.sub(r"/tmp/r[0-9a-f]{12}", "ALIAS", line[5:])  # the run's alias and directory
    return json.loads(re.sub(r"/worlds/run-[^/\"]+", "/worlds/RUN", text))


def _run(make_request, cache_dir, monkeypatch, warmth: str, files: dict[str, str], **fields):
    monkeypatch.setenv("TESTJACK_WARM", warmth)
    return LocalBackend(cache_dir=cache_dir).run(make_request(files, command=WARM_COMMAND, **fields))


def test_a_warm_run_sees_what_a_cold_run_sees(make_request, cache_dir, monkeypatch, tmp_path):
    secret = tmp_path / "store.db"
    secret.write_text("verdicts")
    files = {"tests/test_seen.py": f"HIDDEN = {str(secret)!r}\n" + SEEN,
             "sitecustomize.py": "import os\nos.environ['SITE_RAN'] = 'yes'\n"}
    cold = _run(make_request, cache_dir, monkeypatch, "0", files, test_ids=("tests/test_seen.py",),
                hidden=(str(secret),))
    warmed = _run(make_request, cache_dir, monkeypatch, "1", files, test_ids=("tests/test_seen.py",),
                  hidden=(str(secret),))
    assert cold.passed(("tests/test_seen.py",)) and warmed.passed(("tests/test_seen.py",)), warmed.stdout
    seen_cold, seen_warm = _seen(cold), _seen(warmed)
    # the one difference (docs/worlds.md): every built-in plugin's module is imported, also one
    # the command leaves out (``-p no:cacheprovider`` leaves out stepwise)
    seen_warm["modules"].remove("_pytest.stepwise")
    assert seen_warm["env"]["SITE_RAN"] == "yes" and seen_warm["hidden"] == ""
    assert "CapEff:\t0000000000000000" in seen_warm["status"] and seen_warm["net"] == ["lo"]
    assert {k: (v, seen_cold.get(k)) for k, v in seen_warm.items() if v != seen_cold.get(k)} == {}


def test_the_repetitions_of_a_request_hash_strings_differently(make_request, cache_dir, monkeypatch):
    """A set-order flake must be able to show across repetitions, as it does in cold runs."""
    files = {"tests/test_h.py": "def test_h():\n    print('HASH', hash('a witness'))\n"}
    request = make_request(files, command=WARM_COMMAND, test_ids=("tests/test_h.py",))
    monkeypatch.setenv("TESTJACK_WARM", "1")
    backend = LocalBackend(cache_dir=cache_dir)
    hashes = {re.search(r"HASH (-?\d+)", backend.run(replace(request, attempt=i)).stdout).group(1)
              for i in range(3)}
    assert len(hashes) == 3


def test_a_child_that_kills_itself_or_hangs_leaves_the_warm_process_serving(make_request, cache_dir,
                                                                            monkeypatch):
    monkeypatch.setenv("TESTJACK_WARM", "1")
    backend = LocalBackend(cache_dir=cache_dir)
    killed = make_request({"tests/test_k.py": "import os, signal\ndef test_k():\n"
                           "    os.kill(os.getpid(), signal.SIGKILL)\n"},
                          command=WARM_COMMAND, test_ids=("tests/test_k.py",))
    hung = make_request({"tests/test_h.py": "def test_h():\n    while True:\n        pass\n"},
                        command=WARM_COMMAND, test_ids=("tests/test_h.py",), timeout=3)
    fine = make_request({"tests/test_f.py": "def test_f():\n    assert True\n"},
                        command=WARM_COMMAND, test_ids=("tests/test_f.py",))
    result = backend.run(killed)
    assert result.exit_code == 128 + signal.SIGKILL and result.outcomes == {"tests/test_k.py": "missing"}
    assert backend.run(hung).status == "timeout"
    server = warm.server(0, None)
    assert backend.run(fine).passed(("tests/test_f.py",))
    assert warm.server(0, None) is server  # the same warm process served all three


def test_a_lost_warm_process_is_replaced_and_the_run_repeated(make_request, cache_dir, monkeypatch):
    monkeypatch.setenv("TESTJACK_WARM", "1")
    backend = LocalBackend(cache_dir=cache_dir)
    fine = make_request({"tests/test_f.py": "def test_f():\n    assert True\n"},
                        command=WARM_COMMAND, test_ids=("tests/test_f.py",))
    assert backend.run(fine).passed(("tests/test_f.py",))
    lost = warm.server(0, None)
    lost.proc.kill()  # as an out-of-memory kill would
    lost.proc.wait()
    assert backend.run(fine).passed(("tests/test_f.py",))
    assert warm.server(0, None) is not lost


def test_only_a_single_python_m_pytest_or_coverage_runs_warm(make_request, monkeypatch):
    monkeypatch.setenv("TESTJACK_WARM", "1")
    request = make_request({"t.py": ""})
    assert warm.warm_argv(request, "python -m pytest -q t.py") == ["python", "-m", "pytest", "-q", "t.py"]
    assert warm.warm_argv(request, "python -m coverage run --branch -m pytest t.py") is not None
    for line in ("cd x && python -m pytest", "X=1 python -m pytest", "python -m pytest; rm -rf /",
                 "python t.py", "python -m unittest", "bin/test", "python -m pytest $(cat f)"):
        assert warm.warm_argv(request, line) is None, line
    monkeypatch.setenv("TESTJACK_WARM", "0")
    assert warm.warm_argv(request, "python -m pytest -q t.py") is None


def test_a_world_shadowing_a_preloaded_module_runs_cold(make_request, cache_dir, monkeypatch):
    """A world's own ``pluggy.py`` is what a cold run imports; a warm process has pytest's."""
    monkeypatch.setenv("TESTJACK_WARM", "1")
    files = {"pluggy.py": "SHADOW = True\n",
             "tests/test_s.py": ("import sys\ndef test_s():\n"
                                 "    assert getattr(sys.modules['pluggy'], 'SHADOW', False)\n")}
    result = LocalBackend(cache_dir=cache_dir).run(make_request(files, command=WARM_COMMAND,
                                                                test_ids=("tests/test_s.py",)))
    cold = _run(make_request, cache_dir, monkeypatch, "0", files, test_ids=("tests/test_s.py",))
    assert result.outcomes == cold.outcomes


def test_a_warm_process_that_cannot_start_leaves_the_run_cold(make_request, cache_dir, monkeypatch):
    monkeypatch.setenv("TESTJACK_WARM", "1")
    monkeypatch.setattr(warm, "_BOOT", "raise SystemExit(3)")  # a warm process that dies at once
    fine = make_request({"tests/test_f.py": "def test_f():\n    assert True\n"},
                        command=WARM_COMMAND, test_ids=("tests/test_f.py",))
    with ThreadPoolExecutor(1) as fresh:  # a thread with no warm process yet
        result = fresh.submit(LocalBackend(cache_dir=cache_dir).run, fine).result()
    assert result.passed(("tests/test_f.py",)), result.message
