"""The runner's own record of a witness run (report_pipe.confirm) against its JUnit outcomes."""

from testjack_tui.worlds.report_pipe import UNCONFIRMED, confirm

W = "tests/test_0123456789ab.py"
RAN = f"start\ncollected 2\nsetup passed {W}::test_a\ncall passed {W}::test_a\nsetup passed {W}::test_b\n" \
      f"call passed {W}::test_b\nexit 0\n"


def test_a_pass_the_record_bears_out_stays_a_pass():
    assert confirm({W: "pass"}, RAN, 0, {W: 2}) == ({W: "pass"}, "")
    # pytest names files from its rootdir, which may be below the world's root
    assert confirm({f"pkg/{W}": "pass"}, RAN, 0, {f"pkg/{W}": 2})[0] == {f"pkg/{W}": "pass"}


def test_a_report_rewritten_after_the_tests_is_no_result():
    failed = RAN.replace(f"call passed {W}::test_b", f"call failed {W}::test_b").replace("exit 0", "exit 1")
    outcomes, note = confirm({W: "pass"}, failed, 0, {W: 2})  # the XML says pass, the process exited 0
    assert outcomes == {W: "error"} and UNCONFIRMED in note and "exit status was 1" in note
    # fewer tests than the file defines, or a record that stops before pytest's end
    assert confirm({W: "pass"}, RAN, 0, {W: 3})[0] == {W: "error"}
    assert confirm({W: "pass"}, RAN.replace("exit 0\n", ""), 0, {W: 2})[0] == {W: "error"}


def test_node_ids_are_confirmed_too_and_an_unloaded_plugin_changes_nothing():
    node = f"{W}::test_a"
    assert confirm({node: "pass"}, RAN, 0, {}) == ({node: "pass"}, "")
    assert confirm({f"{W}::test_c": "pass"}, RAN, 0, {})[0] == {f"{W}::test_c": "error"}
    assert confirm({W: "pass"}, "", 0, {W: 2}) == ({W: "pass"}, "")


def test_a_witness_run_whose_record_never_started_is_no_result():
    # the plugin was kept out (a sitecustomize.py dropping PYTEST_PLUGINS): the XML alone is not
    # enough for a witness, which passed on the reference with its record
    outcomes, note = confirm({W: "pass", "tests/test_other.py": "fail"}, "", 0, {W: 2}, must_start=True)
    assert outcomes == {W: "error", "tests/test_other.py": "fail"} and "record is empty" in note


def test_an_end_written_after_pytest_s_own_is_no_result():
    # pytest ended with 1; an exit hook appends "exit 0" and exits 0 with a rewritten XML
    failed = RAN.replace(f"call passed {W}::test_b", f"call failed {W}::test_b").replace("exit 0", "exit 1")
    outcomes, note = confirm({W: "pass"}, failed.replace(f"call failed {W}::test_b\n", "") + "exit 0\n", 0, {W: 1})
    assert outcomes == {W: "error"} and "ends more than once" in note
