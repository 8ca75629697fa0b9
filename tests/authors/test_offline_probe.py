"""The differential probe script, run for real in a Python process: what it reports per call.

A trial that is slow everywhere must not spend the probe's whole budget on timeouts: after two
timeouts of one function, its later calls get a short limit, and one that runs past it is
``skipped`` (no evidence either way), while a quick answer (a value, a RecursionError) is still
seen. Another function's calls keep the full limit.
"""

import subprocess
import sys

from testjack_tui.authors.offline.probe import (
    CALL_LIMIT_S, GLANCE_CAP, ITEMS, LINE_CAP, REPR_KEY, TIMEOUT_STREAK, Outcome, diverges, parse_output, probe_script,
)

TRIAL = '''
import time

def crawl(n):
    """Slow on every n but 0; recurses once per unit below 0 (a RecursionError at once)."""
    if n < 0:
        return crawl(n - 1)
    if n:
        time.sleep(30)
    return n

def other(n):
    time.sleep(n)
    return n
'''


def _probe(tmp_path, cases):
    (tmp_path / "trial.py").write_text(TRIAL)
    script = probe_script(cases, {"crawl": ["from trial import *"], "other": ["from trial import *"]}, budget=60)
    (tmp_path / "probe.py").write_text(script)
    done = subprocess.run([sys.executable, "probe.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    return parse_output(done.stdout, len(cases))


def test_after_two_timeouts_a_function_gets_a_short_limit_and_quick_answers_still_count(tmp_path):
    assert TIMEOUT_STREAK == 2
    cases = [("crawl", "crawl(1)"), ("crawl", "crawl(2)"), ("crawl", "crawl(-5)"), ("crawl", "crawl(3)"),
             ("crawl", "crawl(0)"), ("other", f"other({CALL_LIMIT_S / 2})")]
    out = _probe(tmp_path, cases)
    assert [o.status for o in out] == ["timeout", "timeout", "raise", "skipped", "ok", "ok"]
    assert out[2].type_name == "RecursionError"
    assert out[3].seconds is not None and out[3].seconds < CALL_LIMIT_S / 2  # cut short, not a full limit
    assert out[5].repr == repr(CALL_LIMIT_S / 2)  # another function keeps the full limit


SHAPES = '''
import itertools

def evens(n):
    for i in range(0, n, 2):
        yield i

def forever():
    return itertools.count()

class Span:
    def __init__(self, start, stop):
        self.start, self.stop = start, stop

    @property
    def length(self):
        return self.stop - self.start

    def __repr__(self):
        return "Span(%r, %r)" % (self.start, self.stop)
'''


def test_iterators_and_built_objects_are_shown_as_data(tmp_path):
    (tmp_path / "shapes.py").write_text(SHAPES)
    cases = [("f", "evens(5)"), ("f", "forever()"), ("Span", "Span(1, 4)")]
    imports = {"f": ["from shapes import *"], "Span": ["from shapes import *"]}
    script = probe_script(cases, imports, budget=30, looks={"Span": ["length", "missing", REPR_KEY]})
    (tmp_path / "probe.py").write_text(script)
    done = subprocess.run([sys.executable, "probe.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    gen, endless, span = parse_output(done.stdout, len(cases))
    assert (gen.shape, gen.repr, gen.type_name) == ("items", "[0, 2, 4]", "generator")
    assert endless.shape == "items" and endless.value()[1] == list(range(ITEMS))  # bounded, not hung
    # the names asked for that hold literals, and the class's own repr
    assert span.shape == "view" and span.value()[1] == {"length": 3, REPR_KEY: "Span(1, 4)"}


def test_materialised_results_diverge_as_their_witness_would_fail():
    items = Outcome("ok", "[0, 2, 4]", "generator", shape="items")
    assert diverges(items, Outcome("ok", "[0, 2]", "generator", shape="items")) is True
    assert diverges(items, Outcome("ok", "[0, 2, 4]", "list")) is False  # a list with the same items
    assert diverges(Outcome("ok", "[0, 2, 4]", "list"), items) is True  # a generator never equals a list
    view = Outcome("ok", "{'length': 3}", "Span", shape="view")
    # only the reference's names are read: another attribute on the trial's object changes nothing
    assert diverges(view, Outcome("ok", "{'length': 3, 'extra': 1}", "Span", shape="view")) is False
    assert diverges(view, Outcome("ok", "{'length': 4}", "Span", shape="view")) is True
    assert diverges(view, Outcome("ok", "{}", "Span", shape="view")) is True  # the trial's object lacks it


LOOPS = '''
def loop(n):
    total = 0
    for i in range(n):
        total += i
    return total

def builtin(n):
    return sum(range(n))
'''


def test_counted_calls_report_the_python_lines_they_execute_up_to_the_cap(tmp_path):
    (tmp_path / "loops.py").write_text(LOOPS)
    cases = [("g", "loop(10)"), ("g", "loop(10)"), ("g", "loop(20)"), ("g", f"loop({LINE_CAP})"),
             ("g", "builtin(10**5)")]
    script = probe_script(cases, {"g": ["from loops import *"]}, budget=60, count=frozenset({1, 2, 3, 4}))
    (tmp_path / "probe.py").write_text(script)
    done = subprocess.run([sys.executable, "probe.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    out = parse_output(done.stdout, len(cases))
    assert [o.repr for o in out[:3]] == ["45", "45", "190"]
    assert out[0].lines is None  # not counted
    # a count, not a time: two lines per iteration of the loop
    assert out[2].lines - out[1].lines == 2 * 10
    # a loop over the cap (if it answered fast enough to be counted at all) is reported as over it
    assert out[3].lines in (None, LINE_CAP + 1)
    # work done in C executes a line or two: only the time tells it (10**5 items: a few ms, well
    # under the time a call may take to be counted, also on a loaded machine)
    assert out[4].lines is not None and out[4].lines < 5


def test_glanced_calls_report_their_paths_only_while_they_are_short(tmp_path):
    (tmp_path / "loops.py").write_text(LOOPS)
    cases = [("g", "loop(3)"), ("g", "loop(0)"), ("g", f"loop({GLANCE_CAP})"), ("g", "loop(3)")]
    script = probe_script(cases, {"g": ["from loops import *"]}, budget=60, glance=frozenset({0, 1, 2}))
    (tmp_path / "probe.py").write_text(script)
    done = subprocess.run([sys.executable, "probe.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    out = parse_output(done.stdout, len(cases))
    assert out[0].arcs and all(a.startswith("loops.py:") for a in out[0].arcs)
    # an empty loop skips the loop's body: a path of its own
    assert out[1].arcs and out[0].arcs - out[1].arcs
    # past the cap the call still answers, untraced, and its paths are not reported
    assert out[2].status == "ok" and out[2].repr == str(sum(range(GLANCE_CAP))) and out[2].arcs is None
    assert out[3].arcs is None  # not glanced
