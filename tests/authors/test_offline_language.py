"""The offline author reads Python only, and says so for a task whose code is another language's."""

from __future__ import annotations

import pytest

from testjack_tui.authors.base import AuthorContext, AuthorFailed
from testjack_tui.authors.offline.author import OfflineAuthor
from testjack_tui.authors.offline.language import unread_language
from testjack_tui.model import Task
from testjack_tui.model import TestSpec as Spec


def _task(*paths: str) -> Task:
    patch = "".join(f"diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-a\n+b\n" for p in paths)
    return Task(run_id="r", id="t-1", title="t", prompt="p", snapshot="/nowhere", snapshot_digest="d",
                reference_patch=patch, test_patch="", tests=Spec(command="true"))


def test_a_go_or_typescript_task_gets_a_reason_naming_its_languages():
    why = unread_language(_task("server/handler.go", "web/src/app.ts", "README.md"))
    assert why.startswith("the offline author reads Python only: the reference patch of t-1 changes Go and TypeScript code")
    assert "writes no witness for this task" in why


@pytest.mark.parametrize("paths", [("pkg/mod.py", "web/app.js"), ("solution/solve.sh",), ("docs/index.md",)])
def test_python_code_or_no_known_source_language_leaves_the_author_as_it_was(paths):
    assert unread_language(_task(*paths)) == ""


def test_the_author_raises_the_reason_so_the_engine_records_it():
    ctx = AuthorContext(task=_task("lib/slug.js"), trial=None)
    with pytest.raises(AuthorFailed, match="JavaScript"):
        OfflineAuthor().analyse_task(ctx)
    with pytest.raises(AuthorFailed, match="JavaScript"):
        OfflineAuthor().requirements(ctx)
