"""The symbolic probe: CrossHair's inputs on which the reference and a trial may differ.

Mutation reaches what lies near an input P or T0 shows; a defect behind a value none of them
comes near (a maximum that starts from 0, seen only on an all-negative list) needs search that
reasons about branches. CrossHair (``crosshair-tool``) runs two functions symbolically on the
same inputs and names inputs where their results or exceptions differ; writing that search
ourselves would mean a symbolic executor and an SMT binding, so the library does it.

Trial code is hostile, so the search is an execution like the probe: one script
(``symbolic_script``) per trial, run in the trial's world with the reference's file beside it,
cached by the execution cache like any request. What it returns is only a list of *candidate
inputs*: each is read back as a literal and handed to the planner, which puts it in the probe
with every other input, so it meets the same filters (the domain model, P's bounds), the same
comparison, certification on the reference, the flake guard and A.2. A trial that tampers with
the search can only hide inputs from it, or suggest inputs that then run like any other.
"""

from __future__ import annotations

import ast
import dataclasses
import logging
from dataclasses import dataclass, field

from testjack_tui.authors.base import AuthorContext
from testjack_tui.authors.offline.bounds import Domain
from testjack_tui.authors.offline.symbolic_script import (
    REFERENCE_STEM, SYMBOLIC_FILE, TRIAL_STEM, parse_lines, search_script,
)
from testjack_tui.authors.offline.symbolic_types import Unsearchable, parameter_types
from testjack_tui.authors.offline.task_view import TaskView
from testjack_tui.pysource.calls import CallArgs, literal_ok
from testjack_tui.pysource.signatures import Target
from testjack_tui.worlds.request import STATUS_OK

log = logging.getLogger("testjack.symbolic")

ITERATIONS = 200  # CrossHair paths per function and ordering: the repeatable bound
FUNCTION_S = 15.0  # wall-clock cap per function (CrossHair's ``timeout``)
TRIAL_S = 30.0  # default CPU seconds per trial (``--symbolic-budget``)
MAX_LENGTH = 12  # longest string or collection the search tries: witnesses stay readable
MAX_INPUTS = 4  # inputs kept per function


@dataclass
class Found:
    """What the search of one trial gave: candidate inputs per function, and its log."""

    inputs: dict[str, list[CallArgs]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # CPU seconds per function searched
    log: list[str] = field(default_factory=list)  # a line per function skipped, failed or cut off
    trouble: list[str] = field(default_factory=list)  # functions whose search crashed or hung


def _module(path: str, stem: str) -> str:
    """The dotted name of a file named ``stem`` beside ``path``."""
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    return ".".join([*folder.split("/"), stem]) if folder else stem


def _beside(path: str, stem: str) -> str:
    return f"{path.rsplit('/', 1)[0]}/{stem}.py" if "/" in path else f"{stem}.py"


def _search_of(ctx: AuthorContext, view: TaskView, target: Target) -> dict:
    """One function's search: where both copies are, its parameters' types and the precondition."""
    if target.binding or target.private:
        raise Unsearchable("only public module-level functions are searched (a method needs an object, "
                           "a private helper gets no witness)")
    if not target.path.endswith(".py"):
        raise Unsearchable(f"its file {target.path} is not a plain Python module")
    seeds = view.seeds(target.name)
    names = [p.name for p in target.params]
    types = parameter_types(target, seeds)
    domain = Domain.from_prompt(view.prompt, names).narrowed_by(seeds)
    attr = target.attr
    pre = {
        "int_min": domain.int_min, "min_length": domain.min_length, "max_length": MAX_LENGTH,
        "bounds": {p: [lo, hi] for p, lo, hi in domain.bounds},
        "checks": [dict(c.check) for c in ctx.task.domain
                   if c.check.get("function") == attr and c.check.get("op") != "unread"],
    }
    # the alphabet is checked on what the search returns: as a precondition it multiplies
    # CrossHair's paths on every symbolic string (one branch per character tried)
    return {"name": target.name, "attr": attr, "params": names, "types": types, "pre": pre,
            "alphabets": _alphabets(names, seeds),
            "reference": _module(target.path, REFERENCE_STEM), "trial": _module(target.path, TRIAL_STEM)}


def _alphabets(names: list[str], seeds: list[CallArgs]) -> dict[str, str]:
    """Per parameter, the characters of every string P's and T0's calls pass there (inside
    containers too): an input the search returns keeps to them (``_in_alphabets``), as the generated ones do (``inputs``),
    since a character no input shows (``'ῼ'``) tests what P never spoke of. A parameter no
    string is seen at is left open."""
    out: dict[str, str] = {}
    for i, name in enumerate(names):
        chars = {ch for s in seeds if len(s.args) > i for text in _strings_in(s.args[i]) for ch in text}
        if chars:
            out[name] = "".join(sorted(chars))
    return out


def _strings_in(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _strings_in(v)]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*_strings_in(k), *_strings_in(v))]
    return []


def _in_alphabets(call: CallArgs, names: list[str], alphabets: dict[str, str]) -> bool:
    """Whether every string of the call uses only characters its parameter's seeds use."""
    return all(set(text) <= set(alphabets[name]) for name, value in zip(names, call.args)
               if name in alphabets for text in _strings_in(value))


def _files(ctx: AuthorContext, targets: list[Target]) -> list[tuple[str, str]]:
    """The reference's and the trial's copies of each searched function's file, under neutral names."""
    out: dict[str, str] = {}
    for t in targets:
        for world, stem in (("reference", REFERENCE_STEM), ("model", TRIAL_STEM)):
            text = ctx.read_file(world, t.path)
            if text is None:
                raise Unsearchable(f"{t.path} is missing from the {world} world")
            out[_beside(t.path, stem)] = text
    return sorted(out.items())


def search(ctx: AuthorContext, view: TaskView, targets: list[Target], budget_s: float = TRIAL_S) -> Found:
    """Run the symbolic search of ``targets`` on the trial, one execution; candidate inputs per function."""
    found = Found()
    if ctx.trial is None or ctx.world_request is None or ctx.execute is None or ctx.read_file is None:
        return found
    searches, searched = [], []
    for t in targets:
        try:
            searches.append(_search_of(ctx, view, t))
            _files(ctx, [t])
            searched.append(t)
        except Unsearchable as exc:
            _note(found, f"symbolic search of {t.name} skipped: {exc}")
    if not searches:
        return found
    # two functions in one file share the copies; a later file never overwrites an earlier one
    files = _files(ctx, searched)
    function_s = min(FUNCTION_S, max(1.0, budget_s / len(searches)))
    code = search_script(searches, ITERATIONS, function_s, budget_s)
    req = ctx.world_request("model", extra_files=[*files, (SYMBOLIC_FILE, code)], test_ids=(),
                            label=f"symbolic search of {ctx.task.id} on {ctx.trial.id}")
    # the wall clock of the whole execution: the CPU budget, plus imports and the solver's start
    req = dataclasses.replace(req, command=f"PYTHONHASHSEED=0 python {SYMBOLIC_FILE}",
                              timeout=budget_s * 1.5 + 30.0)
    result = ctx.execute([req])[0]
    _read(found, searches, parse_lines(result.stdout or ""), result.status, result.exit_code)
    return found


def _read(found: Found, searches: list[dict], lines: list[dict], status: str, exit_code: int | None) -> None:
    """Fill ``found`` from the script's lines; a function that started and never ended is trouble."""
    ended: dict[str, dict] = {}
    started: set[str] = set()
    for entry in lines:
        if entry.get("status") == "started":
            started.add(entry["name"])
        else:
            ended[entry["name"]] = entry
    how = "ran out of time" if status != STATUS_OK else f"ended with exit code {exit_code}"
    for s in searches:
        name = s["name"]
        entry = ended.get(name)
        if entry is None:
            if name in started:
                found.trouble.append(name)
                _note(found, f"symbolic search of {name} stopped without an answer (the search {how}); "
                             "contained, the audit goes on")
            else:
                _note(found, f"symbolic search of {name} never started (the search {how} before it)")
            continue
        seconds = entry.get("seconds")
        found.seconds[name] = float(seconds) if isinstance(seconds, (int, float)) else 0.0
        if entry.get("status") != "ok":
            _note(found, f"symbolic search of {name} {entry.get('status')}: {str(entry.get('why', ''))[:300]}")
            continue
        found.inputs[name] = [c for c in _calls(entry.get("inputs"), len(s["params"]))
                              if _in_alphabets(c, s["params"], s.get("alphabets", {}))]


def _calls(rows: object, arity: int) -> list[CallArgs]:
    """The inputs the script named, read back as literals (anything else is dropped), at most MAX_INPUTS."""
    out: dict[str, CallArgs] = {}
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, list) or len(row) != arity or not all(isinstance(r, str) for r in row):
            continue
        try:
            values = tuple(ast.literal_eval(r) for r in row)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if all(literal_ok(v) for v in values):
            call = CallArgs(values)
            out.setdefault(call.key, call)
    return sorted(out.values(), key=lambda c: (c.size, c.key))[:MAX_INPUTS]


def _note(found: Found, line: str) -> None:
    found.log.append(line)
    log.info(line)
