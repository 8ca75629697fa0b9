"""Ghost branches (paper §3.2 step 3 i): code the trial adds that the official tests never execute.

Input is the branch coverage T0 produced on the model world (``ExecResult.coverage``) and the trial's
diff. Which lines count as executable, and which arcs a line can take, comes from coverage.py's own
``PythonParser`` run on the post-patch source, so comments, blank lines and docstrings are never
reported and a multi-line statement counts once, exactly as coverage.py itself would count it.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Collection, Iterable

from coverage.exceptions import NotPython
from coverage.parser import PythonParser

from ..model import Evidence, EvidenceKind
from .diff import ChangedFile, ReadFile, changed_code

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Names too common to say a line implements something the prompt talks about.
COMMON_NAMES = {"self", "cls", "args", "kwargs", "value", "values", "result", "item", "items", "data", "key",
                "name", "obj", "other", "len", "str", "int", "float", "bool", "list", "dict", "set", "tuple",
                "range", "print", "isinstance", "type", "super", "append", "get", "join", "split", "strip",
                "format", "object", "None", "True", "False"}
MAX_SHOWN = 60


def _coverage_for(coverage: dict, path: str) -> dict | None:
    if path in coverage:
        return coverage[path]
    for name, data in coverage.items():
        if name.endswith("/" + path) or path.endswith("/" + name):
            return data
    return None


def names_on(lines: Iterable[str]) -> list[str]:
    """Identifiers used on the lines, minus keywords and names every program uses; in order of use."""
    seen: dict[str, None] = {}
    for line in lines:
        code = line.split("#", 1)[0]
        for name in IDENTIFIER.findall(code):
            if keyword.iskeyword(name) or keyword.issoftkeyword(name) or name in COMMON_NAMES or len(name) < 3:
                continue
            if name in vars(builtins) and not name.endswith(("Error", "Exception", "Warning")):
                continue
            seen.setdefault(name, None)
    return list(seen)


def prompt_names(names: Iterable[str], prompt: str) -> list[str]:
    """The names the prompt mentions, as written or with underscores read as spaces (max_len ~ "max len")."""
    found = []
    for name in names:
        variants = {name, name.replace("_", " ").strip()}
        if any(re.search(rf"(?<![\w]){re.escape(v)}(?![\w])", prompt, re.I) for v in variants if v):
            found.append(name)
    return found


def ghost_branches(trial_patch: str, coverage: dict | None, read_file: ReadFile, prompt: str = "", *,
                   run_id: str = "", trial_id: str = "") -> list[Evidence]:
    """Added lines and branches T0 never executes, one Evidence per run of unexecuted lines or per missed arc.

    ``coverage`` is ``ExecResult.coverage`` of T0 on the model world (None: nothing to report, the
    run did not collect coverage). An empty measurement says nothing either: T0 then ran its tests
    in processes coverage could not follow (an interpreter without coverage.py, such as a
    task image's own), and reporting every added line as never run would be evidence of nothing.
    Any runner is measured, not only pytest (``worlds.coverage_run``). ``read_file`` reads
    a post-patch file of the model world.
    """
    if not coverage:
        return []
    found: list[Evidence] = []
    for changed, source in changed_code(trial_patch, read_file):
        found.extend(_in_file(changed, source, _coverage_for(coverage, changed.path), prompt, run_id, trial_id))
    return found


def _in_file(changed: ChangedFile, source: str, data: dict | None, prompt: str,
             run_id: str, trial_id: str) -> list[Evidence]:
    parser = PythonParser(text=source)
    try:
        parser.parse_source()
    except NotPython:
        return []
    executed = set((data or {}).get("lines", []))
    lines = source.splitlines()
    imported = data is not None

    def ghost(detail: str, line: int, code: list[str]) -> Evidence:
        mentioned = prompt_names(names_on(code), prompt)
        about = (f"; the prompt mentions {', '.join(mentioned)}" if mentioned
                 else "; the prompt mentions none of its names")
        return Evidence(run_id=run_id, trial_id=trial_id, kind=EvidenceKind.GHOST_BRANCH, detail=detail + about,
                        file=changed.path, line=line, detector="coverage", mentioned_in_prompt=bool(mentioned))

    groups = _unexecuted_runs(changed.added_lines, parser, executed)
    evidence = []
    for group in groups:
        text = [lines[n - 1] for n in group if n - 1 < len(lines)]
        span = f"line {group[0]}" if len(group) == 1 else f"lines {group[0]}-{group[-1]}"
        why = "; the module is never imported" if not imported else ""
        evidence.append(ghost(f"{span} never run by T0{why}: `{_shown(text[0] if text else '')}`", group[0], text))
    if not imported:
        return evidence
    reported = {n for group in groups for n in group}
    taken = {tuple(a) for a in data.get("arcs", [])}
    for n, end in _missed_arcs(changed.added_lines, parser, executed, taken):
        if end in reported:
            continue
        target = f"line {end}" if end > 0 else "the function's exit"
        code = lines[n - 1] if n - 1 < len(lines) else ""
        evidence.append(ghost(f"branch from line {n} to {target} never taken by T0: `{_shown(code)}`", n, [code]))
    return evidence


def _unexecuted_runs(added: Collection[int], parser: PythonParser, executed: set[int]) -> list[list[int]]:
    """The added lines whose statement is executable and never ran, in runs: a run goes on past
    lines that are not statements or are added, and stops at any statement that ran."""
    statements = parser.statements
    unexecuted = sorted(n for n in added
                        if parser.first_line(n) in statements and parser.first_line(n) not in executed)
    groups: list[list[int]] = []
    for n in unexecuted:
        between = range(groups[-1][-1] + 1, n) if groups else range(0)
        if groups and not any(parser.first_line(m) in statements and parser.first_line(m) in executed
                              for m in between) \
                and all(m in added or parser.first_line(m) not in statements for m in between):
            groups[-1].append(n)
        else:
            groups.append([n])
    return groups


def _missed_arcs(added: Collection[int], parser: PythonParser, executed: set[int],
                 taken: set[tuple]) -> list[tuple[int, int]]:
    """(from, to) of each arc never taken out of an added branching line that ran."""
    exits = parser.exit_counts()
    possible = sorted(parser.arcs())
    missed = []
    for n in sorted({parser.first_line(m) for m in added}):
        if n not in executed or exits.get(n, 0) < 2:
            continue
        missed.extend((start, end) for start, end in possible if start == n and (start, end) not in taken)
    return missed


def _shown(line: str) -> str:
    text = line.strip()
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."
