"""Constraints P states about its inputs, read sentence by sentence.

What is read (each bound to the parameters it names, or to the only parameter of the right kind):

- comparisons, chained or not: ``0 <= k <= len(arr)``, ``1 <= len(arr) <= 100``,
  ``-1000 <= arr[i] <= 1000``, ``n > 1``, ``x is less than 10``, ``at least 2``, powers ``10^5``;
- signs: "a positive integer n", "a list of non-negative integers";
- sizes: "non-empty", "at least one", "a list of two strings", "of length at least 2",
  "of equal length";
- alphabets: "consists only of '(' and ')'", "contains only lowercase letters", "1s and 0s";
- formats: ``mm-dd-yyyy`` and its kin (``dd/mm/yy``, ``hh:mm``);
- order: "given a sorted list";
- types, as a docstring lists a parameter's: "*file* (:class:`str` or :class:`os.PathLike`) is
  ...", "file (str or os.PathLike): ..." (``param_types``).

A sentence about what the function returns is not about its inputs: a phrase that comes after a
"return" in its sentence is not read. Plain regular expressions, not a parser: prompts are short
and their constraint phrases few; every constraint is then checked against P's examples and T0's
inputs (``build.py``), and one they break is dropped, so a misreading costs recall, never a
false refutation.

A sentence that constrains the inputs (``constrains_inputs``) but that no reader turns into a
constraint is *unread* (``unread_sentences``; ``build.py`` keeps it as an ``unread`` constraint and
``grounding.py`` places no call beyond the inputs P and T0 show for its function).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10}
_NUM = r"(?:-?\d+(?:\s*(?:\^|\*\*)\s*\d+)?|-?\d+e\d+)"
_OPS = r"(?:<=|>=|<|>|≤|≥|==)"
_OP_NORM = {"≤": "<=", "≥": ">="}


@dataclass
class Param:
    """A parameter as the domain sees it: its name and the kinds of value it takes."""

    name: str
    kinds: set[str] = field(default_factory=set)  # "int", "float", "str", "list", "dict", "bool"

    def is_(self, *kinds: str) -> bool:
        return bool(self.kinds & set(kinds))


@dataclass
class Found:
    kind: str
    text: str
    sentence: str
    params: list[str]
    check: dict[str, Any]


def sentences(prompt: str) -> list[str]:
    """P's prose, one sentence at a time, without code lines, doctests and their outputs."""
    kept: list[str] = []
    skip_next = False
    for raw in prompt.splitlines():
        line = raw.strip()
        if skip_next and line and not line.startswith(">>>"):
            skip_next = False
            continue
        skip_next = False
        if line.startswith(">>>"):
            skip_next = True
            continue
        if re.match(r"(def|class|from|import|return|@)\b", line) or any(a in line for a in ("➞", "==>", "=>")):
            continue
        if re.match(r"^[\w.]+\(.*\)\s*(?:->|→|==|=)", line):  # an example line: f(x) -> y
            continue
        kept.append(line.strip('"\' '))
    text = "\n".join(kept)
    parts = re.split(r"(?<=[.!?;:])\s+(?=[A-Z\-*\d(])|\n\s*\n|\n\s*(?=[-*•]\s)|\n(?=\s*\d+\.\s)", text)
    out = []
    for p in parts:
        p = re.sub(r"\s+", " ", p).strip()
        if p:
            out.append(p)
    return out


def _before_return(sentence: str, start: int) -> bool:
    """Whether the phrase at ``start`` comes before any word about the function's result."""
    m = re.search(r"\b(?:return|returns|returned|output|outputs|result)\b", sentence, re.I)
    return m is None or m.start() > start


def _int(text: str) -> int | None:
    text = text.replace(" ", "")
    if text.lower() in _WORDS:
        return _WORDS[text.lower()]
    try:
        if "^" in text or "**" in text:
            base, exp = re.split(r"\^|\*\*", text)
            return int(base) ** int(exp) if int(exp) < 19 else None
        if "e" in text:
            base, exp = text.split("e")
            return int(base) * 10 ** int(exp) if int(exp) < 19 else None
        return int(text)
    except ValueError:
        return None


def _term(text: str, params: dict[str, Param]) -> dict[str, Any] | None:
    text = text.strip()
    m = re.fullmatch(r"len\(\s*(\w+)\s*\)|(\w+)\.length|\|(\w+)\|", text)
    if m:
        name = next(g for g in m.groups() if g)
        return {"len": name} if name in params else None
    m = re.fullmatch(r"(\w+)\s*\[\s*\w\s*\]", text)
    if m:
        return {"each": m.group(1)} if m.group(1) in params and params[m.group(1)].is_("list") else None
    if text in params:
        return {"param": text}
    v = _int(text)
    return {"num": v} if v is not None else None


_TERM = r"(?:len\(\s*\w+\s*\)|\w+\.length|\w+\s*\[\s*\w\s*\]|" + _NUM + r"|[A-Za-z_]\w*)"
_CHAIN = re.compile(rf"(?<![\w.\[])({_TERM})\s*({_OPS})\s*({_TERM})(?:\s*({_OPS})\s*({_TERM}))?(?![\w(\[])")


def _comparisons(sentence: str, params: dict[str, Param]) -> list[Found]:
    out: list[Found] = []
    for m in _CHAIN.finditer(sentence):
        if not _before_return(sentence, m.start()):
            continue
        raw_terms = [m.group(1), m.group(3)] + ([m.group(5)] if m.group(5) else [])
        ops = [_OP_NORM.get(m.group(2), m.group(2))] + ([_OP_NORM.get(m.group(4), m.group(4))] if m.group(4) else [])
        terms = [_term(t, params) for t in raw_terms]
        if any(t is None for t in terms):
            continue
        named = [t for t in terms if "num" not in t]
        if not named or all("num" in t for t in terms):
            continue
        used = sorted({next(iter(t.values())) for t in named})
        # a scalar parameter compared with numbers must take numbers
        if any("param" in t and not params[t["param"]].is_("int", "float") for t in terms):
            continue
        text = " ".join(x for pair in zip(raw_terms, ops + [""]) for x in pair if x).strip()
        out.append(Found("range" if len(named) == 1 else "relation", text, sentence, used,
                         {"op": "compare", "terms": terms, "ops": ops}))
    return out


_PHRASES = [  # "x is less than 10": (words, operator, offset)
    (r"(?:less|smaller|lower) than", "<"), (r"(?:greater|larger|bigger|more) than", ">"),
    (r"at least", ">="), (r"at most", "<="), (r"(?:no more|not more|no greater|not greater) than", "<="),
    (r"(?:no less|not less|no fewer) than", ">="),
]


def _phrase_bounds(sentence: str, params: dict[str, Param]) -> list[Found]:
    out: list[Found] = []
    for p in params.values():
        if not p.is_("int", "float"):
            continue
        for words, op in _PHRASES:
            pattern = rf"(?<![\w.]){re.escape(p.name)}\b[^.;:]{{0,25}}?\b(?:is|are|be|will be)\s+(?:always\s+)?{words}\s+({_NUM}|{'|'.join(_WORDS)})\b"
            for m in re.finditer(pattern, sentence, re.I):
                v = _int(m.group(1))
                if v is None or not _before_return(sentence, m.start()):
                    continue
                out.append(Found("range", f"{p.name} {op} {v}", sentence, [p.name],
                                 {"op": "compare", "terms": [{"param": p.name}, {"num": v}], "ops": [op]}))
    return out


def _bind(sentence: str, after: str, params: dict[str, Param], kinds: tuple[str, ...]) -> list[str]:
    """The parameters a phrase is about: one named right after it, else the one of its kind."""
    words = re.findall(r"[A-Za-z_]\w*", after[:60])
    for w in words[:5]:
        if w in params and params[w].is_(*kinds):
            return [w]
    of_kind = [p.name for p in params.values() if p.is_(*kinds)]
    if len(of_kind) == 1:
        return of_kind
    named = [n for n in of_kind if re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", sentence)]
    return named if len(named) == 1 else []


def _signs(sentence: str, params: dict[str, Param]) -> list[Found]:
    out: list[Found] = []
    for m in re.finditer(r"\b(strictly positive|positive|non-?negative)\s+(?:(?:whole|real|decimal|floating[- ]point)\s+)?(integer|number|int|float|value|digit)s?\b",
                         sentence, re.I):
        if not _before_return(sentence, m.start()):
            continue
        word = m.group(1).lower()
        op, v = (">", 0) if "positive" in word and "non" not in word else (">=", 0)
        plural = sentence[m.start():m.end()].lower().endswith("s")
        before = sentence[max(0, m.start() - 30):m.start()].lower()
        if plural or re.search(r"(?:list|array|sequence|tuple) of\s*$", before):
            names = _bind(sentence, sentence[m.end():], params, ("list",))
            terms = [{"each": n} for n in names]
        else:
            names = _bind(sentence, sentence[m.end():], params, ("int", "float"))
            terms = [{"param": n} for n in names]
        for name, term in zip(names, terms):
            label = f"each {name}[i] {op} {v}" if "each" in term else f"{name} {op} {v}"
            out.append(Found("range", label, sentence, [name], {"op": "compare", "terms": [term, {"num": v}], "ops": [op]}))
    return out


_CONTAINER = r"(list|array|sequence|tuple|vector|string|str|word|sentence|text|dictionary|dict|map)"


def _kinds_of(word: str) -> tuple[str, ...]:
    word = word.lower()
    if word in ("string", "str", "word", "sentence", "text"):
        return ("str",)
    if word in ("dictionary", "dict", "map"):
        return ("dict",)
    return ("list",)


def _sizes(sentence: str, params: dict[str, Param]) -> list[Found]:
    out: list[Found] = []
    for m in re.finditer(rf"\bnon-?empty\s+{_CONTAINER}s?\b", sentence, re.I):
        if _before_return(sentence, m.start()):
            for n in _bind(sentence, sentence[m.end():], params, _kinds_of(m.group(1))):
                out.append(Found("non_empty", f"{n} is non-empty", sentence, [n], {"op": "min_len", "param": n, "n": 1}))
    for m in re.finditer(rf"\b{_CONTAINER}\s+(?:[A-Za-z_]\w*\s+)?(?:is|will be|are)\s+(?:always\s+)?(?:non-?empty|not empty|never empty)", sentence, re.I):
        if _before_return(sentence, m.start()):
            for n in _bind(sentence, sentence[m.start():], params, _kinds_of(m.group(1))):
                out.append(Found("non_empty", f"{n} is non-empty", sentence, [n], {"op": "min_len", "param": n, "n": 1}))
    for m in re.finditer(r"\b(?:contains?|has|have|with|includes?)\s+at least one\b", sentence, re.I):
        if _before_return(sentence, m.start()):
            for n in _bind(sentence, sentence[:m.start()][-80:], params, ("list", "str", "dict")):
                out.append(Found("at_least_one", f"{n} has at least one element", sentence, [n],
                                 {"op": "min_len", "param": n, "n": 1}))
    for m in re.finditer(rf"\b(?:list|array|tuple|pair) of (two|three|four|five|\d+)\s+(?!or\b|more\b|less\b|fewer\b)\w+", sentence, re.I):
        n_items = _int(m.group(1))
        if n_items is None or not _before_return(sentence, m.start()):
            continue
        for n in _bind(sentence, sentence[m.end():], params, ("list",)):
            out.append(Found("length", f"len({n}) == {n_items}", sentence, [n], {"op": "len_eq", "param": n, "n": n_items}))
    for m in re.finditer(rf"(?:length (?:of )?at least|at least)\s+({_NUM}|{'|'.join(_WORDS)})\s*(?:elements|numbers|items|values|entries|integers|strings|characters)?", sentence, re.I):
        if "length" not in m.group(0).lower() and not re.search(r"elements|numbers|items|values|entries|integers|strings", m.group(0), re.I):
            continue
        k = _int(m.group(1))
        if k is None or not _before_return(sentence, m.start()):
            continue
        for n in _bind(sentence, sentence[max(0, m.start() - 60):m.start()], params, ("list", "str")):
            out.append(Found("length", f"len({n}) >= {k}", sentence, [n], {"op": "min_len", "param": n, "n": k}))
    for m in re.finditer(rf"\b(?:(?:the )?(?:length|size) of (?:the )?(\w+)|(\w+))\s+(?:will be |is |are |should be )?(?:always )?(?:in|within) the range (?:of )?\[\s*({_NUM})\s*,\s*({_NUM})\s*\]", sentence, re.I):
        lo, hi = _int(m.group(3)), _int(m.group(4))
        if lo is None or hi is None or not _before_return(sentence, m.start()):
            continue
        if m.group(1):
            names = _bind(sentence, m.group(1) + " " + sentence[m.end():], params, ("list", "str"))
            terms = [{"len": n} for n in names]
        else:
            names = [m.group(2)] if m.group(2) in params and params[m.group(2)].is_("int", "float") else []
            terms = [{"param": n} for n in names]
        for n, t in zip(names, terms):
            label = f"{lo} <= {'len(' + n + ')' if 'len' in t else n} <= {hi}"
            out.append(Found("range", label, sentence, [n], {"op": "compare", "terms": [{"num": lo}, t, {"num": hi}], "ops": ["<=", "<="]}))
    if re.search(r"\b(?:equal|same) (?:length|size)s?\b|\bequal-length\b", sentence, re.I):
        sized = [p.name for p in params.values() if p.is_("list", "str")]
        named = [n for n in sized if re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", sentence)]
        chosen = named if len(named) >= 2 else (sized if len(sized) == 2 else [])
        if len(chosen) >= 2:
            out.append(Found("equal_length", f"{' and '.join(chosen)} have equal length", sentence, chosen,
                             {"op": "same_len", "params": chosen}))
    return out


_ALPHABET_WORDS = [
    (r"lower[- ]?case (?:english )?(?:letters|alphabets|characters)", {"classes": ["lower"]}),
    (r"upper[- ]?case (?:english )?(?:letters|alphabets|characters)", {"classes": ["upper"]}),
    (r"(?:english )?(?:letters|alphabets|alphabetic characters)", {"classes": ["alpha"]}),
    (r"digits|numbers|numerals|numeric characters", {"classes": ["digit"]}),
    (r"spaces|whitespace", {"chars": " "}),
    (r"1s and 0s|0s and 1s|ones and zeros|zeros and ones|0 and 1|1 and 0", {"chars": "01"}),
]


def _alphabets(sentence: str, params: dict[str, Param]) -> list[Found]:
    out: list[Found] = []
    for m in re.finditer(r"\b(?:consists?|consisting|made up|composed|contains?|containing|comprised|has|have)\s+(?:of\s+)?only\s+(?:of\s+)?(.{1,80}?)(?=[.;]\s|[.;]?$|,\s*(?:and )?(?:return|the|it|you)\b)"
                         r"|\bonly (?:contains?|consists? of|has)\s+(.{1,80}?)(?=[.;]\s|[.;]?$)"
                         r"|\b(?:consists?|consisting|made up|composed) of\s+(.{1,80}?)\s+only\b", sentence, re.I):
        if not _before_return(sentence, m.start()):
            continue
        what = m.group(1) or m.group(2) or m.group(3)
        classes: set[str] = set()
        chars = "".join(re.findall(r"""['"`](.)['"`]""", what))
        rest = re.sub(r"""['"`].['"`]""", " ", what)
        for pattern, adds in _ALPHABET_WORDS:
            if re.search(rf"\b(?:{pattern})\b", rest, re.I):
                classes |= set(adds.get("classes", []))
                chars += adds.get("chars", "")
                rest = re.sub(rf"\b(?:{pattern})\b", " ", rest, flags=re.I)
        if not classes and not chars:
            continue
        before = sentence[:m.start()]
        named = [p.name for p in params.values() if p.is_("str", "list")
                 and re.search(rf"(?<![\w.]){re.escape(p.name)}(?!\w)", before)]
        names = named if len(named) > 1 else _bind(sentence, before[-60:] + " " + what, params, ("str", "list"))
        for n in names:
            shown = " ".join(sorted(classes)) + (f" {''.join(sorted(set(chars)))!r}" if chars else "")
            out.append(Found("charset", f"{n} consists only of {shown.strip()}", sentence, [n],
                             {"op": "charset", "param": n, "classes": sorted(classes), "chars": "".join(sorted(set(chars)))}))
    return out


_FIELDS = {"mm": r"\d{2}", "dd": r"\d{2}", "yyyy": r"\d{4}", "yy": r"\d{2}", "hh": r"\d{2}", "ss": r"\d{2}"}


def _formats(sentence: str, params: dict[str, Param]) -> list[Found]:
    out: list[Found] = []
    for m in re.finditer(r"\b((?:mm|dd|yyyy|yy|hh|ss)(?:([-/:.])(?:mm|dd|yyyy|yy|hh|ss))+)\b", sentence, re.I):
        fmt = m.group(1)
        parts = re.split(r"([-/:.])", fmt)
        pattern = "".join(_FIELDS[p.lower()] if p.lower() in _FIELDS else re.escape(p) for p in parts)
        for n in _bind(sentence, sentence, params, ("str",)):
            out.append(Found("format", f"{n} has the format {fmt}", sentence, [n], {"op": "regex", "param": n, "pattern": pattern}))
    return out


def _order(sentence: str, params: dict[str, Param]) -> list[Found]:
    out: list[Found] = []
    for m in re.finditer(r"\b(?:given|receives?|takes?|input is|is)\s+(?:an?\s+|the\s+)?sorted\s+(?:list|array|sequence)"
                         r"|\b(?:list|array|sequence)\s+(?:\w+\s+)?(?:is|are)\s+(?:already\s+)?sorted(?!\s+by)", sentence, re.I):
        if _before_return(sentence, m.start()):
            for n in _bind(sentence, sentence[m.start():], params, ("list",)):
                out.append(Found("sorted", f"{n} is sorted in ascending order", sentence, [n], {"op": "sorted", "param": n}))
    return out


_BRACKETS = re.compile(r"bracket|parenthes|\bbraces?\b|['\"][()\[\]{}<>]+['\"]", re.I)


def _balanced(sentence: str, params: dict[str, Param]) -> list[Found]:
    """ "balanced" brackets: a string whose every opening bracket is closed, in order.

    A list parameter only where the sentence speaks of brackets: "it's balanced" may also say a
    list reads the same both ways, and a bracket check on a list of numbers places none of its inputs.
    """
    out: list[Found] = []
    kinds = ("str", "list") if _BRACKETS.search(sentence) else ("str",)
    for m in re.finditer(r"\b(?:balanced|properly nested|well-formed)\b", sentence, re.I):
        if _before_return(sentence, m.start()) and not re.search(r"\b(?:if|whether|check)\b", sentence[:m.start()], re.I):
            for n in _bind(sentence, sentence, params, kinds):
                out.append(Found("balanced", f"the brackets in {n} are balanced", sentence, [n], {"op": "balanced", "param": n}))
    return out


def _primes(sentence: str, params: dict[str, Param]) -> list[Found]:
    """ "n is not a prime", "p is a prime number": a property of an integer parameter."""
    out: list[Found] = []
    for p in params.values():
        if not p.is_("int"):
            continue
        m = re.search(rf"(?<![\w.]){re.escape(p.name)}\b(?:[^.;:]{{0,30}}?\b(?:and|is|will be))?\s+(?:is\s+)?(not\s+)?(?:a\s+)?prime\b",
                      sentence, re.I)
        if m is None or not _before_return(sentence, m.start()):
            continue
        name = p.name
        if re.search(r"\b(?:if|whether|check)\b", sentence[:m.start()], re.I):
            continue  # deciding primality is the task, not a precondition
        negate = bool(m.group(1))
        out.append(Found("predicate", f"{name} is {'not ' if negate else ''}a prime", sentence, [name],
                         {"op": "prime", "param": name, "negate": negate}))
    return out


def _letter_case(sentence: str, params: dict[str, Param]) -> list[Found]:
    """ "letters are always uppercase", "the input is in lower case": the case of every letter."""
    out: list[Found] = []
    m = re.search(r"\b(?:are|is|be)\s+(?:always\s+|all\s+)?(?:in\s+)?(upper|lower)[- ]?case\b", sentence, re.I)
    if m and _before_return(sentence, m.start()) and not re.search(r"\b(?:if|whether|check)\b", sentence[:m.start()], re.I):
        case = m.group(1).lower()
        for n in _bind(sentence, sentence, params, ("str", "list")):
            out.append(Found("charset", f"the letters of {n} are {case} case", sentence, [n],
                             {"op": "case", "param": n, "case": case}))
    return out


# A parameter's types as a docstring lists them, at the start of a sentence: ``*name* (:class:`A`
# or :class:`B`)`` (reST), ``name (A or B)`` (Google style); each type a plain dotted name.
_TYPED = re.compile(r"^\*{0,2}`?(?P<name>[A-Za-z_]\w*)`?\*{0,2}\s*\((?P<types>[^()]+)\)")
_TYPE = re.compile(r"^(?::(?:py:)?class:)?`?~?(?P<name>[A-Za-z_][\w.]*)`?$")


def param_types(sentence: str, params: dict[str, Param]) -> list[Found]:
    """The types a sentence says a parameter takes ("file is a str or an os.PathLike"). Such a
    constraint rules nothing out (``checks``: True for a value of a named type, else unknown); it
    reads the sentence, and lets a value of a named type stand in a witness (``grounding``)."""
    m = _TYPED.match(sentence)
    if m is None or m.group("name") not in params:
        return []
    names = []
    for part in re.split(r"\s*(?:,|\bor\b|\|)\s*", m.group("types").strip()):
        t = _TYPE.match(part.strip())
        if part.strip() and t is None:
            return []  # a phrase, not a list of types ("Collection of str"): not read here
        if t is not None:
            names.append(t.group("name"))
    # the rest of the sentence, its reST roles read as their text (``:attr:`x <A.x>``` is x): one that
    # says more of the inputs (a length, a range) keeps the sentence unread, so it is not read here
    rest = re.sub(r":\w+(?::\w+)?:`~?([^`<]*?)\s*(?:<[^>`]*>)?`", r"\1", sentence[m.end():])
    if not names or constrains_inputs(rest, params):
        return []
    name = m.group("name")
    return [Found("type", f"{name} takes {' or '.join(names)} values (as P states)", sentence, [name],
                  {"op": "types", "param": name, "types": names})]


READERS = (_letter_case, _primes, _comparisons, _phrase_bounds, _signs, _sizes, _alphabets, _formats, _order, _balanced, param_types)


# Unread sentences: a sentence that constrains the inputs in words no reader above understands.
# Cues that say "this is a precondition" wherever they stand in the sentence ...
_PRECONDITION = re.compile(
    r"\b(?:assum(?:e|es|ed|ing)|guarantee[ds]?|given that|provided that|will (?:always|never|only)|"
    r"(?:is|are|be) (?:always|never)|you (?:can|may) (?:safely )?(?:assume|expect)|it is known|"
    r"constraints?|preconditions?)\b", re.I)
# ... and words that constrain a value (its length, range, format, order, ...), read only before
# any word about the result or the task itself (return, find, check whether, ...); "only when" and
# "only if" state a condition of the behaviour, not of the inputs
_CONSTRAINING = re.compile(
    r"\b(?:lengths?|long|size|range|ranges|format|formatted|of the form|in the form|pattern|valid|invalid|"
    r"(?:less|more|greater|smaller|larger|bigger|lower|higher|fewer) than|at (?:most|least)|"
    r"no (?:more|less|greater|fewer) than|between|equal to|equals?|exceed(?:s|ing)?|up to|within|bounded|"
    r"limit(?:s|ed)?|inclusive|exclusive|(?:strictly )?positive|negative|non-?negative|non-?positive|"
    r"non-?zero|natural numbers?|sorted|ascending|descending|increasing|decreasing|unique|distinct|"
    r"duplicates?|once|exactly|only(?! (?:when|if)\b)|non-?empty|empty|consists?|consisting|composed|made up|"
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)[- ](?:digits?|characters?|letters?|elements?|items?))\b"
    r"|<=|>=|≤|≥|(?<![-=<>])[<>](?![-=<>])|\[\s*-?\w+\s*,\s*-?[\w*+^ -]+\]", re.I)
# the sentence must be about the inputs: it names a parameter or one of these
_INPUT_WORDS = re.compile(
    r"\b(?:inputs?|given|arguments?|parameters?|params?|lists?|arrays?|strings?|numbers?|integers?|ints?|"
    r"floats?|tuples?|dictionar(?:y|ies)|dicts?|matri(?:x|ces)|grids?|sequences?|words?|sentences?|texts?|"
    r"characters?|digits?|values?|elements?|items?|entries|keys?|dates?|times?)\b", re.I)
# the task's own verb: what follows it describes what to compute, not what the inputs are
_TASK = re.compile(r"\b(?:if|whether|(?:check|find|count|compute|calculate|determine|sort|merge|remove|delete|"
                   r"extract|apply|filter|insert|locate|pack|put|create|interleave|split|convert|replace|reverse|"
                   r"rotate|add|multiply|sum|concatenate|join|flatten|print|identify|select|separate|group|"
                   r"generate|build|make|search|match|move|shift|swap|toggle|encode|decode|compare)(?:s|es)?)\b",
                   re.I)


# a sentence that says what the function does on an input ("an empty list gives no chunks", "a size
# below 1 raises ValueError") puts that input in the domain: it constrains nothing
_BEHAVIOUR = re.compile(r"\b(?:raise[sd]?|raising|throws?|gives?|yields?|produces?|\w+Error|exceptions?|"
                        r"(?:is|are) (?:treated|ignored|skipped|rejected)|counts? as)\b", re.I)


def constrains_inputs(sentence: str, params: dict[str, Param], errors: bool = False) -> bool:
    """Whether a sentence of P says something about the inputs a call may take (read or not).

    A cue of a precondition ("assume", "guaranteed", "given that", "will always") counts wherever it
    stands; a word that constrains a value ("less than", "at most", "between", "positive",
    "sorted", "distinct", "valid", a length, a range, a format) counts only before any word about
    the result (``_before_return``) and before the task's own verb ("check whether", "find",
    "count"), where it describes what to compute, and only in a sentence that says nothing of what
    the function does on such an input (``_BEHAVIOUR``: "gives", "raises ...Error") and in a P that
    says nothing of errors (``errors``: P specifies what invalid inputs raise, so its formats and
    ranges describe behaviour, not preconditions). Errs towards yes: a sentence counted here that
    constrains nothing costs recall, one missed can cost a false refutation.
    """
    if re.match(r"(?:assert|print)\b|>>>", sentence):
        return False
    named = any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", sentence) for n in params)
    if not named and not _INPUT_WORDS.search(sentence):
        return False
    if _PRECONDITION.search(sentence):
        return True
    if errors or _BEHAVIOUR.search(sentence):
        return False
    task = _TASK.search(sentence)
    for m in _CONSTRAINING.finditer(sentence):
        if _before_return(sentence, m.start()) and (task is None or task.start() > m.start()):
            return True
    return False


def unread_sentences(prompt: str, params: dict[str, Param], read: set[str]) -> list[str]:
    """The sentences of P that constrain the inputs (``constrains_inputs``) but are not in ``read``
    (the sentences some reader took a constraint from that P's examples and T0's inputs keep)."""
    out: list[str] = []
    errors = bool(re.search(r"\b(?:raises?|raising|throws?)\b[^.;]{0,40}?(?:\w+Error|exception)\b", prompt, re.I))
    for sentence in sentences(prompt):
        if sentence not in read and sentence not in out and constrains_inputs(sentence, params, errors):
            out.append(sentence)
    return out


def stated_constraints(prompt: str, params: dict[str, Param]) -> list[Found]:
    out: list[Found] = []
    seen: set[str] = set()
    for sentence in sentences(prompt):
        for read in READERS:
            for found in read(sentence, params):
                key = f"{found.kind}\0{found.text}"
                if key not in seen:
                    seen.add(key)
                    out.append(found)
    return out
