"""The offline author's input machinery on values and prompts no task here has shown it.

An exception in it fails the author for a whole task or trial (every defect there is missed),
so each piece is driven with arbitrary nested values, huge and non-finite numbers, mixed-type
containers and prompts made of the words its readers look for.
"""

from __future__ import annotations

import time

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from testjack_tui.authors.offline.features import added, features
from testjack_tui.authors.offline.inputs import CallArgs, Domain, draw, mutate_value, plan_inputs, strategy_for
from testjack_tui.pysource.signatures import Param, Target
from testjack_tui.domain.checks import holds, shape, shape_fits
from testjack_tui.domain.observed import alphabet, merge, shape_model, trimmed, vocabulary
from testjack_tui.domain.stated import Param as DomainParam
from testjack_tui.domain.stated import stated_constraints

SETTINGS = dict(suppress_health_check=list(HealthCheck), deadline=None, database=None)

_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5),
                     st.binary(max_size=3), st.integers(min_value=-(10**400), max_value=10**400))
VALUES = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner), st.frozensets(st.integers(), max_size=3),
    st.dictionaries(st.one_of(st.integers(), st.text(max_size=3)), inner, max_size=3)), max_leaves=10)
ANNOTATIONS = st.sampled_from(["", "int", "float", "str", "bool", "list", "dict", "tuple", "List[int]", "List[Any]",
                               "List[List[int]]", "Dict[str, int]", "Tuple[int, str]", "Optional[int]",
                               "Union[int, str]", "Foo", "List["])
# the words the stated-constraint readers look for, in any order
WORDS = ["list", "of", "two", "strings", "positive", "integer", "non-empty", "non-negative", "0", "1", "<=", "<",
         ">=", ">", "≤", "==", "k", "len(arr)", "arr", "arr[i]", "equal", "length", "at", "least", "one", "prime",
         "sorted", "ascending", "format", "mm-dd-yyyy", "hh:mm", "consists", "only", "lowercase", "letters",
         "digits", "in", "the", "range", "[1,", "1000]", "[-10^5,", "10^5]", ",", ".", "(", ")", "n", "x", "s", "is",
         "a", "string", "brackets", "balanced", "1e9", "greater", "than", "not", "Return", "words", "separated",
         "by", "spaces", "\n", ">>> f(1)", "each", "element"]


@settings(max_examples=300, **SETTINGS)
@given(VALUES, st.booleans())
@example((0, None), False)  # a container mixing ints and None: its bounds come from its ints
@example([10**400], False)  # an int no float can hold
@example(float("inf"), False)
def test_every_value_has_mutations_and_none_raises(value, any_type):
    assert isinstance(mutate_value(value, any_type), list)


@settings(max_examples=300, **SETTINGS)
@given(VALUES, VALUES)
def test_features_of_any_inputs_are_named_by_argument(value, other):
    mine = features(CallArgs((value, other)))
    assert all(f.split(": ", 1)[0] in ("0", "1") for f in mine)
    assert added(CallArgs((value, other)), CallArgs((other, value))) <= mine


@settings(max_examples=150, **SETTINGS)
@given(st.lists(VALUES, min_size=1, max_size=3))
@example([{"a": "apple"}])  # once an endless recursion
def test_a_strategy_from_any_seeds_draws_or_is_none(seeds):
    strategy = strategy_for(None, seeds, Domain())
    if strategy is not None:
        assert isinstance(draw(strategy, 3, 1), list)


@settings(max_examples=80, **SETTINGS)
@given(st.lists(ANNOTATIONS, min_size=1, max_size=3), st.data())
def test_an_input_plan_for_any_signature_and_seeds_stays_in_budget(annotations, data):
    target = Target("f", "solution.py", tuple(Param(f"p{i}", a) for i, a in enumerate(annotations)))
    seeds = [CallArgs(tuple(data.draw(VALUES) for _ in annotations)) for _ in range(data.draw(st.integers(0, 3)))]
    calls = plan_inputs(target, seeds, Domain(), 7, budget=40, generate=8)
    assert len(calls) <= 40
    for call in calls:
        assert call.source()


@settings(max_examples=200, **SETTINGS)
@given(st.lists(st.sampled_from(WORDS), max_size=40), st.lists(VALUES, min_size=3, max_size=3))
def test_prompts_are_read_quickly_and_their_checks_take_any_argument(words, args):
    params = {"arr": DomainParam("arr", {"list"}), "k": DomainParam("k", {"int"}), "s": DomainParam("s", {"str"}),
              "x": DomainParam("x", {"int", "float"}), "n": DomainParam("n", {"int"})}
    started = time.monotonic()
    found = stated_constraints(" ".join(words), params)
    assert time.monotonic() - started < 5  # no reader backtracks without end on a long sentence
    for constraint in found:
        for names in (["arr", "k", "s"], ["x", "n", "arr"]):
            assert holds(constraint.check, dict(zip(names, args))) in (True, False, None)


@settings(max_examples=150, **SETTINGS)
@given(st.lists(VALUES, min_size=1, max_size=4), VALUES)
def test_observed_shapes_of_any_values(values, other):
    model = shape_model(values)
    merge(model, shape_model([other]))
    assert isinstance(shape(other), str)
    if model is not None:
        assert shape_fits(other, model) in (True, False)
    alphabet(values), vocabulary(values), trimmed(values)
