"""The differential probe script, run for real in a Python process: what it reports per call.

A trial that is slow everywhere must not spend the probe's whole budget on timeouts: after two
timeouts of one function, its later calls get a short limit, and one that runs past it is
``skipped`` (no evidence either way), while a quick answer (a value, a RecursionError) is still
seen. Another function's calls keep the full limit.
"""

import subprocess
import sys

from testjack_tui.authors.offline.probe import CALL_LIMIT_S, TIMEOUT_STREAK, parse_output, probe_script

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
