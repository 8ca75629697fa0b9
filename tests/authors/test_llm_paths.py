"""The LLM author's tools stay inside the world: the model asks for host files through every tool
that takes a path (absolute, ``..``, a link in the snapshot to a file or a folder outside) and gets
a refusal, never the file. The real agent loop talks to the scripted server on loopback; nothing is
executed."""

from __future__ import annotations

import json
import os
from pathlib import Path

from scripted_server import make, tool_call, tool_calls

from testjack_tui.authors.llm.agent import AUDIT_TOOLS, Session
from test_llm_bounds import context

SECRET = "HOST-SECRET-36"


def test_host_files_never_reach_the_model_or_the_transcripts(server, store, tmp_path):
    author = make(server)
    ctx = context(store, author)
    snapshot = Path(ctx.task.snapshot)
    (tmp_path / "secret.txt").write_text(SECRET + "\n")
    os.symlink(tmp_path / "secret.txt", snapshot / "leak.txt")
    os.symlink(tmp_path, snapshot / "outside")
    climb = os.path.relpath(tmp_path / "secret.txt", snapshot)  # ../../../secret.txt
    assert climb.startswith("..")
    hostname = Path("/etc/hostname").read_text().strip() if Path("/etc/hostname").exists() else ""
    hostile = [
        ("read_file", {"world": "model", "path": str(tmp_path / "secret.txt")}),
        ("read_file", {"world": "model", "path": climb}),
        ("read_file", {"world": "reference", "path": "leak.txt"}),
        ("read_file", {"world": "null", "path": "outside/secret.txt"}),
        ("read_file", {"world": "model", "path": "/etc/hostname"}),
        ("read_file", {"world": "model", "path": "../../../../../../../../etc/hostname"}),
        ("run_test", {"world": "null", "code": "def test_x():\n    pass\n", "path": "outside/test_x.py"}),
        ("propose_witness", {"requirement": "r", "kind": "explicit", "code": "def test_x():\n    pass\n",
                             "path": "/tmp/test_x.py"}),
    ]
    server.script(
        tool_calls(*hostile),
        tool_calls(("search", {"world": "model", "pattern": "HOST-SECRET"}),
                   ("read_file", {"world": "null", "path": "README.md"})),
        tool_call("finish", {"report": "done"}),
    )
    result = Session(author.client, ctx, "audit", "go", AUDIT_TOOLS).run()
    assert result.report == "done" and result.candidates == []
    answers = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    refusals, (searched, readme) = answers[:len(hostile)], answers[len(hostile):]
    assert all(a.startswith("error: refused:") and "it was not read" in a for a in refusals), refusals
    assert "is an absolute path, not one inside the model world" in refusals[0]
    assert "climbs out of the model world with '..'" in refusals[1]
    assert "leads out of the reference world through a symbolic link" in refusals[2]
    assert "leads out of the null world through a symbolic link" in refusals[3]
    assert searched == "no match"
    assert (snapshot / "README.md").read_text().splitlines()[0] in readme  # ordinary paths still work
    stored = "".join(c.transcript for c in store.list_llm_calls("mini"))
    sent = json.dumps(server.requests)
    for leaked in [SECRET] + ([hostname] if len(hostname) >= 6 else []):
        assert leaked not in sent and leaked not in stored
    assert not list(tmp_path.glob("test_x.py")) and not Path("/tmp/test_x.py").exists()
