"""The symbolic search's script: CrossHair looks for inputs where the reference and the trial differ.

The script runs inside the trial's world (never in TestJack's process), with the reference's and
the trial's copies of each function's file written beside the original under neutral names
(``_tj_sym_reference.py``, ``_tj_sym_trial.py``), since CrossHair runs both functions in one
process. For each function it wraps both in a function with the parameter types of
``symbolic_types`` and a precondition (the task's input domain: the integer floor and bounds P
states, the length it asks, and every constraint of the domain model, checked by the very code of ``domain/checks.py``, whose source the script carries);
an input outside them is discarded by CrossHair (``IgnoreAttempt``) before either function runs.

Bounded three ways: CrossHair's own iteration limit (``max_iterations``, which keeps the search
repeatable: its random choices come from a fixed seed of its own), a wall-clock cap per function
(``timeout``; a search that reaches it is repeatable no more), and a CPU limit on the whole script
(``RLIMIT_CPU``). The trial's code runs under CrossHair's audit wall (no files written, no
processes, no sockets). One JSON line per function, printed when it starts and when it ends, so a
trial that crashes or hangs the search loses that function's answer only, and the line that
started without ending says which.

Nothing the script prints is trusted: the inputs it names are read back as literals and go
through the probe like any other candidate input (see ``symbolic``).
"""

from __future__ import annotations

import inspect
import json

from testjack_tui.domain import checks

SYMBOLIC_FILE = "_tj_symbolic.py"
MARK = "@@TJ-SYMBOLIC@@"
REFERENCE_STEM = "_tj_sym_reference"
TRIAL_STEM = "_tj_sym_trial"

_SCRIPT = '''\
"""TestJack symbolic search (offline author): inputs where the reference and the trial differ."""
import dataclasses, importlib, json, resource, sys, time, types, typing

SEARCHES = json.loads({searches!r})
ITERATIONS = {iterations}
FUNCTION_S = {function_s}
CPU_S = {cpu_s}
MARK = {mark!r}
CHECKS = {checks!r}


def say(entry):
    sys.stdout.write("\\n" + MARK + json.dumps(entry) + "\\n")
    sys.stdout.flush()


soft = max(1, int(CPU_S))
resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 2))
try:
    import crosshair.core_and_libs
    from crosshair.auditwall import engage_auditwall
    from crosshair.diff_behavior import ExceptionEquivalenceType, diff_behavior
    from crosshair.fnutil import FunctionInfo
    from crosshair.options import DEFAULT_OPTIONS
    from crosshair.util import IgnoreAttempt
except BaseException as exc:
    for s in SEARCHES:
        say({{"name": s["name"], "status": "skipped", "why": "CrossHair is not installed in this world (%s)" % type(exc).__name__}})
    sys.exit(0)

checks = {{}}
exec(compile(CHECKS, "testjack-domain-checks", "exec"), checks)


def flat(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from flat(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from flat(k)
            yield from flat(v)
    else:
        yield value


def inside(pre, names, values):
    """Whether one call's arguments keep to the domain the host sent (see the module's docstring)."""
    for name, value in zip(names, values):
        for v in flat(value):
            if isinstance(v, int) and not isinstance(v, bool) and pre["int_min"] is not None and v < pre["int_min"]:
                return False
        low, high = pre["bounds"].get(name, (None, None))
        if isinstance(value, int) and not isinstance(value, bool):
            if (low is not None and value < low) or (high is not None and value > high):
                return False
        if pre["min_length"] is not None and isinstance(value, (list, tuple)) and len(value) < pre["min_length"]:
            return False
        if isinstance(value, (str, list, tuple, dict)) and len(value) > pre["max_length"]:
            return False
    call = types.SimpleNamespace(args=tuple(values), kwargs=())
    return all(checks["holds"](c, checks["bind"](c.get("signature", names), call)) is not False
               for c in pre["checks"])


def wrapped(fn, search):
    names, pre = search["params"], search["pre"]
    params = ", ".join("%s: %s" % (n, t) for n, t in zip(names, search["types"]))
    source = "def searched(%s):\\n    if not inside(pre, names, [%s]):\\n        raise IgnoreAttempt()\\n    return fn(%s)\\n" % (
        params, ", ".join(names), ", ".join(names))
    space = {{"typing": typing, "inside": inside, "pre": pre, "names": names, "IgnoreAttempt": IgnoreAttempt, "fn": fn}}
    exec(source, space)
    return space["searched"]


def search_one(search):
    ref = getattr(importlib.import_module(search["reference"]), search["attr"])
    mine = getattr(importlib.import_module(search["trial"]), search["attr"])
    options = dataclasses.replace(DEFAULT_OPTIONS, max_iterations=ITERATIONS, timeout=FUNCTION_S,
                                  per_condition_timeout=FUNCTION_S, per_path_timeout=1.0)
    diffs = diff_behavior(FunctionInfo.from_fn(wrapped(ref, search)), FunctionInfo.from_fn(wrapped(mine, search)),
                          options, ExceptionEquivalenceType.SAME_TYPE)
    if isinstance(diffs, str):
        return {{"status": "skipped", "why": diffs}}
    return {{"status": "ok", "inputs": [[d.args.get(n, "") for n in search["params"]] for d in diffs]}}


engage_auditwall()  # from here on, no files written, no processes, no sockets
for s in SEARCHES:
    say({{"name": s["name"], "status": "started"}})
    started = time.process_time()
    try:
        entry = search_one(s)
    except BaseException as exc:
        entry = {{"status": "error", "why": "%s: %s" % (type(exc).__name__, str(exc)[:200])}}
    entry.update(name=s["name"], seconds=round(time.process_time() - started, 2))
    say(entry)
'''


def search_script(searches: list[dict], iterations: int, function_s: float, cpu_s: float) -> str:
    """The script for ``searches`` (one dict per function, see ``symbolic.search_request``)."""
    return _SCRIPT.format(searches=json.dumps(searches, sort_keys=True), iterations=iterations,
                          function_s=function_s, cpu_s=cpu_s, mark=MARK, checks=inspect.getsource(checks))


def parse_lines(stdout: str) -> list[dict]:
    """The JSON lines the script printed, in order (anything else on stdout is the trial's)."""
    out = []
    for line in stdout.splitlines():
        if not line.startswith(MARK):
            continue
        try:
            entry = json.loads(line[len(MARK):])
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            out.append(entry)
    return out
