"""Building a task's input domain: P's stated constraints and what its inputs show, made consistent.

The domain is built once per task, before any author works on it, from what the task itself
holds: P (its prose and examples), the functions the reference defines, and T0's literal calls.
Every constraint is then checked on those same inputs: P's examples and T0's calls are in the
domain by definition, so a constraint one of them breaks was misread (a validator's format that
T0 feeds bad dates to, a "positive" that describes the result) and is dropped.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Callable

from testjack_tui.pysource.examples import extract_examples
from testjack_tui.pysource.calls import CallArgs, aliases_in_tests, calls_in_source
from testjack_tui.pysource.annotations import resolve_annotation
from testjack_tui.pysource.signatures import Target, changed_functions, test_files
from testjack_tui.domain.checks import bind, holds
from testjack_tui.domain.observed import (
    ANY, alphabet, annotation_model, envelope, equal_lengths, merge, shape_model, trimmed, vocabulary,
)
from testjack_tui.domain.stated import Found, Param, stated_constraints, unread_sentences
from testjack_tui.model import Constraint, Task

OBSERVED = "P's examples and T0's inputs"
ReadFile = Callable[[str, str], "str | None"]


def _kinds(annotation: str, values: list[Any]) -> set[str]:
    kinds: set[str] = set()
    text = annotation.lower()
    for word, kind in (("int", "int"), ("float", "float"), ("str", "str"), ("list", "list"), ("tuple", "list"),
                       ("dict", "dict"), ("bool", "bool")):
        if re.search(rf"\b{word}\b", text):
            kinds.add(kind)
    for v in values:
        if isinstance(v, bool):
            kinds.add("bool")
        elif isinstance(v, int):
            kinds.add("int")
        elif isinstance(v, float):
            kinds.add("float")
        elif isinstance(v, str):
            kinds.add("str")
        elif isinstance(v, (list, tuple)):
            kinds.add("list")
        elif isinstance(v, dict):
            kinds.add("dict")
    return kinds


def _task_functions(prompt: str, targets: dict[str, Target]) -> dict[str, Target]:
    """The functions P is about: those P itself defines (HumanEval), else every changed one."""
    defined = {n: t for n, t in targets.items() if re.search(rf"\bdef\s+{re.escape(n.rsplit('.', 1)[-1])}\s*\(", prompt)}
    return defined or targets


def seeds_of(task: Task, name: str, read_file: ReadFile) -> list[CallArgs]:
    """The calls of ``name`` P's examples and T0's tests make, with literal arguments."""
    attr = name.rsplit(".", 1)[-1]
    out: list[CallArgs] = []
    for ex in extract_examples(task.prompt, {attr}):
        out += calls_in_source(ex.call, attr)
    for path in test_files(task.test_patch):
        text = read_file("null", path) or ""
        out += calls_in_source(text, attr, aliases_in_tests(text, attr))
    return out


def _observed(name: str, target: Target, seeds: list[CallArgs]) -> list[Found]:
    out: list[Found] = []
    bound = [bind([p.name for p in target.params], s) for s in seeds]
    for p in target.params:
        values = [b[p.name] for b in bound if p.name in b]
        seen = shape_model(values) if values else False
        typed = annotation_model(resolve_annotation(p.annotation)) if p.annotation else False
        if _bare_container(typed) and seen not in (False, ANY) and not re.search(r"\bAny\b", p.annotation):
            # ``list`` alone says nothing of its elements: the inputs' elements stand; ``List[Any]``
            # says any element is welcome
            typed = False
        if seen is ANY or typed is ANY or (seen is False and typed is False):
            model = ANY
        else:
            model = merge(*(m for m in (seen, typed) if m is not False))
        if model is not ANY:
            kinds = describe(model)
            out.append(Found("type", f"{p.name} takes {kinds} values", OBSERVED if typed is False else
                             f"{OBSERVED}, and the annotation {p.annotation}", [p.name],
                             {"op": "shape", "param": p.name, "shapes": model}))
        classes = alphabet(values)
        if classes is not None:
            wide = sorted(c for c in classes if c in ("alpha", "digit", "space"))  # space: ' ' itself
            chars = "".join(sorted(c for c in classes if c not in ("alpha", "digit", "space")))
            shown = " ".join(wide) + (f" {chars!r}" if chars else "")
            out.append(Found("charset", f"{p.name} is made of {shown.strip()} (as its inputs are)", OBSERVED, [p.name],
                             {"op": "charset", "param": p.name, "classes": wide, "chars": chars}))
        if trimmed(values):
            out.append(Found("trimmed", f"{p.name} has no leading or trailing whitespace (as its inputs have none)",
                             OBSERVED, [p.name], {"op": "trimmed", "param": p.name}))
        words = vocabulary(values)
        if words is not None:
            out.append(Found("vocabulary", f"{p.name} is made of the words {' '.join(map(repr, words))} (as its inputs are)",
                             OBSERVED, [p.name], {"op": "vocabulary", "param": p.name, "words": words}))
    names = [p.name for p in target.params]
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if equal_lengths([(s[a], s[b]) for s in bound if a in s and b in s]):
                out.append(Found("equal_length", f"{a} and {b} have equal length (as their inputs have)",
                                 OBSERVED, [a, b], {"op": "same_len", "params": [a, b]}))
    return out


def describe(model: dict[str, Any] | None) -> str:
    """A shape model in words: ``list[int|float]``, ``str``, ``dict[str:int]``."""
    if model is ANY:
        return "any"
    parts = []
    for kind in model["kinds"]:
        if kind in ("list", "tuple", "set"):
            parts.append(f"{kind}[{describe(model.get(kind))}]" if model.get(kind) is not ANY else kind)
        elif kind == "dict" and model.get("dict"):
            parts.append(f"dict[{describe(model['dict']['keys'])}:{describe(model['dict']['values'])}]")
        else:
            parts.append(kind)
    return "|".join(parts)


def _bare_container(model: Any) -> bool:
    if not isinstance(model, dict) or len(model["kinds"]) != 1:
        return False
    kind = model["kinds"][0]
    return kind in ("list", "tuple", "set", "dict") and model.get(kind) is ANY


def _consistent(found: Found, signature: list[str], seeds: list[CallArgs]) -> bool:
    return all(holds(found.check, bind(signature, s)) is not False for s in seeds)


def build_domain(task: Task, read_file: ReadFile) -> list[Constraint]:
    targets = _task_functions(task.prompt, changed_functions(task.reference_patch, read_file, "reference"))
    out: list[Constraint] = []
    for name in sorted(targets):
        target = targets[name]
        signature = [p.name for p in target.params]
        seeds = seeds_of(task, name, read_file)
        bound = [bind(signature, s) for s in seeds]
        params = {p.name: Param(p.name, _kinds(p.annotation, [b[p.name] for b in bound if p.name in b]))
                  for p in target.params}
        stated = stated_constraints(task.prompt, params)
        read: set[str] = set()
        for found, is_stated in [*((f, True) for f in stated), *((f, False) for f in _observed(name, target, seeds))]:
            if not _consistent(found, signature, seeds):
                continue
            if is_stated:
                read.add(found.sentence)
            digest = hashlib.sha256(f"{task.id}\0{name}\0{found.kind}\0{found.text}".encode()).hexdigest()[:8]
            check = dict(found.check, function=name.rsplit(".", 1)[-1], signature=signature)
            out.append(Constraint(id=f"c-{digest}", kind=found.kind, text=found.text, source=found.sentence[:400],
                                  params=found.params, check=check, stated=is_stated))
        out += _unread(task, name, signature, unread_sentences(task.prompt, params, read), bound)
    return out


UNREAD = "unread"


def _unread(task: Task, name: str, signature: list[str], unread: list[str], bound: list[dict[str, Any]]) -> list[Constraint]:
    """One ``unread`` constraint per sentence of P that constrains the inputs in words no reader
    understood (a misread one, dropped above, counts as unread too). It rules nothing out; it
    carries the envelope of each parameter's inputs, beyond which a call is unplaced."""
    if not unread:
        return []
    envelopes = {p: envelope([b[p] for b in bound if p in b]) for p in signature}
    out: list[Constraint] = []
    for sentence in unread:
        digest = hashlib.sha256(f"{task.id}\0{name}\0{UNREAD}\0{sentence}".encode()).hexdigest()[:8]
        check = {"op": UNREAD, "kind": UNREAD, "function": name.rsplit(".", 1)[-1], "signature": signature,
                 "envelopes": envelopes}
        out.append(Constraint(id=f"c-{digest}", kind=UNREAD, text=sentence[:400], source=sentence[:400],
                              params=[p for p in signature if re.search(rf"(?<![\w.]){re.escape(p)}(?!\w)", sentence)],
                              check=check, stated=True))
    return out
