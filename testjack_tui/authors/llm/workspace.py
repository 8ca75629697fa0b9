"""What the agent's tools do: look at the three worlds, the diffs and the evidence, run tests.

Worlds are never materialised to be *read*: a file is R's file with the world's patches applied in
memory (``AuthorContext.read_file``); the listing is R's files plus those the patches add, minus
those they delete. Running a test, a command (``run_command``: the paper's shell in the task's environment) or a test
with coverage (``coverage``: which lines of the trial's patch it reached) goes through the engine's
executor like any other execution (``world_request`` + ``execute``), so it is cached, bounded and
sandboxed the same way, and counted in ``runs``.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import replace
from pathlib import Path

from testjack_tui.authors.base import AuthorContext
from testjack_tui.model import Outcome
from testjack_tui.patches import file_paths, read_patch
from testjack_tui.paths import path_inside
from testjack_tui.worlds.request import STATUS_OK

OUTPUT_LIMIT = 6000  # characters of test output shown to the model
SEARCH_LIMIT = 60  # matching lines returned by one search
SKIP_DIRS = {".git", "__pycache__", ".pytest_cache", "node_modules", ".venv", ".tox"}


class Workspace:
    def __init__(self, ctx: AuthorContext):
        self.ctx = ctx
        self.test_runs = 0
        self.runs = 0  # executions of every kind: tests, commands, coverage runs

    # -------------------------------------------------------------- worlds

    def worlds(self) -> list[str]:
        return ["null", "reference"] + (["model"] if self.ctx.trial else [])

    def _check_world(self, world: str) -> None:
        if world not in self.worlds():
            raise ValueError(f"there is no {world} world here (worlds: {', '.join(self.worlds())})")

    def _patches(self, world: str) -> list[str]:
        task = self.ctx.task
        out = [task.test_patch]
        if world == "reference":
            out.append(task.reference_patch)
        elif world == "model" and self.ctx.trial:
            out.append(self.ctx.trial.patch)
        return out

    def files(self, world: str) -> list[str]:
        self._check_world(world)
        root = Path(self.ctx.task.snapshot)
        found: set[str] = set()
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in filenames:
                found.add((Path(dirpath) / name).relative_to(root).as_posix())
        for patch in self._patches(world):
            for path in file_paths(patch):
                try:
                    text = self.read(world, path)
                except ValueError:  # a patch naming a path outside the world: not listed
                    text = None
                if text is None:
                    found.discard(path)
                else:
                    found.add(path)
        return sorted(found)

    def inside(self, world: str, path: str) -> str:
        """``path`` when it stays inside the world; else ValueError, the tool's answer to the model.

        Every tool that takes a path goes through here: the model may ask for ``/etc/shadow``,
        ``../../etc/hostname`` or a link out of the snapshot, and must get none of the host's files.
        """
        path = path.removeprefix("./")
        try:
            path_inside(Path(self.ctx.task.snapshot), path, shown=f"the {world} world")
        except ValueError as exc:
            raise ValueError(f"refused: {exc}; it was not read") from exc
        return path

    def read(self, world: str, path: str) -> str | None:
        path = self.inside(world, path)
        if self.ctx.read_file is None:
            return None
        return self.ctx.read_file(world, path)

    # -------------------------------------------------------------- tools

    def list_files(self, world: str, folder: str = "") -> str:
        prefix = folder.strip("/")
        paths = [p for p in self.files(world) if not prefix or p == prefix or p.startswith(prefix + "/")]
        return "\n".join(paths) if paths else f"no files under {folder!r} in the {world} world"

    def read_file(self, world: str, path: str, start_line: int = 1, end_line: int = 400) -> str:
        self._check_world(world)
        text = self.read(world, path)
        if text is None:
            return f"{path} does not exist in the {world} world"
        lines = text.splitlines()
        end = min(end_line, len(lines))
        shown = [f"{n:5d}  {lines[n - 1]}" for n in range(start_line, end + 1)]
        more = f"\n... {len(lines) - end} more lines" if end < len(lines) else ""
        return "\n".join(shown) + more if shown else f"{path} has {len(lines)} lines"

    def search(self, world: str, pattern: str, folder: str = "") -> str:
        try:
            rx = re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"bad regular expression: {exc}") from exc
        prefix = folder.strip("/")
        hits: list[str] = []
        for path in self.files(world):
            if prefix and not path.startswith(prefix + "/") and path != prefix:
                continue
            try:
                text = self.read(world, path)
            except ValueError:  # a link out of the world is listed, never searched
                continue
            if text is None or "\0" in text[:1000]:
                continue
            for n, line in enumerate(text.splitlines(), 1):
                if rx.search(line):
                    hits.append(f"{path}:{n}: {line.strip()[:200]}")
                    if len(hits) >= SEARCH_LIMIT:
                        return "\n".join(hits) + f"\n(stopped at {SEARCH_LIMIT} matches)"
        return "\n".join(hits) if hits else "no match"

    def read_diff(self, which: str) -> str:
        task = self.ctx.task
        if which == "trial":
            if not self.ctx.trial:
                raise ValueError("there is no trial in task analysis")
            return self.ctx.trial.patch or "(the trial's patch is empty)"
        text = task.reference_patch if which == "reference" else task.test_patch
        return text or f"(no {which} patch)"

    def read_evidence(self) -> str:
        if not self.ctx.evidence:
            return "no evidence was gathered on this trial"
        return "\n".join(
            f"- [{e.kind}{'/' + e.detector if e.detector else ''}] {e.file}:{e.line} {e.detail}"
            + ("" if e.mentioned_in_prompt is None else f" (prompt mentions it: {e.mentioned_in_prompt})")
            for e in self.ctx.evidence
        )

    def default_test_path(self, code: str) -> str:
        name = f"test_probe_{hashlib.sha256(code.encode()).hexdigest()[:8]}.py"
        return f"tests/{name}" if (Path(self.ctx.task.snapshot) / "tests").is_dir() else name

    def run_test(self, world: str, code: str, path: str = "") -> str:
        self._check_world(world)
        if self.ctx.world_request is None or self.ctx.execute is None:
            raise ValueError("running tests is not available here")
        path = self.inside(world, path) if path else self.default_test_path(code)
        request = self.ctx.world_request(
            world, extra_files=[(path, code)], test_ids=[path], label=f"llm probe on {world}"
        )
        result = self.ctx.execute([request])[0]
        self.test_runs += 1
        self.runs += 1
        if result.status != STATUS_OK:
            outcome = f"{result.status}: {result.message}"
        else:
            outcome = str(result.outcomes.get(path, Outcome.MISSING))
        log = (result.stdout or "") + (("\n" + result.stderr) if result.stderr else "")
        return f"outcome on the {world} world: {outcome} (exit code {result.exit_code})\n{log[-OUTPUT_LIMIT:]}"

    def run_command(self, world: str, command: str) -> str:
        """Run a shell command in a world (R with its patches and T0's test patch), under the
        backend's limits of time, memory and output; its exit code and the end of its output."""
        self._check_world(world)
        if self.ctx.world_request is None or self.ctx.execute is None:
            raise ValueError("running commands is not available here")
        if not command.strip():
            raise ValueError("the command is empty")
        base = self.ctx.world_request(world, test_ids=[], label=f"llm command on {world}")
        result = self.ctx.execute([replace(base, command=command, test_ids=())])[0]
        self.runs += 1
        said = "" if result.status == STATUS_OK else f" ({result.status}: {result.message})"
        log = (result.stdout or "") + (("\n" + result.stderr) if result.stderr else "")
        cut = " (output cut by the backend)" if result.truncated else ""
        return f"exit code {result.exit_code} on the {world} world{said}{cut}\n{log[-OUTPUT_LIMIT:]}"

    def coverage(self, code: str, path: str = "") -> str:
        """Run a test file on the trial's world with coverage: which lines the trial's patch adds
        to Python files (blank and comment lines aside) it reached, and which it did not."""
        trial = self.ctx.trial
        if trial is None or self.ctx.world_request is None or self.ctx.execute is None:
            raise ValueError("coverage of the trial's changes needs a trial and the executor")
        path = self.inside("model", path) if path else self.default_test_path(code)
        request = self.ctx.world_request("model", extra_files=[(path, code)], test_ids=[path], coverage=True,
                                         label="llm coverage on model")
        result = self.ctx.execute([request])[0]
        self.runs += 1
        outcome = str(result.outcomes.get(path, Outcome.MISSING)) if result.ran else f"{result.status}: {result.message}"
        reached = result.coverage or {}
        lines = []
        for diff in read_patch(trial.patch):
            if not diff.target or not diff.added or not diff.target.endswith(".py"):
                continue
            ran = set((reached.get(diff.target) or {}).get("lines", []))
            code_lines = [n for n, text in diff.added.items() if text.strip() and not text.strip().startswith("#")]
            hit = sorted(n for n in code_lines if n in ran)
            missed = sorted(n for n in code_lines if n not in ran)
            lines.append(f"{diff.target}: reached {_spans(hit) or 'none'}; not reached {_spans(missed) or 'none'}")
        if result.ran and result.coverage is None:
            lines.append("(no coverage was collected on this backend)")
        return f"outcome on the model world: {outcome}\nlines the trial's patch adds:\n" + "\n".join(lines or ["(none)"])


def _spans(numbers: list[int]) -> str:
    """1, 2, 3, 7 as "1-3, 7"."""
    spans: list[list[int]] = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in spans)
