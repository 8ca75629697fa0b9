"""The tools the agent may call, their argument schemas, and validation of what the model sends.

Arguments are declared as pydantic models (pydantic ships with ``openai``): the JSON schema sent to
the server and the validation of the model's (possibly malformed) JSON come from one declaration,
so they cannot drift apart. A call that does not validate is answered with the error text.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

World = Literal["null", "reference", "model"]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ListFiles(_Args):
    """List the files of a world (optionally under a folder)."""

    world: World
    folder: str = Field("", description="folder relative to the repository root; empty for all")


class ReadFile(_Args):
    """Read a file of a world, with line numbers."""

    world: World
    path: str
    start_line: int = Field(1, ge=1)
    end_line: int = Field(400, ge=1)


class SearchFiles(_Args):
    """Search the files of a world for a regular expression; returns path:line: text."""

    world: World
    pattern: str
    folder: str = ""


class ReadDiff(_Args):
    """Read a patch: the reference G, the trial's patch, or the official test patch T0."""

    which: Literal["reference", "trial", "tests"]


class ReadEvidence(_Args):
    """The evidence gathered on the trial: ghost branches, detector hits, surviving mutants."""


class RunTest(_Args):
    """Run one test file (the repository's own framework) in a world; returns outcome and output."""

    world: World
    code: str = Field(description="the whole test file")
    path: str = Field("", description="where the file goes; default tests/test_probe_<n>.py")


class RunCommand(_Args):
    """Run a shell command in a world (its files, T0's tests added) under the sandbox's limits; returns
    its exit code and the end of its output. Use it to try inputs: python -c "..."."""

    world: World
    command: str = Field(min_length=1)


class Coverage(_Args):
    """Run one test file on the trial's world with coverage; returns which lines the trial's patch adds
    it reached and which it did not."""

    code: str = Field(description="the whole test file")
    path: str = ""


class ProposeWitness(_Args):
    """Propose a witness: a test file that checks one requirement of the prompt."""

    requirement: str = Field(description="the clause of the prompt it checks, in words")
    kind: Literal["explicit", "implicit"] = Field(description="explicit: the prompt states it; implicit: inferred")
    code: str = Field(description="the whole test file; it must pass on the reference world")
    path: str = ""
    note: str = Field("", description="why it matters")


class Finish(_Args):
    """End the session with the audit report."""

    report: str = Field(
        description="per defect: what it is, why it happens, which clause requires otherwise, why T0 misses it"
    )


class ChecklistItem(_Args):
    text: str
    kind: Literal["explicit", "implicit"]
    covered_by_t0: bool | None = None
    implemented: bool | None = Field(None, description="whether the trial implements it; null without a trial")


class SubmitChecklist(_Args):
    """Submit the requirements checklist: the prompt decomposed into atomic, testable clauses."""

    items: list[ChecklistItem] = Field(min_length=1)


class Judge(_Args):
    """Decide whether a failing witness shows a real violation of the prompt by the trial."""

    decision: Literal["uphold", "reject"]
    reason: str = Field(min_length=1)


TOOLS: dict[str, type[_Args]] = {
    "list_files": ListFiles,
    "read_file": ReadFile,
    "search": SearchFiles,
    "read_diff": ReadDiff,
    "read_evidence": ReadEvidence,
    "run_test": RunTest,
    "run_command": RunCommand,
    "coverage": Coverage,
    "propose_witness": ProposeWitness,
    "finish": Finish,
    "submit_checklist": SubmitChecklist,
    "judge": Judge,
}


def schema(name: str) -> dict[str, Any]:
    """The OpenAI ``tools`` entry of one tool."""
    model = TOOLS[name]
    params = _inline(model.model_json_schema())
    params.pop("description", None)
    return {
        "type": "function",
        "function": {"name": name, "description": (model.__doc__ or "").strip(), "parameters": params},
    }


def _inline(node: Any, defs: dict[str, Any] | None = None) -> Any:
    """Resolve ``$ref``s and drop titles: some local servers' tool parsers handle neither."""
    if isinstance(node, dict):
        defs = node.get("$defs", defs) or {}
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        return {k: _inline(v, defs) for k, v in node.items() if k not in ("$defs", "title")}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def schemas(names: list[str]) -> list[dict[str, Any]]:
    return [schema(n) for n in names]


class BadCall(Exception):
    """A tool call the model got wrong; the message goes back to the model."""


def parse_call(name: str, arguments: str, allowed: list[str]) -> _Args:
    if name not in allowed:
        raise BadCall(f"unknown tool {name!r}; available: {', '.join(allowed)}")
    try:
        data = json.loads(arguments or "{}")
    except json.JSONDecodeError as exc:
        raise BadCall(f"the arguments of {name} are not valid JSON ({exc.msg} at {exc.pos})") from exc
    if not isinstance(data, dict):
        raise BadCall(f"the arguments of {name} must be a JSON object")
    try:
        return TOOLS[name].model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}" for e in exc.errors()
        )
        raise BadCall(f"invalid arguments for {name}: {problems}") from exc
