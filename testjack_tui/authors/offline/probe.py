"""Differential probes: call task functions on many inputs inside a world, and compare worlds.

Trial code is never imported into TestJack's process. The probe is a small script written into
the world as an extra file and run there with ``python _tj_probe.py`` instead of T0's command, in
the environment T0's command sets up (``worlds/task_environment.py``);
it evaluates every call under a per-call time limit (``signal.setitimer``), so one input that
loops forever costs that input, not the batch, and prints one JSON line with, per call, either
the result's ``repr`` or the exception's type name. All inputs of one audit go in one script:
one execution per world.

Calls marked for tracing also report the reference's code paths: the arcs (line to line, and
line to return) the call takes in the repository's own files, recorded with ``sys.settrace``.
coverage.py would give the same arcs per process, but not per call inside one process, which is
what telling one input's path from T0's needs; the tracer is a dozen lines and costs nothing for
calls that are not marked.

Results are compared here as *data*: reprs are read back with ``ast.literal_eval`` (which runs no
code), so two results are equal when the witness's ``==`` would find them equal. Two kinds of
result have no literal repr and are turned into one inside the world, the way a witness states
them (``shape``):

- an iterator (a generator, ``map``, ...) is materialised with a bound: its first ``ITEMS`` items
  as a list (``"items"``), so two generators compare by what they yield, not by
  ``<generator object at 0x..>``; a witness states ``list(itertools.islice(call, ITEMS))``.
- an object built by a constructor the reference changes (``"view"``): the attributes and
  properties the author names for its class (``looks``) that hold literals, and (``REPR_KEY``
  named) its ``repr`` when the class defines one that shows no address; a witness reads the
  same names.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import math
from dataclasses import dataclass
from typing import Any

from testjack_tui.authors.base import AuthorContext
from testjack_tui.worlds.request import STATUS_OK
from testjack_tui.worlds.task_environment import in_task_environment

PROBE_FILE = "_tj_probe.py"
MARK = "@@TJ-PROBE@@"
CALL_LIMIT_S = 1.0  # one call's time limit inside the probe
REPR_LIMIT = 2000  # longer results are compared by a hash only and never become expectations
MAX_OUTPUT = 4 * 1024 * 1024
SLOW_FACTOR = 20  # a trial's timeout counts only where the reference took 1/20 of the limit or less
# After this many timeouts of one function, its later calls get SHORT_LIMIT_S, and one that runs
# past it is "skipped", not a timeout: a trial that is slow everywhere would otherwise spend the
# probe's whole budget on timeouts, and its quick answers on larger inputs (a RecursionError at
# once, a wrong value) would never be seen.
TIMEOUT_STREAK = 2
SHORT_LIMIT_S = 0.1
ITEMS = 20  # how many items of an iterator a probe (and a witness) takes
# A counted call (``count``) that answered within CALL_LIMIT_S / SLOW_FACTOR runs once more under a
# tracer that counts the Python lines it executes, up to LINE_CAP: "the reference answers at once"
# then means the same on every machine and run, where a time near the line would flip with load.
LINE_CAP = 1_000_000
# a glanced call (see ``probe_script``) reports its paths only while it runs at most this many
# lines: tracing slows a call tenfold, and a mutated input must not time out for being watched
GLANCE_CAP = 20_000
REPR_KEY = "__repr__"  # the key of a view that holds the object's own repr

_SCRIPT = '''\
"""TestJack differential probe (offline author): calls task functions and prints their results."""
import ast, collections.abc, contextlib, hashlib, io, itertools, json, os, signal, sys, time

CASES = {cases}
LOOK = {looks}
ITEMS = {items}
TRACE = set({trace})
GLANCE = set({glance})
GLANCE_CAP = {glance_cap}
COUNT = set({count})
COUNT_UNDER = {count_under}
LINE_CAP = {line_cap}
ROOT = os.getcwd() + os.sep
ME = os.path.abspath(__file__)
IMPORTS = {imports}
CALL_LIMIT = {call_limit}
STREAK = {streak}
SHORT_LIMIT = {short_limit}
DEADLINE = time.monotonic() + {budget}
REPR_LIMIT = {repr_limit}


class _Late(BaseException):
    pass


class _Over(BaseException):
    pass


def _counter(box):
    def local(frame, event, arg):
        if event == "line":
            box[0] += 1
            if box[0] > LINE_CAP:
                raise _Over()
        return local

    def enter(frame, event, arg):
        return local if frame.f_code.co_filename != ME else None

    return enter


def _lines(group, source):
    """How many Python lines the call executes, LINE_CAP + 1 when more (or past the time limit)."""
    box = [0]
    try:
        signal.setitimer(signal.ITIMER_REAL, CALL_LIMIT)
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                sys.settrace(_counter(box))
                try:
                    _shown(eval(source, spaces[group]), group)
                finally:
                    sys.settrace(None)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except (_Over, _Late):
        return LINE_CAP + 1
    except BaseException:
        pass
    return box[0]


def _alarm(signum, frame):
    raise _Late()


def _tracer(arcs, cap=None):
    last = {{}}
    lines = [0]

    def local(frame, event, arg):
        key = id(frame)
        name = frame.f_code.co_filename[len(ROOT):]
        if event == "line":
            lines[0] += 1
            if cap is not None and lines[0] > cap:
                # a glance stops here: the call runs on untraced and its paths are unknown
                arcs.add(None)
                sys.settrace(None)
                return None
            arcs.add("%s:%d:%d" % (name, last.get(key, 0), frame.f_lineno))
            last[key] = frame.f_lineno
        elif event == "return":
            arcs.add("%s:%d:-" % (name, last.get(key, 0)))
        return local

    def enter(frame, event, arg):
        path = frame.f_code.co_filename
        if path.startswith(ROOT) and path != ME:
            last[id(frame)] = 0
            return local
        return None

    return enter


def _literal(value):
    try:
        return ast.literal_eval(repr(value)) == value
    except Exception:
        return False


def _iterator(value):
    return isinstance(value, collections.abc.Iterator) and not isinstance(value, (str, bytes, io.IOBase))


def _view(obj, names):
    """The names' literal values on obj (a name that raises or holds no literal is left out);
    REPR_KEY: its own repr, when its class defines one that shows no address."""
    shown = {{}}
    for name in names:
        if name == "{repr_key}":
            if type(obj).__repr__ is not object.__repr__:
                text = repr(obj)
                if " at 0x" not in text:
                    shown[name] = text
            continue
        try:
            value = getattr(obj, name)
        except Exception:
            continue
        if not callable(value) and not _iterator(value) and _literal(value):
            shown[name] = value
    return shown


def _shown(value, group):
    """(value, shape): an iterator as its first items, an object of a looked-at class as its view."""
    if _iterator(value):
        return list(itertools.islice(value, ITEMS)), "items"
    if group in LOOK and not _literal(value):
        return _view(value, LOOK[group]), "view"
    return value, ""


signal.signal(signal.SIGALRM, _alarm)
spaces = {{}}
broken = {{}}
for group, lines in IMPORTS.items():
    ns = {{}}
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            for line in lines:
                exec(line, ns)
    except BaseException as exc:
        broken[group] = type(exc).__name__
    spaces[group] = ns
results = []
timeouts = {{}}
for index, (group, source) in enumerate(CASES):
    if group in broken:
        results.append({{"s": "import", "e": broken[group]}})
        continue
    if time.monotonic() > DEADLINE:
        results.append({{"s": "skipped"}})
        continue
    sink = io.StringIO()
    arcs = set()
    started = time.monotonic()
    limit = CALL_LIMIT if timeouts.get(group, 0) < STREAK else SHORT_LIMIT
    try:
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                if index in TRACE or index in GLANCE:
                    sys.settrace(_tracer(arcs, GLANCE_CAP if index in GLANCE else None))
                try:
                    value = eval(source, spaces[group])
                    kind = type(value).__name__
                    # materialising a generator runs its body: inside the limit and the trace
                    value, shape = _shown(value, group)
                finally:
                    sys.settrace(None)
                text = repr(value)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        entry = {{"s": "ok", "t": kind, "h": hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]}}
        if shape:
            entry["v"] = shape
        if len(text) <= REPR_LIMIT:
            entry["r"] = text
    except _Late:
        if limit < CALL_LIMIT:
            entry = {{"s": "skipped"}}
        else:
            entry = {{"s": "timeout"}}
            timeouts[group] = timeouts.get(group, 0) + 1
        arcs = None
    except BaseException as exc:
        entry = {{"s": "raise", "e": type(exc).__name__}}
    entry["d"] = round(time.monotonic() - started, 4)
    # counting never takes the time of a later call: it stops at the cap, and only while the
    # probe's budget still has a full call limit to spare
    if (index in COUNT and entry["s"] in ("ok", "raise") and entry["d"] <= COUNT_UNDER
            and time.monotonic() + CALL_LIMIT < DEADLINE):
        entry["n"] = _lines(group, source)
    if (index in TRACE or index in GLANCE) and arcs is not None and None not in arcs:
        entry["a"] = sorted(arcs)
    results.append(entry)
sys.stdout.write("\\n" + "{mark}" + json.dumps(results) + "\\n")
sys.stdout.flush()
'''


@dataclass(frozen=True)
class Outcome:
    """One call's result in one world."""

    status: str  # ok | raise | timeout | skipped | import | missing
    repr: str | None = None  # the result's repr when short enough
    type_name: str = ""  # the result's type, or the exception's
    digest: str = ""
    seconds: float | None = None  # how long the call took
    arcs: frozenset[str] | None = None  # the code paths it took, when it was traced
    lines: int | None = None  # Python lines it executed (LINE_CAP + 1: more), when it was counted
    # "items" (an iterator's first items) or "view" (an object's attributes), see above; "" for a
    # call that did not return (the probe sets it on a returned value only)
    shape: str = ""

    @property
    def returned(self) -> bool:
        return self.status == "ok"

    @property
    def raised(self) -> bool:
        return self.status == "raise"

    def value(self) -> tuple[bool, Any]:
        """(True, value) when the repr reads back as a literal."""
        if self.repr is None:
            return False, None
        try:
            return True, ast.literal_eval(self.repr)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return False, None


def probe_script(cases: list[tuple[str, str]], imports: dict[str, list[str]], budget: float,
                 trace: frozenset[int] = frozenset(), looks: dict[str, list[str]] | None = None,
                 count: frozenset[int] = frozenset(), glance: frozenset[int] = frozenset()) -> str:
    """The script: ``cases`` are (import group, call source) pairs evaluated in that group's namespace;
    the cases whose indices are in ``trace`` also report their code paths (those in ``glance`` too,
    while they run at most ``GLANCE_CAP`` lines), those in ``count`` the
    Python lines they execute (see ``LINE_CAP``); an object a case of a group in ``looks`` returns
    is shown by those attribute names."""
    return _SCRIPT.format(
        cases=repr(cases), imports=repr(imports), call_limit=CALL_LIMIT_S, budget=round(budget, 1),
        streak=TIMEOUT_STREAK, short_limit=SHORT_LIMIT_S, looks=repr(looks or {}), items=ITEMS,
        repr_limit=REPR_LIMIT, mark=MARK, trace=repr(sorted(trace)), repr_key=REPR_KEY,
        count=repr(sorted(count)), count_under=CALL_LIMIT_S / SLOW_FACTOR, line_cap=LINE_CAP,
        glance=repr(sorted(glance)), glance_cap=GLANCE_CAP,
    )


def parse_output(stdout: str, count: int) -> list[Outcome]:
    """The outcomes the probe printed (all ``missing`` when it printed nothing usable)."""
    line = next((l for l in reversed(stdout.splitlines()) if l.startswith(MARK)), None)
    if line is None:
        return [Outcome("missing")] * count
    try:
        rows = json.loads(line[len(MARK):])
    except ValueError:
        return [Outcome("missing")] * count
    if not isinstance(rows, list) or len(rows) != count:
        return [Outcome("missing")] * count
    out = []
    for r in rows:
        if not isinstance(r, dict):
            out.append(Outcome("missing"))
            continue
        seconds = r.get("d")
        arcs = r.get("a")
        lines = r.get("n")
        out.append(Outcome(str(r.get("s", "missing")), r.get("r") if isinstance(r.get("r"), str) else None,
                           str(r.get("t") or r.get("e") or ""), str(r.get("h", "")),
                           float(seconds) if isinstance(seconds, (int, float)) else None,
                           frozenset(map(str, arcs)) if isinstance(arcs, list) else None,
                           lines if isinstance(lines, int) and not isinstance(lines, bool) else None,
                           str(r.get("v") or "")))
    return out


def run_probe(
    ctx: AuthorContext, worlds: list[str], cases: list[tuple[str, str]], imports: dict[str, list[str]],
    trace: frozenset[int] = frozenset(), looks: dict[str, list[str]] | None = None,
    count: frozenset[int] = frozenset(), glance: frozenset[int] = frozenset(),
) -> dict[str, list[Outcome]]:
    """Run one probe script in each of ``worlds`` (in parallel) and read its outcomes.

    ``trace``: indices of the cases whose code paths the reference world reports; ``count``: those
    whose executed lines it counts; ``glance``: those whose code paths it reports when they are
    short (``GLANCE_CAP``); ``looks``: per import group, the attributes an object is shown by.
    """
    if not cases or ctx.world_request is None or ctx.execute is None:
        return {w: [Outcome("missing")] * len(cases) for w in worlds}
    timeout = float(getattr(ctx.task.tests, "timeout", 60.0) or 60.0)
    budget = max(5.0, timeout * 0.5)
    requests = []
    for world in worlds:
        mine = world == "reference"
        code = probe_script(cases, imports, budget, trace if mine else frozenset(), looks,
                            count if mine else frozenset(), glance if mine else frozenset())
        req = ctx.world_request(world, extra_files=[(PROBE_FILE, code)], test_ids=(),
                                label=f"offline probe of {ctx.task.id} on {world}")
        # the probe runs with what T0's command sets up (a src/ layout's PYTHONPATH, its interpreter)
        command = in_task_environment(req.command, req.log_parser, PROBE_FILE)
        requests.append(dataclasses.replace(req, command=command, max_output=MAX_OUTPUT))
    results = ctx.execute(requests)
    out: dict[str, list[Outcome]] = {}
    for world, res in zip(worlds, results):
        out[world] = parse_output(res.stdout or "", len(cases)) if res.status == STATUS_OK else [Outcome("missing")] * len(cases)
    return out


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
        return False
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    try:
        return bool(a == b)
    except Exception:
        return False


SLOW_RATIO = 100  # a trial this many times slower than the reference (and slow in itself) is a finding
SLOW_FLOOR_S = 0.1


def slower(reference: Outcome, trial: Outcome) -> bool:
    """Whether the trial is far slower than the reference on one input, with no other divergence.

    Either it gives no answer within the call limit while the reference answered fast, or it
    gives the reference's answer ``SLOW_RATIO`` times more slowly (and takes ``SLOW_FLOOR_S``
    or more: a millisecond against a microsecond is noise).
    """
    if reference.status not in ("ok", "raise") or reference.seconds is None:
        return False
    if trial.status == "timeout":
        return reference.seconds * SLOW_FACTOR <= CALL_LIMIT_S
    if trial.seconds is None or trial.status != reference.status or diverges(reference, trial) is not False:
        return False
    return trial.seconds >= SLOW_FLOOR_S and trial.seconds >= SLOW_RATIO * max(reference.seconds, 1e-4)


def diverges(reference: Outcome, trial: Outcome) -> bool | None:
    """True when the worlds disagree as a witness would see it; None when it cannot be told.

    A trial call that runs out of time where the reference answered is a divergence only when the
    reference was fast (``SLOW_FACTOR`` times under the limit): a witness then states the limit.
    """
    if trial.status == "timeout" and reference.status in ("ok", "raise"):
        return reference.seconds is not None and reference.seconds * SLOW_FACTOR <= CALL_LIMIT_S
    if reference.status not in ("ok", "raise") or trial.status not in ("ok", "raise"):
        return None
    if reference.raised or trial.raised:
        return not (reference.raised and trial.raised and reference.type_name == trial.type_name)
    if reference.shape or trial.shape:
        return _shapes_diverge(reference, trial)
    if reference.repr is not None and reference.repr == trial.repr:
        return False
    ok_r, ref_value = reference.value()
    ok_t, trial_value = trial.value()
    if ok_r and ok_t:
        return not _close(ref_value, trial_value)
    if reference.digest and reference.digest == trial.digest:
        return False
    return None if not ok_r else True


FLOAT_EXACT = 2**53  # past this an integer computed through a float (``n * (n + 1) / 2``) is rounded


def rounding_only(reference: Outcome, trial: Outcome) -> bool:
    """Whether the answers differ only in integers past ``FLOAT_EXACT`` that round to the same float.

    Such a trial computes the right formula through a float; whether P's numbers ever grow that
    far is something P does not say, and a mutated input, not the task, made the number that
    large, so the offline author writes no witness on it.
    """
    ok_r, a = reference.value()
    ok_t, b = trial.value()
    return ok_r and ok_t and _rounded_alike(a, b) and a != b


def _rounded_alike(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_rounded_alike(x, y) for x, y in zip(a, b))
    if type(a) is int and type(b) is int and a != b:
        return min(abs(a), abs(b)) >= FLOAT_EXACT and float(a) == float(b)
    return _close(a, b)


def _shapes_diverge(reference: Outcome, trial: Outcome) -> bool | None:
    """``diverges`` where a result was materialised: compared as the witness compares it.

    The reference's items: the trial's first ``ITEMS`` items, whether it returned an iterator or a
    list. The reference's view: each name it shows must show the same on the trial's object (one
    it lacks fails the witness's read); names only the trial shows are never read. The reference's
    plain value against the trial's iterator: an iterator never equals a value.
    """
    ok_r, ref_value = reference.value()
    ok_t, trial_value = trial.value()
    if not ok_r:
        return None
    if reference.shape == "items":
        if not ok_t or not isinstance(trial_value, (list, tuple)) or trial.shape == "view":
            return None if not ok_t else True
        return not _close(ref_value, list(trial_value)[:ITEMS])
    if reference.shape == "view":
        if trial.shape != "view" or not ok_t:
            return None if not ok_t else True
        return any(k not in trial_value or not _close(v, trial_value[k]) for k, v in ref_value.items())
    return True if trial.shape == "items" else None
