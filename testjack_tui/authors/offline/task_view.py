"""What the offline author reads of a task: its functions, P's examples, T0's calls, the witnesses so far.

``TaskView`` is built once per author step from the task's own files; the helpers below read the
calls the task's witnesses already make, so a new probe does not write a second witness for a
divergence one already shows.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cached_property

from testjack_tui.authors.base import AuthorContext
from testjack_tui.pysource.calls import CallArgs, aliases_in_tests, calls_in_source
from testjack_tui.authors.offline.comparison import Comparison, t0_comparison
from testjack_tui.pysource.examples import Example, extract_examples, prompt_mentions
from testjack_tui.authors.offline.probe import REPR_KEY
from testjack_tui.pysource.signatures import Access, Target, access_for, changed_functions, test_files
from testjack_tui.authors.offline.witnesses import call_key, calls_in_witness
from testjack_tui.domain.timing import is_timing_witness
from testjack_tui.model import WitnessStatus


def example_args(example: Example) -> CallArgs | None:
    node = ast.parse(example.call, mode="eval").body
    assert isinstance(node, ast.Call)
    try:
        return CallArgs(tuple(ast.literal_eval(a) for a in node.args),
                        tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords if k.arg))
    except (ValueError, SyntaxError, TypeError):
        return None


@dataclass
class TaskView:
    """What the author reads of a task: its functions, P's examples and T0's calls."""

    ctx: AuthorContext
    targets: dict[str, Target] = field(default_factory=dict)
    test_sources: list[str] = field(default_factory=list)
    examples: list[Example] = field(default_factory=list)
    _comparisons: dict[str, Comparison] = field(default_factory=dict)

    @classmethod
    def of(cls, ctx: AuthorContext) -> "TaskView":
        read = ctx.read_file or (lambda world, path: None)
        view = cls(ctx)
        view.targets = changed_functions(ctx.task.reference_patch, read, "reference", classes=True)
        for path in test_files(ctx.task.test_patch):
            text = read("null", path)
            if text:
                view.test_sources.append(text)
        view.examples = extract_examples(ctx.task.prompt, set(view.targets)) if view.targets else []
        return view

    @property
    def prompt(self) -> str:
        return self.ctx.task.prompt

    def access(self, target: Target) -> Access | None:
        """How a witness reaches ``target``; None for a method on an object no test shows how to build."""
        return access_for(target, self.test_sources)

    def looks(self, target: Target) -> list[str]:
        """What an object a constructor builds is compared by: the properties the reference
        changes, and the other public attributes P or T0 names (an attribute nobody names is the
        implementation's own: a trial may keep its state under other names); its repr only when
        P says repr or T0 calls ``repr``/``str`` (a repr may show internal state just as well)."""
        if target.binding != "constructor":
            return []
        named = [a for a in target.attrs if self._named(a) or a in self.read_in_tests]
        shows = self._named("repr") or {"repr", "str"} & self.called_in_tests
        return [*target.look, *named, *([REPR_KEY] if shows else [])]

    def _named(self, word: str) -> bool:
        return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", self.prompt) is not None

    @cached_property
    def read_in_tests(self) -> set[str]:
        """Attribute names T0's tests read (``obj.length``)."""
        return {n.attr for tree in self._test_trees for n in ast.walk(tree) if isinstance(n, ast.Attribute)}

    @cached_property
    def called_in_tests(self) -> set[str]:
        """Names T0's tests call as plain functions (``repr(obj)``)."""
        return {n.func.id for tree in self._test_trees for n in ast.walk(tree)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}

    @cached_property
    def _test_trees(self) -> list[ast.Module]:
        trees = []
        for source in self.test_sources:
            try:
                trees.append(ast.parse(source))
            except SyntaxError:
                continue
        return trees

    def t0_calls(self, name: str) -> list[CallArgs]:
        attr = name.rsplit(".", 1)[-1]  # a method call spells the method's name last
        out: list[CallArgs] = []
        for source in self.test_sources:
            out += calls_in_source(source, attr, aliases_in_tests(source, attr))
        return out

    def comparison(self, name: str) -> Comparison:
        """How T0 compares the answers of ``name`` (its witnesses compare no more strictly)."""
        if name not in self._comparisons:
            attr = name.rsplit(".", 1)[-1]
            names = {attr, *(a for source in self.test_sources for a in aliases_in_tests(source, attr))}
            self._comparisons[name] = t0_comparison(self.test_sources, names)
        return self._comparisons[name]

    def examples_of(self, name: str) -> list[tuple[Example, CallArgs]]:
        out = []
        for ex in self.examples:
            args = example_args(ex) if ex.function == name else None
            if args is not None:
                out.append((ex, args))
        return out

    def seeds(self, name: str) -> list[CallArgs]:
        seen: dict[str, CallArgs] = {}
        for c in [*(a for _, a in self.examples_of(name)), *self.t0_calls(name)]:
            seen.setdefault(c.key, c)
        return list(seen.values())

    def stated(self, name: str, call: CallArgs) -> bool:
        """Whether P states this case: one of its examples, or string inputs P writes down."""
        key = call_key(name, call.source())
        if any(call_key(name, a.source()) == key for _, a in self.examples_of(name)):
            return True
        strings = [v for v in call.values if isinstance(v, str)]
        # every string must be one P writes down: an empty or blank one is "mentioned" anywhere
        return bool(strings) and all(s.strip() and prompt_mentions(self.prompt, s) for s in strings)


def existing_calls(ctx: AuthorContext) -> set[str]:
    out: set[str] = set()
    for w in ctx.witnesses:
        out |= calls_in_witness(w.code)
    return out


def witness_calls(ctx: AuthorContext, name: str, refuting: bool | None = None,
                  answers: bool = False) -> list[CallArgs]:
    """The literal calls of ``name`` that the task's validated witnesses make.

    ``refuting``: True for the witnesses that may refute, False for the others (ambiguous, not yet
    classified), None for all. Flaky witnesses never count: their failures say nothing.
    ``answers``: only the witnesses that check what the call gives; a timing witness passes any
    answer in time, an exception too, so it shows no divergence of the answer on its input.
    """
    out: list[CallArgs] = []
    for w in ctx.witnesses:
        if answers and is_timing_witness(w.code):
            continue
        if w.status == WitnessStatus.VALIDATED and not w.flaky and refuting in (None, w.refutes):
            out += calls_in_source(w.code, name.rsplit(".", 1)[-1])
    return out


def input_shape(call: CallArgs) -> str:
    """Which kinds of characters the call's input has: digits, upper case, lower case.

    ``parse_duration('1D')``, ``(' 2H ')`` and ``('30M')`` all read ``9A``; ``is_palindrome('Aba')``
    and ``('aBA')`` both ``Aa``: inputs of one kind, which an ambiguous witness for the first
    already stands for. Within one function and one kind of divergence that is enough to tell an
    ambiguous witness's twin from an input that shows another defect (``'1h'`` reads ``9a``).
    """
    text = call.source()
    return "".join(mark for mark, pattern in (("9", r"[0-9]"), ("A", r"[A-Z]"), ("a", r"[a-z]"))
                   if re.search(pattern, text))
