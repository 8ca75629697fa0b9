"""The local backend, end to end: real worlds, real pytest, real processes."""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

import pytest

from testjack_tui.worlds.local import LocalBackend
from testjack_tui.worlds.request import Patch

from .conftest import FAST_PYTEST, WARM_PYTEST

PKG = {"pkg/__init__.py": "def add(a, b):\n    if a > 100:\n        return 0\n    return a + b\n"}
AS_ROOT = os.geteuid() == 0


@pytest.fixture(params=["cold", "warm"])
def default_command(request) -> str:
    """Every run here both ways: a new interpreter, and a warm process's child (docs/worlds.md)."""
    return FAST_PYTEST if request.param == "cold" else WARM_PYTEST


def _alive_with(marker: str) -> list[int]:
    """Pids whose command line contains ``marker`` (zombies have none, so they do not count)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry))
    return found


@pytest.fixture
def backend(cache_dir):
    return LocalBackend(cache_dir=cache_dir)


def test_outcomes_come_from_the_world_code(make_request, backend):
    request = make_request({**PKG, "tests/test_add.py":
                            "from pkg import add\n"
                            "def test_add():\n    assert add(1, 2) == 3\n"
                            "def test_big():\n    assert add(200, 1) == 201\n"},
                           test_ids=("tests/test_add.py::test_add", "tests/test_add.py::test_big"))
    result = backend.run(request)
    assert result.status == "ok" and result.exit_code == 1
    assert result.outcomes == {"tests/test_add.py::test_add": "pass",
                               "tests/test_add.py::test_big": "fail"}
    fixed = make_request({**PKG, "tests/test_add.py": "from pkg import add\n"
                          "def test_big():\n    assert add(200, 1) == 201\n"},
                         test_ids=("tests/test_add.py::test_big",),
                         patches=(Patch("reference", "--- a/pkg/__init__.py\n+++ b/pkg/__init__.py\n"
                                        "@@ -1,4 +1,2 @@\n def add(a, b):\n-    if a > 100:\n"
                                        "-        return 0\n     return a + b\n"),))
    result = backend.run(fixed)
    assert result.passed(fixed.test_ids), result.stdout


def test_python_is_the_environment_interpreter(make_request, backend):
    check = ("import subprocess\ndef test_python():\n"
             "    out = subprocess.check_output(['python', '-c', 'import sys; print(sys.prefix)'])\n"
             f"    assert out.decode().strip() == {sys.prefix!r}\n")
    request = make_request({"tests/test_py.py": check}, test_ids=("tests/test_py.py",))
    assert backend.run(request).outcomes == {"tests/test_py.py": "pass"}


def test_trial_writing_its_own_sources_leaves_the_snapshot_alone(make_request, backend, tmp_path,
                                                                  cache_dir, snapshot_state):
    vandal = (
        "import os, pathlib\n"
        "def test_rewrite():\n"
        "    target = pathlib.Path('pkg/__init__.py')\n"
        "    try:\n"
        "        target.write_text('VANDALISED = 1\\n')\n"  # in place: refused on a shared file
        "    except PermissionError:\n"
        "        try:\n            os.chmod(target, 0o666)\n        except PermissionError:\n"
        "            pass\n"
        "        target.unlink()\n"  # replacing it in its own world is fine
        "        target.write_text('VANDALISED = 1\\n')\n"
        "    try:\n        pathlib.Path('README').write_text('gone')\n"
        "    except PermissionError:\n        pass\n"
        "    assert target.read_text() == 'VANDALISED = 1\\n'\n")
    request = make_request({**PKG, "README": "hello\n", "tests/test_v.py": vandal},
                           test_ids=("tests/test_v.py::test_rewrite",))
    before = snapshot_state(Path(request.snapshot))
    pristine = cache_dir / "snapshots" / request.snapshot_digest
    result = backend.run(request)
    assert result.outcomes == {"tests/test_v.py::test_rewrite": "pass"}, result.stdout
    assert snapshot_state(Path(request.snapshot)) == before
    if AS_ROOT:
        assert (pristine / "pkg/__init__.py").read_text() == PKG["pkg/__init__.py"]
        assert (pristine / "README").read_text() == "hello\n"
    # a second run sees the original code, not the first run's writes
    check = make_request({**PKG, "tests/test_c.py": "from pkg import add\n"
                          "def test_c():\n    assert add(1, 1) == 2\n"},
                         test_ids=("tests/test_c.py::test_c",))
    assert backend.run(check).outcomes == {"tests/test_c.py::test_c": "pass"}


def test_nonzero_exit_with_all_passing_is_not_a_pass(make_request, backend):
    conftest = ("def pytest_sessionfinish(session, exitstatus):\n    session.exitstatus = 1\n"
                "def pytest_unconfigure(config):\n    print('\\n=== 9 passed in 0.01s ===')\n")
    request = make_request({"conftest.py": conftest, "tests/test_a.py": "def test_a():\n    pass\n"},
                           test_ids=("tests/test_a.py::test_a",))
    result = backend.run(request)
    assert result.exit_code == 1
    assert result.outcomes == {"tests/test_a.py::test_a": "error"}
    assert "exited 1" in result.message and not result.passed(request.test_ids)


def test_a_fake_passed_summary_does_not_hide_a_failure(make_request, backend):
    conftest = "def pytest_unconfigure(config):\n    print('\\n=== 1 passed in 0.01s ===')\n"
    request = make_request({"conftest.py": conftest,
                            "tests/test_a.py": "def test_a():\n    assert False\n"},
                           test_ids=("tests/test_a.py::test_a",))
    result = backend.run(request)
    assert "1 passed" in result.stdout
    assert result.outcomes == {"tests/test_a.py::test_a": "fail"}


def test_exit_zero_with_a_requested_test_unreported_is_missing(make_request, backend):
    # the conftest quietly drops one requested test: pytest exits 0, the XML never names it
    conftest = ("def pytest_collection_modifyitems(config, items):\n"
                "    items[:] = [i for i in items if i.name != 'test_gone']\n")
    request = make_request({"conftest.py": conftest,
                            "tests/test_a.py": "def test_a():\n    pass\n"
                                               "def test_gone():\n    assert False\n"},
                           test_ids=("tests/test_a.py::test_a", "tests/test_a.py::test_gone"))
    result = backend.run(request)
    assert result.exit_code == 0
    assert result.outcomes == {"tests/test_a.py::test_a": "pass",
                               "tests/test_a.py::test_gone": "missing"}
    assert not result.passed(request.test_ids)


def test_an_infinite_loop_is_killed_at_the_timeout(make_request, backend):
    marker = "loop-marker-5821"
    test = ("import subprocess\ndef test_loop():\n"
            f"    subprocess.Popen(['sh', '-c', 'while :; do :; done', '{marker}'])\n"
            "    while True:\n        pass\n")
    request = make_request({"tests/test_loop.py": test}, test_ids=("tests/test_loop.py",),
                           timeout=4)
    started = time.monotonic()
    result = backend.run(request)
    assert result.status == "timeout"
    assert time.monotonic() - started < 4 + 6  # killed, not waited for
    assert result.outcomes == {"tests/test_loop.py": "missing"}
    assert _alive_with(marker) == []  # the grandchild went with the group


def test_a_hundred_megabytes_of_output_is_bounded(make_request, backend):
    test = ("import os\ndef test_flood():\n"
            "    chunk = b'x' * (1 << 20)\n"
            "    for _ in range(100):\n        os.write(1, chunk)\n")
    request = make_request({"tests/test_flood.py": test}, test_ids=("tests/test_flood.py",),
                           command="PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python -m pytest -s -q "
                                   "-p no:cacheprovider --junitxml={junit} {tests}",
                           max_output=10_000, timeout=60)
    result = backend.run(request)
    assert result.status == "ok" and result.truncated
    assert len(result.stdout) <= 10_000 and result.stdout.startswith("x")
    assert result.outcomes == {"tests/test_flood.py": "pass"}


def test_forking_processes_is_contained(make_request, backend):
    marker = "31415.9265"
    test = ("import subprocess, time\ndef test_fork():\n"
            "    for _ in range(100):\n"
            "        try:\n"
            f"            subprocess.Popen(['sleep', '{marker}'])\n"
            "        except OSError:\n            break\n"
            "    time.sleep(3600)\n")
    request = make_request({"tests/test_fork.py": test}, test_ids=("tests/test_fork.py",),
                           timeout=5, pids=40)
    started = time.monotonic()
    result = backend.run(request)
    assert result.status == "timeout"
    assert time.monotonic() - started < 5 + 6
    assert _alive_with(marker) == []


@pytest.mark.skipif(not AS_ROOT and os.environ.get("CI") != "true",
                    reason="network namespaces need root or user namespaces")
def test_no_network_even_to_loopback_outside(make_request, backend):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.setblocking(False)
    port = server.getsockname()[1]
    test = ("import socket, pytest\ndef test_connect():\n"
            "    with pytest.raises(OSError):\n"
            f"        socket.create_connection(('127.0.0.1', {port}), timeout=3)\n")
    request = make_request({"tests/test_net.py": test}, test_ids=("tests/test_net.py",))
    try:
        result = backend.run(request)
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody got through
    finally:
        server.close()
    assert result.outcomes == {"tests/test_net.py": "pass"}, result.stdout
    assert "network" not in result.message


def test_coverage_of_the_repository_files(make_request, backend):
    request = make_request({**PKG, "tests/test_add.py": "from pkg import add\n"
                            "def test_add():\n    assert add(1, 2) == 3\n"},
                           test_ids=("tests/test_add.py::test_add",), coverage=True)
    result = backend.run(request)
    assert result.outcomes == {"tests/test_add.py::test_add": "pass"}
    cov = result.coverage["pkg/__init__.py"]
    assert 4 in cov["lines"] and 3 not in cov["lines"]  # the a > 100 branch never ran
    assert [2, 4] in cov["arcs"] and [2, 3] not in cov["arcs"]
    assert all(not os.path.isabs(path) for path in result.coverage)


def test_setup_runs_in_the_world_first(make_request, backend):
    test = "import pathlib\ndef test_s():\n    assert pathlib.Path('made').read_text() == 'yes\\n'\n"
    request = make_request({"tests/test_s.py": test}, test_ids=("tests/test_s.py",),
                           setup="echo yes > made")
    assert backend.run(request).outcomes == {"tests/test_s.py": "pass"}
    failing = make_request({"tests/test_s.py": test}, test_ids=("tests/test_s.py",),
                           setup="echo broken >&2; exit 3")
    result = backend.run(failing)
    assert result.status == "setup_failed" and "broken" in result.stderr


def test_patch_failure_is_a_result_not_an_exception(make_request, backend):
    request = make_request({"a.txt": "a\n"}, patches=(
        Patch("trial:x", "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-zzz\n+b\n"),))
    result = backend.run(request)
    assert result.status == "patch_failed" and "trial:x" in result.message


def test_same_content_elsewhere_has_the_same_key(make_request):
    files = {"a.py": "x = 1\n"}
    one = make_request(files, test_ids=("t.py::a",), label="first")
    two = make_request(files, test_ids=("t.py::a",), label="second")
    assert one.snapshot != two.snapshot and one.key() == two.key()
    assert make_request({"a.py": "x = 2\n"}, test_ids=("t.py::a",)).key() != one.key()


RUN_ONE = """
import pickle, sys
from testjack_tui.worlds.local import LocalBackend
request = pickle.loads(open(sys.argv[1], "rb").read())
LocalBackend(cache_dir=sys.argv[2]).run(request)
"""


def _wait_until(predicate, seconds: float) -> bool:
    """Poll /proc-backed ``predicate`` until it holds (a process appearing or going has no event to await)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def test_a_killed_audit_leaves_no_test_process_running(make_request, tmp_path):
    import pickle
    import signal
    import subprocess

    marker = "orphan-marker-7731"
    test = ("import subprocess\ndef test_loop():\n"
            f"    subprocess.Popen(['sh', '-c', 'while :; do :; done', '{marker}'])\n"
            "    while True:\n        pass\n")
    request = make_request({"tests/test_loop.py": test}, test_ids=("tests/test_loop.py",), timeout=600)
    (tmp_path / "request.pickle").write_bytes(pickle.dumps(request))
    (tmp_path / "run_one.py").write_text(RUN_ONE)
    own_cache = tmp_path / "cache"  # every process of this run names it: what to clean up if the test fails
    runner = subprocess.Popen([sys.executable, str(tmp_path / "run_one.py"), str(tmp_path / "request.pickle"),
                               str(own_cache)])
    try:
        assert _wait_until(lambda: _alive_with(marker), 120), "the world's test never started"
        runner.send_signal(signal.SIGKILL)  # no finally, no handler: the audit just dies
        runner.wait()
        # the world's processes go with it, long before the run's own 600 s timeout
        assert _wait_until(lambda: not _alive_with(marker), 10), f"left running: {_alive_with(marker)}"
    finally:
        runner.kill()
        for pid in _alive_with(marker) + _alive_with(str(own_cache)):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _passes_as_witness(backend, make_request, code: str) -> None:
    """``code`` run as a witness file (a name like the ones witnesses get) passes."""
    request = make_request(PKG, extra_files=(("tests/test_0a1b2c3d4e5f.py", code),),
                           test_ids=("tests/test_0a1b2c3d4e5f.py",))
    result = backend.run(request)
    assert result.outcomes == {"tests/test_0a1b2c3d4e5f.py": "pass"}, result.stdout + result.message


def test_a_witness_run_does_not_name_testjack_in_its_argv_or_environment(make_request, tmp_path):
    # a cache under a path that names TestJack, as ~/.cache/testjack does
    backend = LocalBackend(cache_dir=tmp_path / "testjack-cache")
    witness = ("import os, sys\n\ndef test_unnamed():\n"
               "    said = ' '.join(sys.argv) + ' '.join(f'{k}={v}' for k, v in os.environ.items())\n"
               "    assert 'testjack' not in said.lower(), said\n")
    _passes_as_witness(backend, make_request, witness)


@pytest.mark.skipif(not AS_ROOT, reason="covering paths needs a mount namespace (root here)")
def test_the_store_under_audit_is_out_of_the_test_process_reach(make_request, backend, tmp_path):
    store = tmp_path / "audit.db"
    store.write_text("witnesses and verdicts")
    beside = tmp_path / "audit.db.files"
    (beside / "snapshots").mkdir(parents=True)
    probe = ("import os\n\ndef test_reach():\n"
             f"    assert open({str(store)!r}).read() == ''\n"
             f"    assert os.listdir({str(beside)!r}) == []\n"
             "    for act in (lambda: open(%r, 'a').write('x'), lambda: os.unlink(%r),\n"
             "                lambda: os.mkdir(%r)):\n"
             "        try:\n            act()\n        except OSError:\n            continue\n"
             "        raise AssertionError('reached the store')\n") % (str(store), str(store), str(beside / "new"))
    request = make_request(PKG, extra_files=(("tests/test_reach.py", probe),),
                           test_ids=("tests/test_reach.py",), hidden=(str(store), str(beside)))
    result = backend.run(request)
    assert result.outcomes == {"tests/test_reach.py": "pass"}, result.stdout + result.message
    assert store.read_text() == "witnesses and verdicts" and os.listdir(beside) == ["snapshots"]


@pytest.mark.skipif(not AS_ROOT, reason="the record's pipe is handed to another uid as root")
def test_a_witness_run_cannot_read_back_its_own_record_nor_replace_its_plugin(make_request, backend):
    # the plugin's channel is the fd it writes to; reopening it for reading would let a trial
    # swallow the lines that record a failure, and a plugin rewritten before pytest imports it
    # (by a sitecustomize.py) would write whatever the trial likes
    witness = ("import importlib, os\n\ndef test_reopen():\n"
               "    plugin = importlib.import_module(os.environ['PYTEST_PLUGINS'])\n"
               "    for act in (lambda: os.open(f'/proc/self/fd/{plugin._FD}', os.O_RDONLY | os.O_NONBLOCK),\n"
               "                lambda: open(plugin.__file__, 'a'), lambda: os.unlink(plugin.__file__),\n"
               "                lambda: open(os.path.dirname(plugin.__file__) + '/p0.py', 'w')):\n"
               "        try:\n            act()\n        except PermissionError:\n            continue\n"
               "        raise AssertionError('the record or its plugin is within reach')\n")
    _passes_as_witness(backend, make_request, witness)
