"""Issue 36 on the docker backend, against a real engine: a trial that forges its JUnit report, looks
for TestJack's name, or fills its disk. (The same audit on both backends: tests/audit/test_dodging_trials.py.)
"""

from __future__ import annotations

import pytest

from testjack_tui.worlds.docker_backend import DockerBackend
from testjack_tui.worlds.report_pipe import UNCONFIRMED
from testjack_tui.worlds.world_volume import DISK_VARIABLE

pytestmark = pytest.mark.docker

T0 = {"tests/__init__.py": "", "tests/test_add.py": "from addkit import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"}
FORGE_AT_EXIT = (  # rewrites the JUnit XML as all-pass once pytest has written it, and exits 0
    "import atexit, os, re, sys\n\n\n"
    "def _forge():\n"
    "    for arg in sys.argv:\n"
    '        if arg.startswith("--junitxml="):\n'
    '            path = arg.split("=", 1)[1]\n'
    '            text = re.sub(r"<failure.*?</failure>", "", open(path).read(), flags=re.S)\n'
    '            open(path, "w").write(re.sub(r\'failures="\\d+"\', \'failures="0"\', text))\n'
    "    os._exit(0)\n\n\n"
    "atexit.register(_forge)\n\n\n")
RIGHT = "def add(a, b):\n    return a + b\n"
WITNESS = "tests/test_0a1b2c3d4e5f.py"  # named as audit.validation names witnesses
WITNESS_CODE = ("from addkit import add\n\n\ndef test_negative():\n    assert add(-1, 7) == 6\n\n\n"
                "def test_large():\n    assert add(10, 20) == 30\n")

GREEDY = ("def _fill():\n"  # at import: fill the world's disk to the last byte and leave it so
          "    with open('ballast', 'wb', buffering=0) as fh:\n"
          "        for size in (2**20, 4096, 1):\n"
          "            try:\n"
          "                while True:\n"
          "                    fh.write(b'x' * size)\n"
          "            except OSError:\n"
          "                pass\n\n\n"
          "_fill()\n\n\ndef test_nothing():\n    pass\n")


@pytest.fixture(scope="module")
def backend(engine, tmp_path_factory) -> DockerBackend:
    # a cache under a path that names TestJack, as ~/.cache/testjack does
    return DockerBackend(cache_dir=tmp_path_factory.mktemp("testjack-cache"))


def _witness_run(make_request, addkit: str, code: str = WITNESS_CODE, **fields):
    return make_request({**T0, "addkit.py": addkit}, extra_files=((WITNESS, code),),
                        test_ids=(WITNESS,), **fields)


def test_a_witness_report_rewritten_at_exit_is_no_result_and_an_honest_pass_stays_a_pass(backend, make_request):
    honest = backend.run(_witness_run(make_request, RIGHT))
    assert honest.outcomes == {WITNESS: "pass"} and honest.message == "", honest.message
    wrong = "def add(a, b):\n    return abs(a) + b\n"
    assert backend.run(_witness_run(make_request, wrong)).outcomes == {WITNESS: "fail"}
    forged = backend.run(_witness_run(make_request, FORGE_AT_EXIT + wrong))
    assert forged.status == "ok" and forged.exit_code == 0  # the forge did its work on the XML...
    assert forged.outcomes == {WITNESS: "error"}  # ...and the runner's record gives it away
    assert UNCONFIRMED in forged.message


def test_a_confirmed_t0_run_sees_through_a_rewritten_report(backend, make_request):
    # wrong everywhere, T0 included: T0 passes only through the report the exit hook rewrites
    forger = {**T0, "addkit.py": FORGE_AT_EXIT + "def add(a, b):\n    return a - b\n"}
    ids = ("tests/test_add.py::test_add",)
    assert backend.run(make_request(forger, test_ids=ids)).outcomes == {ids[0]: "pass"}
    confirmed = backend.run(make_request(forger, test_ids=ids, confirm=True))
    assert confirmed.outcomes == {ids[0]: "error"} and UNCONFIRMED in confirmed.message


def test_the_command_sees_no_path_or_name_that_says_testjack(backend, make_request):
    look = ("import os, sys\n\n\ndef test_unnamed():\n"
            "    said = [' '.join(sys.argv), os.getcwd(), *(f'{k}={v}' for k, v in os.environ.items()),\n"
            "            open('/proc/self/mountinfo').read(), ' '.join(os.listdir('/'))]\n"
            "    assert not [s for s in said if 'testjack' in s.lower()], said\n"
            # the report plugin is loaded all the same, by a name and from a path that say nothing
            "    assert os.environ['PYTEST_PLUGINS'] in sys.modules\n")
    result = backend.run(_witness_run(make_request, RIGHT, code=look))
    assert result.outcomes == {WITNESS: "pass"}, result.stdout


def test_a_trial_that_fills_its_disk_runs_out_of_space_and_the_run_gives_its_result(
        engine, make_request, tmp_path, monkeypatch):
    monkeypatch.setenv(DISK_VARIABLE, "32")
    backend = DockerBackend(cache_dir=tmp_path / "cache")
    fill = ("import errno, os\n\n\ndef test_fill():\n"
            "    written = 0\n"
            "    try:\n"
            "        with open('ballast', 'wb') as fh:\n"
            "            while written < 512 * 2**20:  # 512 MiB, far past the bound\n"
            "                fh.write(b'x' * 2**20)\n"
            "                fh.flush()\n"
            "                written += 2**20\n"
            "    except OSError as exc:\n"
            "        assert exc.errno in (errno.ENOSPC, errno.EFBIG), exc\n"
            "    os.remove('ballast')  # room again for pytest's report\n"
            "    assert written <= 32 * 2**20, written\n")
    result = backend.run(_witness_run(make_request, RIGHT, code=fill))
    assert result.status == "ok" and result.outcomes == {WITNESS: "pass"}, result.stdout
    # a trial that leaves its disk full: pytest cannot write its report, and the run still ends
    full = backend.run(_witness_run(make_request, RIGHT, code=GREEDY))
    assert full.status == "ok" and full.outcomes[WITNESS] != "pass", full.stdout

def test_a_disk_bound_that_is_not_a_number_is_an_error_naming_the_setting(engine, make_request, tmp_path, monkeypatch):
    monkeypatch.setenv(DISK_VARIABLE, "lots")
    result = DockerBackend(cache_dir=tmp_path / "cache").run(_witness_run(make_request, RIGHT))
    assert result.status == "error" and DISK_VARIABLE in result.message and "MiB" in result.message


def test_the_runners_record_cannot_be_read_or_its_plugin_replaced_from_inside(backend, make_request):
    # the plugin's directory is the last entry of PYTHONPATH: a trial can find it, and do nothing there
    probe = ("import os, stat\n\nimport pytest\n\n\ndef test_channel():\n"
             "    channel = os.environ['PYTHONPATH'].split(':')[-1]\n"
             "    kinds = []\n"
             "    for name in os.listdir(channel):\n"
             "        path = os.path.join(channel, name)\n"
             "        if stat.S_ISFIFO(os.stat(path).st_mode):\n"
             "            kinds.append('fifo')\n"
             "            with pytest.raises(PermissionError):  # nobody inside swallows its lines\n"
             "                open(path, 'rb')\n"
             "        else:\n"
             "            kinds.append('file')\n"
             "            with pytest.raises(OSError):  # read-only\n"
             "                open(path, 'a')\n"
             "    with pytest.raises(OSError):\n"
             "        open(os.path.join(channel, 'sitecustomize.py'), 'w')\n"
             "    assert sorted(kinds) == ['fifo', 'file']\n")
    result = backend.run(_witness_run(make_request, RIGHT, code=probe))
    assert result.outcomes == {WITNESS: "pass"}, result.stdout
