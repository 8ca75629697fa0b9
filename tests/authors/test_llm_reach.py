"""The agent's reach (issue 39, item 5): a command run in a world, and a test run with coverage that
says which lines of the trial's patch it reached; both real executions on the mini sample's
worlds (local backend), cached like any other."""

from __future__ import annotations

import pytest
from scripted_server import make, tool_call
from test_llm_client import context

from testjack_tui.authors.llm.agent import AUDIT_TOOLS, Session

pytestmark = pytest.mark.slow

EVEN = "import listkit\n\n\ndef test_even():\n    assert listkit.chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]\n"
PROBE = "python -c 'import listkit; print(listkit.chunk([7, 8, 9], 2))'"


def answers(server) -> list[str]:
    return [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool"]


def test_a_command_shows_the_trial_hard_coding_its_example_and_runs_once(server, store):
    author = make(server)
    ctx = context(store, author, "chunk-t3")
    server.script(tool_call("run_command", {"world": "model", "command": PROBE}),
                  tool_call("run_command", {"world": "reference", "command": PROBE}),
                  tool_call("run_command", {"world": "model", "command": PROBE}),
                  tool_call("finish", {"report": "hard-coded"}))
    executions = len(store.db.execute("SELECT key FROM executions").fetchall())
    Session(author.client, ctx, "audit", "go", AUDIT_TOOLS).run()
    model, reference, again = answers(server)
    assert model.startswith("exit code 0 on the model world") and "[[1, 2], [3, 4], [5]]" in model
    assert reference.startswith("exit code 0 on the reference world") and "[[7, 8], [9]]" in reference
    assert again == model
    assert len(store.db.execute("SELECT key FROM executions").fetchall()) == executions + 2  # the repeat is cached


def test_coverage_names_the_lines_of_the_patch_a_test_reached(server, store):
    author = make(server)
    ctx = context(store, author, "chunk-t3")
    server.script(tool_call("coverage", {"code": EVEN}), tool_call("finish", {"report": "the branch is unreached"}))
    Session(author.client, ctx, "audit", "go", AUDIT_TOOLS).run()
    (said,) = answers(server)
    assert said.splitlines()[:2] == ["outcome on the model world: pass", "lines the trial's patch adds:"]
    chunk = next(line for line in said.splitlines() if line.startswith("listkit/chunk.py"))
    assert chunk == "listkit/chunk.py: reached 1, 4-5, 7-8, 10; not reached 6, 9"  # 9: the hard-coded return
