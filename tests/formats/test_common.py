"""The importers' shared helpers: patches git accepts, records read with bad lines named."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from testjack_tui.formats import ImportError_, ImportProblem, tree_digest
from testjack_tui.formats._common import as_list, dir_diff, read_records, text_file_diff, write_snapshot
from worldkit import git_apply

lines = st.lists(st.sampled_from(["a", "b", "--x", "++y", "", " c", "\td", "\\ e"]), max_size=8)


def as_text(parts: list[str], final_newline: bool) -> str:
    text = "\n".join(parts)
    return text + "\n" if final_newline and parts else text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(old=lines, new=lines, old_nl=st.booleans(), new_nl=st.booleans())
def test_git_apply_turns_old_into_new(tmp_path_factory, old, new, old_nl, new_nl):
    root = tmp_path_factory.mktemp("w")
    before, after = as_text(old, old_nl), as_text(new, new_nl)
    (root / "f.txt").write_text(before)
    patch = text_file_diff("f.txt", before, after)
    if before == after:
        assert patch == ""
        return
    done = git_apply(root, patch)
    assert done.returncode == 0, done.stderr + patch
    assert (root / "f.txt").read_text() == after


def test_created_and_deleted_files_including_empty_ones(tmp_path):
    (tmp_path / "gone.py").write_text("x = 1\n")
    (tmp_path / "empty_gone").write_text("")
    patch = (
        text_file_diff("pkg/new.py", None, "y = 2")
        + text_file_diff("gone.py", "x = 1\n", None)
        + text_file_diff("empty_new", None, "")
        + text_file_diff("empty_gone", "", None)
    )
    assert git_apply(tmp_path, patch).returncode == 0
    assert (tmp_path / "pkg" / "new.py").read_text() == "y = 2"
    assert not (tmp_path / "gone.py").exists() and not (tmp_path / "empty_gone").exists()
    assert (tmp_path / "empty_new").read_text() == ""


def test_dir_diff_recreates_the_new_tree_with_modes(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    (old / "d").mkdir(parents=True)
    (new / "d").mkdir(parents=True)
    (old / "keep.txt").write_text("same\n")
    (new / "keep.txt").write_text("same\n")
    (old / "d" / "a.txt").write_text("one\n")
    (new / "d" / "b.sh").write_text("echo hi\n")
    (new / "d" / "b.sh").chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    (work / "keep.txt").write_text("same\n")
    (work / "d").mkdir()
    (work / "d" / "a.txt").write_text("one\n")
    assert git_apply(work, dir_diff(old, new)).returncode == 0
    assert tree_digest(work) == tree_digest(new)
    (new / "blob.bin").write_bytes(b"\xff\x00\xfe")
    with pytest.raises(ValueError, match="blob.bin is not UTF-8"):
        dir_diff(old, new)


def test_read_records_names_bad_lines_and_reads_every_shape(tmp_path):
    jl = tmp_path / "rows.jsonl"
    jl.write_text('{"a": 1}\n\n[1, 2]\n{oops\n{"a": 2}\n')
    got = list(read_records(jl))
    assert [w for w, _ in got] == ["line 1", "line 3", "line 4", "line 5"]
    assert isinstance(got[1][1], ImportProblem) and got[1][1].message == "not a JSON object"
    assert isinstance(got[2][1], ImportProblem) and "not valid JSON" in got[2][1].message
    gz = tmp_path / "rows.jsonl.gz"
    with gzip.open(gz, "wt") as fh:
        fh.write('{"a": 3}\n')
    assert list(read_records(gz)) == [("line 1", {"a": 3})]
    keyed = tmp_path / "preds.json"
    keyed.write_text(json.dumps({"x-1": {"model_patch": ""}}))
    assert list(read_records(keyed, key_field="instance_id")) == [
        ("instance x-1", {"instance_id": "x-1", "model_patch": ""})
    ]
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(b"not gzip")
    with pytest.raises(ImportError_, match="broken.jsonl.gz: cannot read"):
        list(read_records(broken))


def test_snapshots_are_new_directories_with_their_digest(tmp_path):
    one = write_snapshot(tmp_path, {"a.py": "x\n"})
    two = write_snapshot(tmp_path, {"a.py": "x\n"})
    assert one[0] != two[0] and one[1] == two[1] == tree_digest(one[0])


def test_as_list_accepts_lists_and_json_strings():
    assert as_list('["a", "b"]') == ["a", "b"]
    assert as_list(["t (m.C)"]) == ["t (m.C)"]
    assert as_list("") == [] and as_list(None) == []
    assert as_list("not json") is None and as_list([1]) is None
