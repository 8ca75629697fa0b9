"""The docker backend against a real Docker engine (started by `.ci/docker.sh`).

When no engine answers these tests fail under CI=true and are skipped elsewhere.
"""

from __future__ import annotations

import hashlib
import socket
import textwrap
import threading
import uuid
from pathlib import Path

import docker
import pytest

from testjack_tui.worlds.docker_backend import DockerBackend
from testjack_tui.worlds.local import LocalBackend
from testjack_tui.worlds.request import ExecRequest, Patch

pytestmark = pytest.mark.docker

@pytest.fixture(scope="module")
def backend(engine, tmp_path_factory) -> DockerBackend:
    """A DockerBackend on the engine (conftest's ``engine``: fail under CI=true, else skip)."""
    return DockerBackend(cache_dir=tmp_path_factory.mktemp("cache"))


def _world(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def _request(snapshot: Path, **fields) -> ExecRequest:
    digest = hashlib.sha256(
        b"".join(p.read_bytes() for p in sorted(snapshot.rglob("*")) if p.is_file())).hexdigest()
    fields.setdefault("label", f"test-{uuid.uuid4().hex[:8]}")
    return ExecRequest(snapshot=str(snapshot), snapshot_digest=digest, **fields)


def _containers(backend: DockerBackend, label: str) -> list:
    return backend.client().containers.list(all=True, filters={"label": f"org.testjack.run={label}"})


CALC = {
    "calc.py": """\
        def divide(a, b):
            if b == 0:
                raise ZeroDivisionError("b is zero")
            return a / b


        def clamp(x, lo, hi):
            if x < lo:
                return lo
            if x > hi:
                return hi
            return x
        """,
    "tests/__init__.py": "",
    "tests/test_calc.py": """\
        import pytest

        from calc import clamp, divide


        def test_divide():
            assert divide(6, 3) == 2


        def test_clamp_high():
            assert clamp(9, 0, 5) == 5


        class TestBroken:
            @pytest.mark.parametrize("x", [1, 2])
            def test_wrong(self, x):
                assert clamp(x, 0, 5) == 0


        @pytest.fixture
        def broken():
            raise RuntimeError("fixture breaks")


        def test_fixture(broken):
            pass
        """,
}
CALC_IDS = (
    "tests/test_calc.py::test_divide",
    "tests/test_calc.py::test_clamp_high",
    "tests/test_calc.py::TestBroken::test_wrong[1]",
    "tests/test_calc.py::TestBroken::test_wrong[2]",
    "tests/test_calc.py::test_fixture",
)
CALC_EXPECTED = dict(zip(CALC_IDS, ["pass", "pass", "fail", "fail", "error"]))


def test_same_outcomes_as_the_local_backend(backend, tmp_path):
    snapshot = _world(tmp_path / "repo", CALC)
    fix = Patch("reference", textwrap.dedent("""\
        --- a/calc.py
        +++ b/calc.py
        @@ -7,6 +7,6 @@
         def clamp(x, lo, hi):
             if x < lo:
                 return lo
        -    if x > hi:
        +    if x >= hi:
                 return hi
             return x
        """))
    request = _request(snapshot, patches=(fix,), test_ids=CALC_IDS)
    docker_result = backend.run(request)
    local_result = LocalBackend(cache_dir=tmp_path / "local-cache").run(request)
    assert docker_result.status == "ok", docker_result.message
    assert docker_result.outcomes == CALC_EXPECTED
    assert local_result.outcomes == docker_result.outcomes
    assert docker_result.exit_code == local_result.exit_code == 1
    assert not docker_result.passed(CALC_IDS[:2]) and not local_result.passed(CALC_IDS[:2])
    assert _containers(backend, request.label) == []


def test_exit_code_overrides_an_all_pass_junit(backend, tmp_path):
    snapshot = _world(tmp_path / "repo", CALC)
    ids = CALC_IDS[:2]
    command = "python -m pytest -p no:cacheprovider -q --junitxml={junit} {tests}; exit 3"
    request = _request(snapshot, command=command, test_ids=ids)
    result = backend.run(request)
    assert result.status == "ok"
    assert result.exit_code == 3
    assert result.outcomes == {t: "error" for t in ids}
    assert "exited 3" in result.message
    assert not result.passed(ids)


def test_setup_runs_before_the_command_and_its_failure_is_reported(backend, tmp_path):
    snapshot = _world(tmp_path / "repo", {
        "test_setup.py": """\
            from pathlib import Path

            def test_marker():
                assert Path("marker.txt").read_text() == "ready\\n"
            """})
    ids = ("test_setup.py::test_marker",)
    ok = backend.run(_request(snapshot, setup="echo ready > marker.txt", test_ids=ids))
    assert ok.status == "ok" and ok.passed(ids), (ok.message, ok.stdout)
    failed = backend.run(_request(snapshot, setup="echo broken >&2; exit 4", test_ids=ids))
    assert failed.status == "setup_failed"
    assert failed.exit_code == 4 and "broken" in failed.stderr
    assert failed.outcomes == {ids[0]: "missing"}


def test_a_patch_that_does_not_apply(backend, tmp_path):
    snapshot = _world(tmp_path / "repo", CALC)
    bad = Patch("trial:t1", textwrap.dedent("""\
        --- a/calc.py
        +++ b/calc.py
        @@ -1,3 +1,3 @@
         def multiply(a, b):
        -    return a + b
        +    return a * b
        """))
    request = _request(snapshot, patches=(bad,), test_ids=CALC_IDS)
    result = backend.run(request)
    assert result.status == "patch_failed"
    assert "trial:t1" in result.message
    assert result.outcomes == {}


FOREVER = {
    "test_loop.py": """\
        def test_forever():
            while True:
                pass
        """}


def test_an_infinite_loop_is_killed_at_the_timeout_and_its_container_removed(backend, tmp_path):
    snapshot = _world(tmp_path / "repo", FOREVER)
    request = _request(snapshot, test_ids=("test_loop.py::test_forever",), timeout=4)
    result = backend.run(request)
    assert result.status == "timeout"
    assert "killed after 4s" in result.message
    assert 4 <= result.duration < 30
    assert _containers(backend, request.label) == []


@pytest.fixture
def loopback_server():
    """A TCP server on the host's loopback; yields its port and how many connections it took."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            accepted.append(conn)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    server.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
    server.close()
    thread.join(5)


def test_trial_code_has_no_network(backend, tmp_path, loopback_server):
    port, accepted = loopback_server
    snapshot = _world(tmp_path / "repo", {
        "test_net.py": f"""\
            import socket

            def test_only_loopback_interface():
                assert [name for _, name in socket.if_nameindex()] == ["lo"]

            def test_host_server_unreachable():
                socket.create_connection(("127.0.0.1", {port}), timeout=3).close()
            """})
    ids = ("test_net.py::test_only_loopback_interface", "test_net.py::test_host_server_unreachable")
    result = backend.run(_request(snapshot, test_ids=ids))
    assert result.status == "ok", result.message
    assert result.outcomes == {ids[0]: "pass", ids[1]: "fail"}
    assert "Connection refused" in result.stdout
    assert accepted == []
    # the server does answer on the host: the failure above is the container's isolation
    socket.create_connection(("127.0.0.1", port), timeout=3).close()


def test_a_fork_bomb_is_contained_by_the_pids_limit(backend, tmp_path):
    snapshot = _world(tmp_path / "repo", {
        "test_fork.py": """\
            import os
            import time

            def test_forks_until_refused():
                children = []
                try:
                    while len(children) < 2000:
                        pid = os.fork()
                        if pid == 0:
                            time.sleep(60)
                            os._exit(0)
                        children.append(pid)
                except OSError:
                    pass
                finally:
                    for pid in children:
                        os.kill(pid, 9)
                print("forked", len(children))
                assert 5 <= len(children) < 40
            """})
    ids = ("test_fork.py::test_forks_until_refused",)
    request = _request(snapshot, test_ids=ids, pids=40, timeout=60)
    result = backend.run(request)
    assert result.status == "ok", (result.message, result.stdout)
    assert result.passed(ids), result.stdout
    assert _containers(backend, request.label) == []


def test_a_shell_fork_bomb_is_refused_and_cleaned_up(backend, tmp_path):
    snapshot = _world(tmp_path / "repo", {"README": "nothing\n"})
    request = _request(snapshot, command="bomb() { bomb | bomb & }; bomb; wait", pids=64,
                       timeout=30)
    result = backend.run(request)
    assert result.status == "ok"  # it died out long before the timeout
    assert result.duration < 30
    assert "Cannot fork" in result.stderr
    assert _containers(backend, request.label) == []  # and the processes it left went with it


def test_output_is_bounded(backend, tmp_path):
    snapshot = _world(tmp_path / "repo", {"README": "nothing\n"})
    command = ("python -c \"import sys; sys.stdout.write('o' * 3000000); "
               "sys.stderr.write('e' * 3000000)\"")
    result = backend.run(_request(snapshot, command=command, max_output=1000))
    assert result.status == "ok"
    assert result.exit_code == 0
    assert result.stdout == "o" * 1000 and result.stderr == "e" * 1000
    assert result.truncated


def test_coverage_of_the_world_files(backend, tmp_path):
    snapshot = _world(tmp_path / "repo", CALC)
    ids = CALC_IDS[:2]
    request = _request(snapshot, test_ids=ids, coverage=True)
    result = backend.run(request)
    assert result.passed(ids), result.message
    calc = result.coverage["calc.py"]
    assert {2, 4, 8, 10, 11} <= set(calc["lines"])  # the branches the two tests take
    assert 3 not in calc["lines"] and 9 not in calc["lines"]  # the ones they do not
    assert [10, 11] in calc["arcs"] and [2, 4] in calc["arcs"]
    # keyed by the path in the world, as the local backend keys it; the tests' own files too
    assert set(result.coverage) == {"calc.py", "tests/__init__.py", "tests/test_calc.py"}


def test_coverage_of_a_runner_that_is_not_pytest(backend, tmp_path):
    # every Python process of the command is measured: here unittest in a child of the shell
    snapshot = _world(tmp_path / "repo", {"calc.py": CALC["calc.py"], "tests/__init__.py": "",
                                          "tests/test_u.py": """\
        import unittest

        from calc import clamp


        class T(unittest.TestCase):
            def test_high(self):
                self.assertEqual(clamp(9, 0, 5), 5)
        """})
    request = _request(snapshot, command="python -m unittest tests.test_u", coverage=True)
    result = backend.run(request)
    assert result.exit_code == 0, result.stderr
    calc = result.coverage["calc.py"]
    assert {8, 10, 11} <= set(calc["lines"]) and 9 not in calc["lines"]
    assert [10, 11] in calc["arcs"]


def test_memory_limit_kills_a_hog(backend, tmp_path):
    snapshot = _world(tmp_path / "repo", {
        "test_hog.py": """\
            def test_hog():
                blocks = []
                for _ in range(64):
                    blocks.append(bytearray(16 * 1024 * 1024))
            """})
    ids = ("test_hog.py::test_hog",)
    result = backend.run(_request(snapshot, test_ids=ids, memory_mb=200, timeout=60))
    assert not result.passed(ids)
    assert result.outcomes[ids[0]] in ("fail", "missing")


def test_world_is_the_only_writable_place(backend, tmp_path):
    snapshot = _world(tmp_path / "repo", {
        "test_fs.py": """\
            import os
            import pytest

            def test_cannot_write_system_files():
                with pytest.raises(OSError):
                    open("/usr/lib/python3/dist-packages/pytest/__init__.py", "a")

            def test_runs_as_tester():
                assert os.getuid() != 0

            def test_world_writable():
                with open("scratch.txt", "w") as fh:
                    fh.write("x")
            """})
    ids = ("test_fs.py::test_cannot_write_system_files", "test_fs.py::test_runs_as_tester",
           "test_fs.py::test_world_writable")
    result = backend.run(_request(snapshot, test_ids=ids))
    assert result.outcomes == {t: "pass" for t in ids}, result.stdout


def test_no_engine_gives_an_error_naming_the_fix(tmp_path):
    snapshot = _world(tmp_path / "repo", {"README": "x\n"})
    # an explicit API version: the client would otherwise ask the (absent) engine for one
    nowhere = docker.DockerClient(base_url=f"unix://{tmp_path / 'no-engine.sock'}", version="1.41")
    result = DockerBackend(client=nowhere).run(_request(snapshot))
    assert result.status == "error"
    assert "Docker engine is not reachable" in result.message
    assert ".ci/docker.sh" in result.message


def _wheel(directory: Path, name: str, version: str, code: str) -> Path:
    """A minimal pure-Python wheel, made here so pip needs no index."""
    import zipfile

    dist = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": code,
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{dist}/RECORD"] = "".join(f"{path},,\n" for path in [*files, f"{dist}/RECORD"])
    path = directory / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return path


def test_requirements_are_installed_once_and_visible_in_the_container(backend, tmp_path):
    wheel = _wheel(tmp_path, "tjdemo", "1.2.3", "ANSWER = 42\n")
    snapshot = _world(tmp_path / "repo", {
        "test_dep.py": """\
            import tjdemo

            def test_dep():
                assert tjdemo.ANSWER == 42
            """})
    ids = ("test_dep.py::test_dep",)
    result = backend.run(_request(snapshot, test_ids=ids, requirements=("--no-index", str(wheel))))
    assert result.passed(ids), (result.message, result.stdout)
    without = backend.run(_request(snapshot, test_ids=ids))
    assert without.outcomes == {ids[0]: "error"}  # the module is not in the image itself
    missing = backend.run(_request(snapshot, test_ids=ids,
                                   requirements=("--no-index", str(tmp_path / "absent.whl"))))
    assert missing.status == "setup_failed"
    assert "pip install" in missing.message


RUN_ONE = """
import pickle, sys
from testjack_tui.worlds.docker_backend import DockerBackend
request = pickle.loads(open(sys.argv[1], "rb").read())
DockerBackend(cache_dir=sys.argv[2]).run(request)
"""


@pytest.mark.slow
def test_a_killed_audit_leaves_no_container_behind(backend, tmp_path):
    import pickle
    import signal
    import subprocess
    import sys
    import time

    from testjack_tui.worlds.container_lifetime import OWNER_LABEL, owner, reap_orphans

    snapshot = _world(tmp_path / "repo", FOREVER)
    request = _request(snapshot, test_ids=("test_loop.py::test_forever",), timeout=5)
    (tmp_path / "request.pickle").write_bytes(pickle.dumps(request))
    (tmp_path / "run_one.py").write_text(RUN_ONE)
    client = backend.client()
    # a container of a live owner (this process) must survive every clean-up below
    bystander = client.containers.create("testjack/base:bookworm", ["true"],
                                         labels={OWNER_LABEL: owner(), "org.testjack.run": request.label})
    events = client.events(decode=True, since=int(time.time()), until=int(time.time()) + 120,
                           filters={"label": f"org.testjack.run={request.label}", "event": "exec_start"})
    runner = subprocess.Popen([sys.executable, str(tmp_path / "run_one.py"), str(tmp_path / "request.pickle"),
                               str(tmp_path / "cache")])
    try:
        assert next(events, None) is not None, "the world's test never started"
        runner.send_signal(signal.SIGKILL)  # no finally, no handler: the audit just dies
        runner.wait()
        orphan, = [c for c in _containers(backend, request.label) if c.id != bystander.id]
        # nobody kills it: it stops by itself once the request's time limit is well past
        orphan.wait(timeout=60)
        orphan.reload()
        assert orphan.status == "exited"
        # and the next docker request of any process removes it
        assert reap_orphans(client, force=True) >= 1
        assert [c.id for c in _containers(backend, request.label)] == [bystander.id]
    finally:
        events.close()
        runner.kill()
        for container in _containers(backend, request.label):
            container.remove(force=True, v=True)
