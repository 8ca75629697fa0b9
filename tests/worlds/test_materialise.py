"""Worlds are made from the snapshot, patched in order, and never change the snapshot."""

from __future__ import annotations

import os

import pytest

from testjack_tui.worlds.materialise import PatchFailed, materialise_world
from testjack_tui.worlds.request import Patch

CALC = "".join(f"line {i}\n" for i in range(1, 21))


def _diff(path: str, old: list[str], new: list[str], start: int) -> str:
    body = "".join(f"-{o}\n" for o in old) + "".join(f"+{n}\n" for n in new)
    return (f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
            f"@@ -{start},{len(old)} +{start},{len(new)} @@\n{body}")


def _context_diff(path: str, before: str, old: str, new: str, after: str, start: int) -> str:
    return (f"--- a/{path}\n+++ b/{path}\n@@ -{start},3 +{start},3 @@\n"
            f" {before}\n-{old}\n+{new}\n {after}\n")


def test_patches_apply_in_order_then_extra_and_removed_files(make_request, tmp_path, cache_dir):
    request = make_request(
        {"calc.txt": CALC, "conftest.py": "raise SystemExit('trial conftest')\n"},
        patches=(Patch("reference", _diff("calc.txt", ["line 5"], ["five"], 5)),
                 Patch("tests", _diff("calc.txt", ["five"], ["FIVE"], 5))),
        extra_files=(("tests/test_new.py", "def test_x():\n    pass\n"),),
        remove_files=("conftest.py",))
    world = tmp_path / "world"
    materialise_world(request, world, cache_dir=cache_dir)
    assert (world / "calc.txt").read_text().splitlines()[4] == "FIVE"
    assert (world / "tests/test_new.py").exists()
    assert not (world / "conftest.py").exists()
    snap = tmp_path / "repo0"
    assert (snap / "calc.txt").read_text() == CALC and (snap / "conftest.py").exists()


def test_fuzzy_patch_falls_back_to_patch_fuzz(make_request, tmp_path, cache_dir):
    # the context line was edited since the diff was made: git apply refuses, patch --fuzz takes it
    diff = _context_diff("calc.txt", "line 4 (old)", "line 5", "five", "line 6", 4)
    request = make_request({"calc.txt": CALC}, patches=(Patch("trial:t1", diff),))
    world = tmp_path / "world"
    materialise_world(request, world, cache_dir=cache_dir)
    assert (world / "calc.txt").read_text().splitlines()[4] == "five"
    assert not list(world.glob("*.rej")) and not list(world.glob("*.orig"))


def test_patch_failed_names_patch_file_and_hunk(make_request, tmp_path, cache_dir):
    good = _diff("calc.txt", ["line 2"], ["two"], 2)
    bad = _diff("calc.txt", ["no such line"], ["x"], 9)
    request = make_request({"calc.txt": CALC}, patches=(Patch("trial:t9", good + bad[bad.index("@@"):]),))
    with pytest.raises(PatchFailed) as info:
        materialise_world(request, tmp_path / "world", cache_dir=cache_dir)
    message = str(info.value)
    assert "trial:t9" in message and "calc.txt" in message
    assert "Hunk #2" in message or "hunk #2" in message.lower()


def test_patched_files_get_their_own_inode(make_request, tmp_path, cache_dir, snapshot_state):
    request = make_request({"calc.txt": CALC, "other.txt": "same\n"},
                           patches=(Patch("reference", _diff("calc.txt", ["line 1"], ["one"], 1)),))
    before = snapshot_state(tmp_path / "repo0")
    world = tmp_path / "world"
    materialise_world(request, world, cache_dir=cache_dir)
    assert os.stat(world / "calc.txt").st_nlink == 1
    if os.geteuid() == 0:  # untouched files are shared with the pristine tree, read-only
        assert os.stat(world / "other.txt").st_nlink > 1
        assert not os.stat(world / "other.txt").st_mode & 0o222
    assert snapshot_state(tmp_path / "repo0") == before


def test_a_path_leaving_the_world_is_refused(make_request, tmp_path, cache_dir):
    request = make_request({"a.txt": "a\n"}, extra_files=(("../escape.txt", "x"),))
    with pytest.raises(ValueError, match="leaves the world"):
        materialise_world(request, tmp_path / "world", cache_dir=cache_dir)
    assert not (tmp_path / "escape.txt").exists()


def test_a_file_written_through_a_linked_folder_out_of_the_world_is_refused(make_request, tmp_path, cache_dir):
    # a trial's patch (or a snapshot) can hold a link to a folder of the host; the LLM author's
    # probe written under it would land on the host
    outside = tmp_path / "host"
    outside.mkdir()
    patch = ("diff --git a/out b/out\nnew file mode 120000\n--- /dev/null\n+++ b/out\n"
             f"@@ -0,0 +1 @@\n+{outside}\n\\ No newline at end of file\n")
    request = make_request({"a.txt": "a\n"}, patches=(Patch("trial:t1", patch),),
                           extra_files=(("out/test_probe.py", "x"),))
    with pytest.raises(ValueError, match="leaves the world.*symbolic link"):
        materialise_world(request, tmp_path / "world", cache_dir=cache_dir)
    assert list(outside.iterdir()) == []
