"""The one reader of the files a diff touches, on the diffs where the old copies disagreed."""

import pytest

from testjack_tui.patches import UnreadablePatch, file_paths, read_patch, touched_paths

from .patches import diff

RENAME = """diff --git a/old.py b/new.py
similarity index 90%
rename from old.py
rename to new.py
--- a/old.py
+++ b/new.py
@@ -1,2 +1,2 @@
 x = 1
-y = 2
+y = 3
"""

REMOVAL = """diff --git a/gone.py b/gone.py
deleted file mode 100644
--- a/gone.py
+++ /dev/null
@@ -1,1 +0,0 @@
-x = 1
"""

# no ``diff --git`` header: what ``diff -u`` and many tools write
PLAIN = """--- a/pkg/mod.py
+++ b/pkg/mod.py
@@ -1,2 +1,3 @@
 def f():
+    # new
     return 1
"""


def test_a_changed_file_names_the_lines_it_adds_after_the_patch():
    [changed] = read_patch(diff("pkg/mod.py", "a = 1\nb = 2\nc = 3\n", "a = 1\nB = 2\nc = 3\nd = 4\n"))
    assert (changed.path, changed.source, changed.target) == ("pkg/mod.py", "pkg/mod.py", "pkg/mod.py")
    assert changed.added == {2: "B = 2", 4: "d = 4"}
    assert changed.removed == ("b = 2",)
    assert not changed.is_added and not changed.is_removed


def test_a_new_file_has_no_source_and_a_removed_file_no_target():
    [new] = read_patch(diff("tests/test_new.py", "", "def test_x():\n    pass\n"))
    assert (new.source, new.target, new.path, new.is_added) == (None, "tests/test_new.py", "tests/test_new.py", True)
    [gone] = read_patch(REMOVAL)
    assert (gone.source, gone.target, gone.path, gone.is_removed) == ("gone.py", None, "gone.py", True)


def test_a_rename_is_known_by_its_new_name_and_touches_both():
    assert file_paths(RENAME) == ["new.py"]
    assert touched_paths(RENAME) == ["old.py", "new.py"]


def test_a_folder_named_a_keeps_its_name():
    # only one ``a/``/``b/`` prefix goes: the evidence's reader used to drop a second one
    assert file_paths(diff("a/x.py", "x = 1\n", "x = 2\n")) == ["a/x.py"]


def test_a_path_with_a_space_is_read_whole():
    # the ``diff --git a/.* b/(\S+)$`` pattern of placement and the SWE-bench importer missed it
    assert file_paths(diff("my dir/test_x.py", "", "x = 1\n")) == ["my dir/test_x.py"]


def test_a_diff_without_git_headers_still_names_its_files():
    # placement and the SWE-bench importer read only ``diff --git`` lines and saw no file here
    assert file_paths(PLAIN) == ["pkg/mod.py"]
    assert read_patch(PLAIN)[0].added == {2: "    # new"}


def test_a_blank_line_between_files_is_not_part_of_either():
    two = diff("a.py", "x = 1\n", "x = 2\n") + "\n" + diff("b.py", "y = 1\n", "y = 2\n")
    first, second = read_patch(two)
    assert first.hunks[-1].new == ["x = 2\n"]
    assert [f.path for f in (first, second)] == ["a.py", "b.py"]


def test_an_unreadable_diff_has_no_files_but_its_headers_still_name_paths():
    broken = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,5 +1,5 @@\n-x\n+y\n"
    assert read_patch(broken) == [] and file_paths(broken) == ["x.py"]
    with pytest.raises(UnreadablePatch):
        read_patch(broken, strict=True)
    assert touched_paths(broken) == ["x.py"]  # what a world must protect before the tools run
    assert read_patch("") == [] and read_patch("   \n") == []


def test_the_files_of_a_diff_unidiff_cannot_read_come_from_its_headers():
    # a hunk that claims more lines than it has: unidiff refuses it, git apply may not
    broken = "diff --git a/tests/test_x.py b/tests/test_x.py\n--- a/tests/test_x.py\n+++ b/tests/test_x.py\n@@ -1,5 +1,5 @@\n-a\n+b\n"
    assert file_paths(broken) == ["tests/test_x.py"]
