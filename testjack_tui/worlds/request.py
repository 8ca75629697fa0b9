"""What the engine asks an executor to run, and what it gets back.

Both values are plain and serialisable (``to_dict``/``from_dict``) so that any executor can run
them: the local process pool today, a cluster engine tomorrow. ``ExecRequest.key()`` is a content
hash: two requests with the same key give the same result, which is how the store caches runs.
The snapshot's *path* is not part of the key (the same content may sit in another directory);
its digest is.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

DEFAULT_COMMAND = "python -m pytest -p no:cacheprovider -q -rN --junitxml={junit} {tests}"
DEFAULT_MAX_OUTPUT = 64 * 1024

# ExecResult.status values
STATUS_OK = "ok"  # the command ran; see outcomes and exit_code
STATUS_PATCH_FAILED = "patch_failed"  # a patch did not apply; nothing ran
STATUS_TIMEOUT = "timeout"  # killed at the timeout
STATUS_SETUP_FAILED = "setup_failed"  # the environment (venv, image, setup script) could not be made
STATUS_ERROR = "error"  # the executor itself failed (no engine, bad request)


@dataclass(frozen=True)
class Patch:
    """A unified diff applied to the world, in order. ``name`` says what it is for messages."""

    name: str  # "reference", "trial:<id>", "tests", "mutant:<n>"
    text: str


@dataclass(frozen=True)
class ExecRequest:
    snapshot: str  # directory holding R as plain files
    snapshot_digest: str  # content hash of that directory
    patches: tuple[Patch, ...] = ()
    extra_files: tuple[tuple[str, str], ...] = ()  # (path relative to the repo root, content)
    remove_files: tuple[str, ...] = ()  # paths removed after patching (e.g. a trial's conftest.py)
    command: str = DEFAULT_COMMAND
    test_ids: tuple[str, ...] = ()
    timeout: float = 120.0
    backend: str = "local"  # "local" | "docker"
    image: str | None = None
    requirements: tuple[str, ...] = ()  # pip specs of the task's environment
    setup: str | None = None  # shell run once in the environment
    coverage: bool = False  # collect branch coverage of the repository's code
    max_output: int = DEFAULT_MAX_OUTPUT  # bytes kept of stdout and of stderr
    # when the command writes no JUnit XML: read outcomes from its console log with this parser
    # ("pytest-log", "django", "sympy"; see logparsers). "" = JUnit XML only.
    log_parser: str = ""
    memory_mb: int = 2048
    cpus: float = 1.0
    pids: int = 256
    attempt: int = 0  # repetition number: repeated runs of one request are distinct executions
    confirm: bool = False  # also read the report through a pipe the test process cannot rewrite (report_pipe)
    label: str = ""  # for humans and logs only; not part of the key
    # host paths the test process must neither read nor write (the store under audit); the local
    # backend covers them in the run's mount namespace. Where a run happens, not what: not in the key
    hidden: tuple[str, ...] = ()

    def key(self) -> str:
        payload = self.to_dict()
        payload.pop("snapshot")
        payload.pop("label")
        payload.pop("hidden")
        if not payload["confirm"]:
            payload.pop("confirm")  # requests made before the field existed keep their keys
        blob = json.dumps(payload, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ExecRequest":
        data = dict(data)
        data["patches"] = tuple(Patch(**p) for p in data.get("patches", ()))
        data["extra_files"] = tuple(tuple(x) for x in data.get("extra_files", ()))
        for name in ("remove_files", "test_ids", "requirements", "hidden"):
            data[name] = tuple(data.get(name, ()))
        return cls(**data)


@dataclass
class ExecResult:
    status: str
    outcomes: dict[str, str] = field(default_factory=dict)  # test id -> model.Outcome value
    exit_code: int | None = None
    duration: float = 0.0
    stdout: str = ""
    stderr: str = ""
    truncated: bool = False
    message: str = ""  # for patch_failed: which patch and hunk; for errors: what went wrong
    # file (relative to the repo) -> {"lines": [executed], "arcs": [[from, to], ...]}
    coverage: dict[str, Any] | None = None
    cached: bool = False  # set by the caller when it came from the store, not from a run

    @property
    def ran(self) -> bool:
        return self.status == STATUS_OK

    def passed(self, test_ids: tuple[str, ...] | list[str]) -> bool:
        """All of ``test_ids`` passed and the command agreed (exit code 0)."""
        return (
            self.status == STATUS_OK
            and self.exit_code == 0
            and all(self.outcomes.get(t) == "pass" for t in test_ids)
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("cached")
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ExecResult":
        data = dict(data)
        data.pop("cached", None)
        return cls(**data)
