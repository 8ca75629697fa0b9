"""The offline author at the edges of a task's inputs: frontier integers and trials that never answer.

Small HumanEval-style tasks, each with a correct sample and a defective one (so a witness the
defective sample fails has rho = 1/2, which one trial decides: it needs the analyst's ruling):

- ``triangle(n)``: the reference has a branch written for ``n == 0`` that T0 never runs; the
  defective sample rejects 0. ``triangle(0)`` is below every integer P and T0 pass, and the
  reference handles it on purpose, so the author writes the witness; whether P asks for the
  reference's answer there is the analyst's call (a doubt of its own), and a ruling refutes.
- ``biggest_factor(n)``: for ``n == 1`` the reference's loop falls through to ``return 1``, the
  same path T0's ``biggest_factor(3)`` takes; the defective sample returns ``None`` there. Nothing
  in P or the reference makes 1 a case of its own, so no witness may refute on it.
- ``pairs(n)``: the slow sample is right but quadratic; on a ten-times larger input it does not
  answer where the reference answers at once. Slowness is not wrongness: that is a ``slow``
  finding, not a refutation, unless P states a time bound (``fast_pairs``: "in O(1) time") or
  asks for an efficient answer (``trib``), where the witness states a time limit and refutes.
  Task analysis alone times every trial too, on its stress witness.
- ``count_upper(s)``: T0 passes only non-empty strings and the reference answers ``''`` by its
  ordinary loop. Its value there is an accident (a trial answering -1 stays unrefuted), but a trial
  that raises on ``''`` gives no answer: task analysis's *answers* witness refutes it.
"""


import pytest

from tests.authors.conftest import audit_humaneval
from testjack_tui.audit.rulings import rule_witness
from testjack_tui.model import Classification, Verdict, WitnessStatus

PROBLEMS = [
    {
        "task_id": "Edge/0",
        "entry_point": "triangle",
        "prompt": 'def triangle(n: int) -> int:\n    """Return the n-th triangular number.\n    >>> triangle(3)\n    6\n    """\n',
        "canonical_solution": "    if n == 0:\n        return 0\n    total = 0\n    for i in range(1, n + 1):\n        total += i\n    return total\n",
        "test": "def check(candidate):\n    assert candidate(1) == 1\n    assert candidate(4) == 10\n",
    },
    {
        "task_id": "Edge/1",
        "entry_point": "biggest_factor",
        "prompt": 'def biggest_factor(n: int) -> int:\n    """The largest number smaller than n that divides n.\n    >>> biggest_factor(15)\n    5\n    """\n',
        "canonical_solution": "    for i in range(2, n):\n        if n % i == 0:\n            return n // i\n    return 1\n",
        "test": "def check(candidate):\n    assert candidate(3) == 1\n    assert candidate(10) == 5\n    assert candidate(49) == 7\n",
    },
    {
        "task_id": "Edge/2",
        "entry_point": "pairs",
        "prompt": 'def pairs(n: int) -> int:\n    """How many ordered pairs (i, j) with 0 <= i < j < n there are.\n    >>> pairs(3)\n    3\n    """\n',
        "canonical_solution": "    return n * (n - 1) // 2\n",
        "test": "def check(candidate):\n    assert candidate(3) == 3\n    assert candidate(2000) == 1999000\n",
    },
    {  # worded with no input bound a reader cannot read: an unread sentence would leave the
       # size-scaled timing input unplaced (docs/domain.md), which is not what this task tests
        "task_id": "Edge/3",
        "entry_point": "fast_pairs",
        "prompt": 'def fast_pairs(n: int) -> int:\n    """Count the ordered index pairs (i, j) with i < j among the first n indices, computed in O(1) time.\n    >>> fast_pairs(3)\n    3\n    """\n',
        "canonical_solution": "    return n * (n - 1) // 2\n",
        "test": "def check(candidate):\n    assert candidate(3) == 3\n    assert candidate(2000) == 1999000\n",
    },
]

# P asks for an efficient answer: a trial that gives none in time fails a stated requirement
TRIB = {
    "task_id": "Edge/5",
    "entry_point": "trib",
    "prompt": ('def trib(n: int) -> int:\n    """Please write a function to efficiently compute the n-th element of the '
               'sequence trib(0) = trib(1) = 0, trib(2) = 1, trib(n) = trib(n-1) + trib(n-2) + trib(n-3).\n'
               '    >>> trib(5)\n    4\n    """\n'),
    "canonical_solution": "    a, b, c = 0, 0, 1\n    if n < 2:\n        return 0\n    for _ in range(n - 2):\n        a, b, c = b, c, a + b + c\n    return c\n",
    "test": "def check(candidate):\n    assert candidate(2) == 1\n    assert candidate(10) == 81\n",
}
TRIB_SAMPLES = [
    {"id": "trib-ok", "task_id": "Edge/5",
     "completion": "    t = [0, 0, 1]\n    for i in range(3, n + 1):\n        t.append(t[-1] + t[-2] + t[-3])\n    return t[n] if n >= 0 else 0\n"},
    {"id": "trib-slow", "task_id": "Edge/5",
     "completion": "    if n < 2:\n        return 0\n    if n == 2:\n        return 1\n    return trib(n - 1) + trib(n - 2) + trib(n - 3)\n"},
]

SAMPLES = [
    {"id": "tri-ok", "task_id": "Edge/0", "completion": "    return n * (n + 1) // 2\n"},
    {"id": "tri-bad", "task_id": "Edge/0",
     "completion": "    if n < 1:\n        raise ValueError('n must be positive')\n    return n * (n + 1) // 2\n"},
    {"id": "factor-ok", "task_id": "Edge/1",
     "completion": "    for d in range(n // 2, 0, -1):\n        if n % d == 0:\n            return d\n    return 1\n"},
    {"id": "factor-none", "task_id": "Edge/1",
     "completion": "    if n <= 1:\n        return None\n    for d in range(n // 2, 0, -1):\n        if n % d == 0:\n            return d\n"},
    {"id": "pairs-ok", "task_id": "Edge/2", "completion": "    return n * (n - 1) // 2\n"},
    {"id": "pairs-slow", "task_id": "Edge/2",
     "completion": "    count = 0\n    for i in range(n):\n        for j in range(n):\n            if i < j:\n                count += 1\n    return count\n"},
    {"id": "fast-ok", "task_id": "Edge/3", "completion": "    return n * (n - 1) // 2\n"},
    {"id": "fast-slow", "task_id": "Edge/3",
     "completion": "    count = 0\n    for i in range(n):\n        for j in range(n):\n            if i < j:\n                count += 1\n    return count\n"},
]


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    return audit_humaneval(tmp_path_factory.mktemp("edge"), [*PROBLEMS, TRIB], [*SAMPLES, *TRIB_SAMPLES], "per-trial")


def _validated(store, run_id, task):
    return store.list_witnesses(run_id, task, status=str(WitnessStatus.VALIDATED))


def test_frontier_input_the_reference_handles_on_purpose_needs_ruling(audited):
    # the reference's own branch for 0 gives the witness; whether P requires that answer is the
    # analyst's call (the reference may have chosen it), so the trial awaits a ruling, unrefuted
    store, run_id = audited
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts["tri-bad"] == Verdict.UNAUDITED and verdicts["tri-ok"] == Verdict.SOUND
    assert "awaits a ruling" in store.get_verdict(run_id, "tri-bad").rule
    failing = [w for w in _validated(store, run_id, "Edge/0")
               if str(store.witness_results(w.id)["tri-bad"].outcome) == "fail"]
    (edge,) = [w for w in failing if w.requirement.startswith("triangle(0) returns 0")]
    assert edge.classification == Classification.NEEDS_RULING and "code that none of P's examples" in edge.doubt
    rule_witness(store, edge.id, "necessary", "the analyst reads P as requiring it", author="ana")
    assert store.get_verdict(run_id, "tri-bad").verdict == Verdict.REFUTED


def test_frontier_input_the_reference_answers_by_accident_refutes_nothing(audited):
    store, run_id = audited
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts["factor-none"] == Verdict.SOUND and verdicts["factor-ok"] == Verdict.SOUND
    assert not any("biggest_factor(1)" in w.code or "biggest_factor(0)" in w.code
                   for w in _validated(store, run_id, "Edge/1"))


def test_a_trial_that_never_answers_is_a_slow_finding_not_a_refutation(audited):
    store, run_id = audited
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts["pairs-slow"] == Verdict.SOUND and verdicts["pairs-ok"] == Verdict.SOUND
    slow = [e for e in store.list_evidence(run_id, "pairs-slow") if str(e.kind) == "slow"]
    assert slow, "the slow trial has no slow finding"
    assert slow[0].detail.startswith("pairs(") and "the reference answers in" in slow[0].detail
    assert not [e for e in store.list_evidence(run_id, "pairs-ok") if str(e.kind) == "slow"]
    # the timing witness is shared, and refutes nothing: P states no time bound
    timed = [w for w in _validated(store, run_id, "Edge/2") if "_within(" in w.code]
    assert timed and all(w.slow_only and not w.refutes for w in timed)


def test_a_trial_that_never_answers_is_refuted_where_the_prompt_states_a_time_bound(audited):
    store, run_id = audited
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts["fast-slow"] == Verdict.REFUTED and verdicts["fast-ok"] == Verdict.SOUND
    timed = [w for w in _validated(store, run_id, "Edge/3") if "_within(" in w.code]
    assert timed, "no witness states a time limit"
    results = store.witness_results(timed[0].id)
    assert str(results["reference"].outcome) == "pass" and str(results["fast-ok"].outcome) == "pass"
    assert str(results["fast-slow"].outcome) == "fail"
    assert "TimeoutError" in results["fast-slow"].log or "no result within" in results["fast-slow"].log


def test_a_trial_that_gives_no_answer_in_time_is_refuted_where_the_prompt_asks_for_efficiency(audited):
    store, run_id = audited
    verdicts = store.list_verdicts(run_id)
    assert verdicts["trib-ok"].verdict == Verdict.SOUND
    assert verdicts["trib-slow"].verdict == Verdict.REFUTED
    timed = {w.id: w for w in _validated(store, run_id, "Edge/5") if "_within(" in w.code}
    refuting = [timed[i] for i in verdicts["trib-slow"].witnesses if i in timed]
    assert refuting, "no timing witness refutes the exponential trial"
    assert all(str(w.classification) == "explicit" and not w.slow_only for w in refuting)
    # it is slow as well as refuted: the finding says so, with the reference's time
    assert [e for e in store.list_evidence(run_id, "trib-slow") if str(e.kind) == "slow"]


FACTORS = {
    "task_id": "Edge/4",
    "entry_point": "prime_factors",
    "prompt": 'def prime_factors(n: int) -> list:\n    """The prime factors of n, smallest first, each as often as it divides n.\n    >>> prime_factors(12)\n    [2, 2, 3]\n    """\n',
    "canonical_solution": "    out, d = [], 2\n    while n > 1:\n        while n % d == 0:\n            out.append(d)\n            n //= d\n        d += 1\n    return out\n",
    "test": "def check(candidate):\n    assert candidate(8) == [2, 2, 2]\n    assert candidate(7) == [7]\n    assert candidate(90) == [2, 3, 3, 5]\n",
}
FACTOR_SAMPLES = [
    {"id": "pf-ok", "task_id": "Edge/4",
     "completion": "    out, d = [], 2\n    while d * d <= n:\n        while n % d == 0:\n            out.append(d)\n            n //= d\n        d += 1\n    if n > 1:\n        out.append(n)\n    return out\n"},
    {"id": "pf-one", "task_id": "Edge/4",
     "completion": "    if n == 1:\n        return [1]\n    out, d = [], 2\n    while n > 1:\n        while n % d == 0:\n            out.append(d)\n            n //= d\n        d += 1\n    return out\n"},
]


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    """The same tasks in lightweight mode: task analysis's amplified witnesses come first.

    ``prime_factors(1)`` is below every integer P and T0 pass, its empty result looks new next to
    T0's (so amplification would pick it), and the reference reaches it by the paths T0's calls take.
    """
    return audit_humaneval(tmp_path_factory.mktemp("edge-light"), [*PROBLEMS[:2], FACTORS],
                    [*SAMPLES[:4], *FACTOR_SAMPLES], "lightweight")


def test_task_analysis_keeps_the_frontier_rule(analysed):
    store, run_id = analysed
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts["factor-none"] == Verdict.SOUND and verdicts["factor-ok"] == Verdict.SOUND
    assert not any("biggest_factor(1)" in w.code or "biggest_factor(0)" in w.code
                   for w in _validated(store, run_id, "Edge/1"))
    assert verdicts["tri-bad"] == Verdict.UNAUDITED and verdicts["tri-ok"] == Verdict.SOUND  # awaits a ruling
    assert verdicts["pf-one"] == Verdict.SOUND and verdicts["pf-ok"] == Verdict.SOUND
    assert not any("prime_factors(1)" in w.code or "prime_factors(0)" in w.code
                   for w in _validated(store, run_id, "Edge/4"))


@pytest.fixture(scope="module")
def stressed(tmp_path_factory):
    """Task analysis alone (no trial audited): its stress witness is all that can time the trials."""
    return audit_humaneval(tmp_path_factory.mktemp("edge-stress"), [PROBLEMS[2]], SAMPLES[4:6], "task-analysis")




def test_task_analysis_times_every_trial_on_a_size_scaled_input(stressed):
    store, run_id = stressed
    stress = [w for w in _validated(store, run_id, "Edge/2") if "_within(" in w.code]
    assert stress and all(w.slow_only and not w.refutes for w in stress)
    timed_out = [w for w in stress if str(store.witness_results(w.id)["pairs-slow"].outcome) != "pass"]
    assert timed_out, "no stress witness times out on the quadratic trial"
    slow = [e for e in store.list_evidence(run_id, "pairs-slow") if str(e.kind) == "slow"]
    assert any(w.id in e.detail for e in slow for w in timed_out)
    assert not [e for e in store.list_evidence(run_id, "pairs-ok") if str(e.kind) == "slow"]
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts["pairs-slow"] != Verdict.REFUTED


@pytest.fixture(scope="module")
def stressed_recursion(tmp_path_factory):
    """Task analysis alone on a task whose slow trial recurses exponentially, once per unit of n."""
    return audit_humaneval(tmp_path_factory.mktemp("edge-stress-recursion"), [TRIB], TRIB_SAMPLES, "task-analysis")


def test_a_stress_witness_within_the_recursion_limit_times_an_exponential_recursion(stressed_recursion):
    store, run_id = stressed_recursion
    stress = [w for w in _validated(store, run_id, "Edge/5") if "_within(" in w.code]
    # on the largest input the recursive trial stops at once (RecursionError: an answer in time);
    # the smaller one inside the recursion limit is where its exponential time shows
    shallow = [w for w in stress if store.witness_results(w.id)["trib-slow"].outcome != "pass"]
    assert shallow, "no stress witness times out on the exponential trial"
    assert all(str(store.witness_results(w.id)["trib-ok"].outcome) == "pass" for w in stress)
    slow = [e for e in store.list_evidence(run_id, "trib-slow") if str(e.kind) == "slow"]
    assert any(w.id in e.detail for e in slow for w in shallow)
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts["trib-slow"] == Verdict.REFUTED  # P asks for an efficient answer


def test_the_largest_size_scaled_input_also_states_the_reference_result(stressed_recursion):
    store, run_id = stressed_recursion
    sized = [w for w in _validated(store, run_id, "Edge/5")
             if "_within(" not in w.code and "scaled up in size" in w.code]
    assert len(sized) == 1
    results = store.witness_results(sized[0].id)
    # the recursive trial stops there with a RecursionError: a wrong answer, not slowness
    assert str(results["trib-slow"].outcome) == "fail" and "trib(n - 1)" in results["trib-slow"].log
    assert str(results["trib-ok"].outcome) == "pass"


UPPER = {
    "task_id": "Edge/6",
    "entry_point": "count_upper",
    "prompt": 'def count_upper(s: str) -> int:\n    """How many upper-case letters s has.\n    >>> count_upper(\'aBC\')\n    2\n    """\n',
    "canonical_solution": "    total = 0\n    for c in s:\n        if c.isupper():\n            total += 1\n    return total\n",
    "test": "def check(candidate):\n    assert candidate('xYz') == 1\n    assert candidate('abc') == 0\n    assert candidate('ABCD') == 4\n",
}
UPPER_SAMPLES = [
    {"id": "up-ok", "task_id": "Edge/6", "completion": "    return sum(1 for c in s if c.isupper())\n"},
    # another value on '' (nothing in P pins it down), the right one everywhere else
    {"id": "up-other", "task_id": "Edge/6",
     "completion": "    if not s:\n        return -1\n    return sum(1 for c in s if c.isupper())\n"},
    # no answer at all on '': it reads the first character before counting
    {"id": "up-crash", "task_id": "Edge/6",
     "completion": "    total = 1 if s[0].isupper() else 0\n    return total + sum(1 for c in s[1:] if c.isupper())\n"},
]


@pytest.fixture(scope="module")
def emptied(tmp_path_factory):
    """Task analysis alone on a task whose T0 passes only non-empty strings."""
    return audit_humaneval(tmp_path_factory.mktemp("edge-empty"), [UPPER], UPPER_SAMPLES, "task-analysis")


def test_an_empty_input_answered_by_accident_asks_for_an_answer_not_for_the_reference_value(emptied):
    store, run_id = emptied
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts["up-crash"] == Verdict.REFUTED
    # task analysis alone audits no trial of its own: the others stay unaudited, never refuted
    assert verdicts["up-ok"] == verdicts["up-other"] == Verdict.UNAUDITED
    on_empty = [w for w in _validated(store, run_id, "Edge/6") if "count_upper('')" in w.code]
    assert len(on_empty) == 1 and "returns without raising" in on_empty[0].requirement
    assert str(store.witness_results(on_empty[0].id)["up-other"].outcome) == "pass"
    assert str(store.witness_results(on_empty[0].id)["up-crash"].outcome) == "fail"


def test_a_trial_audit_that_sees_a_crash_on_an_empty_input_writes_the_answers_witness(tmp_path):
    store, run_id = audit_humaneval(tmp_path, [UPPER], UPPER_SAMPLES, "per-trial")
    verdicts = {k: v.verdict for k, v in store.list_verdicts(run_id).items()}
    assert verdicts == {"up-ok": Verdict.SOUND, "up-other": Verdict.SOUND, "up-crash": Verdict.REFUTED}
    refuting = [w for w in _validated(store, run_id, "Edge/6")
                if str(store.witness_results(w.id)["up-crash"].outcome) == "fail"]
    assert refuting and all("returns without raising" in w.requirement for w in refuting)
