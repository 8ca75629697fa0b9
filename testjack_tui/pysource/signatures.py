"""Which functions a patch adds or changes, their parameters, and how a test reaches them.

A function is *changed* by a patch when one of the lines the patch adds lies inside it in the
post-patch source (a new file changes all of its functions). Public module-level functions are
probed, and public methods of public classes (``Class.method``) when a test can reach them: a
static or class method through its class, an instance method through an object built the way
T0's tests build one (``spec = PathSpec.from_lines('gitwildmatch', ['*.txt'])``, literal
arguments only) or, for a class whose constructor needs no argument, ``Class()``.

Asked for (``classes``), a public class is a target of its own (binding ``"constructor"``) when
the patch changes its ``__init__``, ``__new__`` or ``__post_init__``, a public property, or a
dataclass field: it is called like a function (``Interval(1, 2)``) with the constructor's
parameters, and the object it builds is compared by its properties the patch changes (``look``)
and the other public attributes it sets (``attrs``, read only where P or T0 names them). Asked
for (``private``), private helpers (``_name``, never dunders) are targets too; the author decides
what they may be used for. ``patches.read_patch`` reads the diffs; ``ast`` reads the sources.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable, Iterator

from testjack_tui.patches import read_patch
from testjack_tui.testpaths import is_test_source

ReadFile = Callable[[str, str], "str | None"]


@dataclass(frozen=True)
class Param:
    name: str
    annotation: str = ""  # source of the annotation, "" when absent
    default: str | None = None  # source of the default, None when required
    keyword_only: bool = False


@dataclass(frozen=True)
class Target:
    """A public module-level function, or a public method, that a patch adds or changes."""

    name: str  # ``f``, or ``Class.method``
    path: str  # file, relative to the repository root
    params: tuple[Param, ...] = ()  # without ``self`` / ``cls``
    returns: str = ""
    # "" for a function; "class" (static or class method), "instance", or "constructor" (a class)
    binding: str = ""
    bare_constructor: bool = False  # an instance method's class can be built as ``Class()``
    variadic: bool = False  # a constructor taking *args / **kwargs: any call T0 makes fits
    look: tuple[str, ...] = ()  # a constructor's properties the patch changes: always read
    attrs: tuple[str, ...] = ()  # its other public attributes and properties: read when P or T0 names them

    @property
    def method(self) -> bool:
        return self.binding in ("class", "instance")

    @property
    def owner(self) -> str:
        """The class of a method ("" for a function or a constructor)."""
        return self.name.rsplit(".", 1)[0] if self.method else ""

    @property
    def private(self) -> bool:
        return self.attr.startswith("_")

    @property
    def attr(self) -> str:
        """The name a call spells last: ``f`` or ``method``."""
        return self.name.rsplit(".", 1)[-1]

    @property
    def module(self) -> str:
        return module_of(self.path)

    @property
    def required(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.default is None and not p.keyword_only)


@dataclass(frozen=True)
class Access:
    """How a test reaches a function: the import lines and the expression naming it."""

    imports: tuple[str, ...]
    expr: str


def module_of(path: str) -> str:
    mod = path[:-3] if path.endswith(".py") else path
    if mod.startswith("src/"):
        mod = mod[4:]
    mod = mod.replace("/", ".")
    return mod[: -len(".__init__")] if mod.endswith(".__init__") else mod


def _added_lines(patch: str) -> dict[str, set[int] | None]:
    """File -> added target line numbers (None: a new file, every line counts)."""
    out: dict[str, set[int] | None] = {}
    for f in read_patch(patch):
        if f.is_removed or not f.path.endswith(".py") or is_test_source(f.path):
            continue
        out[f.path] = None if f.is_added else set(f.added)
    return out


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[Param, ...]:
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out = [
        Param(p.arg, ast.unparse(p.annotation) if p.annotation else "", ast.unparse(d) if d is not None else None)
        for p, d in zip(positional, defaults)
    ]
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append(Param(p.arg, ast.unparse(p.annotation) if p.annotation else "",
                         ast.unparse(d) if d is not None else None, keyword_only=True))
    return tuple(out)


def _touches(node: ast.AST, lines: set[int] | None) -> bool:
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return lines is None or any(start <= n <= (node.end_lineno or node.lineno) for n in lines)


def _probeable(node: ast.AST, private: bool = False) -> bool:
    """A public (or, asked for, private but not dunder) synchronous function with a plain
    signature (no *args/**kwargs to generate for)."""
    if not isinstance(node, ast.FunctionDef) or node.name.startswith("__"):
        return False  # a coroutine needs an event loop to probe; left to other authors
    if node.name.startswith("_") and not private:
        return False
    return not (node.args.vararg or node.args.kwarg)


def _decorators(node: ast.FunctionDef) -> set[str]:
    return {ast.unparse(d).rsplit(".", 1)[-1] for d in node.decorator_list}


def _bare_constructor(cls: ast.ClassDef) -> bool:
    """Whether ``Class()`` builds one: an ``__init__`` without required parameters, or none at all
    on a plain class (a dataclass or a subclass may still want arguments)."""
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        return not cls.bases and not cls.decorator_list
    required = [p for p in _params(init)[1:] if p.default is None and not p.keyword_only]
    return not required and not init.args.vararg


_PROPERTY = {"property", "cached_property"}
_BUILDERS = ("__init__", "__new__", "__post_init__")


def _constructor(cls: ast.ClassDef, path: str, lines: set[int] | None) -> Target | None:
    """``cls`` as a constructor target when the patch changes how its objects are built or read."""
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    properties = [n for n in cls.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")
                  and _decorators(n) & _PROPERTY]
    dataclass = any(d.endswith("dataclass") for d in (ast.unparse(x).split("(")[0] for x in cls.decorator_list))
    fields = [n for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
              and "ClassVar" not in ast.unparse(n.annotation)] if dataclass else []
    touched = (any(_touches(methods[b], lines) for b in _BUILDERS if b in methods)
               or any(_touches(p, lines) for p in properties) or any(_touches(f, lines) for f in fields))
    if not touched:
        return None
    init = methods.get("__init__") or methods.get("__new__")
    variadic = False
    if init is not None:
        # SymPy's ``__new__(cls, *args)``: nothing to generate for, but T0's own calls and their
        # mutations still fit
        variadic = bool(init.args.vararg or init.args.kwarg)
        params = _params(init)[1:]  # self / cls
    elif dataclass:
        params = tuple(Param(f.target.id, ast.unparse(f.annotation), ast.unparse(f.value) if f.value else None)
                       for f in fields)
    elif not cls.bases:
        params = ()
    else:
        return None  # an inherited constructor: its signature is not in this file
    look = tuple(p.name for p in properties if _touches(p, lines))
    names = {p.name for p in properties} | {f.target.id for f in fields}
    for name in _BUILDERS:
        fn = methods.get(name)
        if fn is not None and fn.args.args:
            me = fn.args.args[0].arg  # self, or the object __new__ builds is often named otherwise
            names |= {t.attr for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AnnAssign))
                      for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                      if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me}
    attrs = tuple(sorted(n for n in names if not n.startswith("_") and n not in look))
    return Target(cls.name, path, params, "", "constructor", variadic=variadic, look=look, attrs=attrs)


def functions_in(source: str, path: str, lines: set[int] | None = None, *, classes: bool = False,
                 private: bool = False) -> dict[str, Target]:
    """Public module-level functions and public methods of ``source`` (those touching ``lines``);
    with ``classes``, constructors too; with ``private``, private helpers too."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, Target] = {}
    for node in tree.body:
        if _probeable(node, private) and _touches(node, lines):
            found[node.name] = Target(node.name, path, _params(node), ast.unparse(node.returns) if node.returns else "")
        if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
            continue
        if classes:
            built = _constructor(node, path, lines)
            if built is not None:
                found[node.name] = built
        for method in node.body:
            if not _probeable(method, private) or not _touches(method, lines):
                continue
            decorators = _decorators(method)
            if decorators & {"property", "setter", "deleter", "cached_property", "abstractmethod"}:
                continue  # not a call with arguments
            params = _params(method)
            binding = "class" if decorators & {"staticmethod", "classmethod"} else "instance"
            if "staticmethod" not in decorators:
                params = params[1:]  # self / cls
            name = f"{node.name}.{method.name}"
            found[name] = Target(name, path, params, ast.unparse(method.returns) if method.returns else "",
                                 binding, binding == "instance" and _bare_constructor(node))
    return found


def changed_functions(patch: str, read_file: ReadFile, world: str, **kinds: bool) -> dict[str, Target]:
    """Functions ``patch`` adds or changes, read from ``world``'s post-patch sources (``kinds``:
    ``classes``, ``private``, as for ``functions_in``)."""
    found: dict[str, Target] = {}
    for path, lines in sorted(_added_lines(patch).items()):
        source = read_file(world, path)
        if source is None:
            continue
        for name, target in functions_in(source, path, lines, **kinds).items():
            found.setdefault(name, target)
    return found


def shared_targets(reference_patch: str, trial_patch: str, read_file: ReadFile, **kinds: bool) -> list[Target]:
    """Functions both the reference and the trial add or change, with the reference's signature.

    Matched by name and by the number of required parameters, so the same call is meaningful in
    both worlds; ordered by name for determinism.
    """
    ref = changed_functions(reference_patch, read_file, "reference", **kinds)
    mine = changed_functions(trial_patch, read_file, "model", **kinds)
    out = []
    for name in sorted(set(ref) & set(mine)):
        if len(ref[name].required) == len(mine[name].required):
            out.append(ref[name])
    return out


def callers_of(source: str, path: str, helper: str) -> dict[str, Target]:
    """The public functions and methods of ``source`` whose bodies name ``helper`` (``_norm(x)`` or
    ``self._norm(x)``): the public code that reaches a private helper."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    bodies: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            bodies[node.name] = node
        elif isinstance(node, ast.ClassDef):
            bodies.update({f"{node.name}.{m.name}": m for m in node.body if isinstance(m, ast.FunctionDef)})

    def names_it(fn: ast.AST) -> bool:
        return any((isinstance(n, ast.Name) and n.id == helper) or (isinstance(n, ast.Attribute) and n.attr == helper)
                   for n in ast.walk(fn))

    return {name: t for name, t in functions_in(source, path).items() if name in bodies and names_it(bodies[name])}


def test_files(test_patch: str) -> list[str]:
    """Python test files T0's test patch adds or changes."""
    return [f.path for f in read_patch(test_patch) if not f.is_removed and f.path.endswith(".py")]


def access_for(target: Target, test_sources: list[str]) -> Access | None:
    """Reach ``target`` the way T0's tests do (``import pkg`` + ``pkg.f`` or ``from m import f``).

    A test written like T0's reads naturally to the analyst and exercises the same public entry
    point the prompt names; without a hint the function's own module is imported. A method is
    reached through its class (imported the same way); an instance method through the object T0
    builds (``_receiver``), else ``Class()`` when that builds one, else not at all (None).
    """
    if target.method:
        owner = Target(target.owner, target.path)
        cls = access_for(owner, test_sources)
        if target.binding == "class":
            return Access(cls.imports, f"{cls.expr}.{target.attr}")
        receiver = _receiver(target, cls.expr, test_sources)
        if receiver is None and target.bare_constructor:
            receiver = f"{cls.expr}()"
        if receiver is None:
            return None
        return Access(cls.imports, f"{receiver}.{target.attr}")
    for tree in _trees(test_sources):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    if alias.name == target.name:
                        local = alias.asname or alias.name
                        line = f"from {node.module} import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                        return Access((line,), local)
        used = {f"{ast.unparse(n.value)}" for n in ast.walk(tree)
                if isinstance(n, ast.Attribute) and n.attr == target.name and isinstance(n.value, (ast.Name, ast.Attribute))}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name
                    if local in used:
                        line = f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                        return Access((line,), f"{local}.{target.name}")
    return module_access(target)


def _trees(sources: list[str]) -> Iterator[ast.Module]:
    """The test sources that parse (a file with a syntax error tells nothing about access)."""
    for source in sources:
        try:
            yield ast.parse(source)
        except SyntaxError:
            continue


def _receiver(target: Target, cls_expr: str, test_sources: list[str]) -> str | None:
    """How T0 builds the object it calls ``target`` on: ``v = Class(...)`` or ``v = Class.make(...)``
    with literal arguments, then ``v.method(...)`` in the same test; the first such, in source form."""
    for tree in _trees(test_sources):
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            built: dict[str, str] = {}
            for node in ast.walk(fn):
                if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                        and isinstance(node.value, ast.Call) and _builds(node.value, cls_expr)):
                    built.setdefault(node.targets[0].id, ast.unparse(node.value))
            for node in ast.walk(fn):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == target.attr
                        and isinstance(node.func.value, ast.Name) and node.func.value.id in built):
                    return built[node.func.value.id]
    return None


def _builds(call: ast.Call, cls_expr: str) -> bool:
    """``Class(...)`` or ``Class.factory(...)`` (``Class`` named as the imports name it) whose
    arguments are all literals."""
    func = ast.unparse(call.func)
    if func != cls_expr and not (func.startswith(cls_expr + ".") and func.count(".") == cls_expr.count(".") + 1):
        return False
    if any(isinstance(a, ast.Starred) for a in call.args) or not all(k.arg for k in call.keywords):
        return False
    try:
        for a in [*call.args, *(k.value for k in call.keywords)]:
            ast.literal_eval(a)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def module_access(target: Target) -> Access:
    """The target from its own module; a method through its class (``Class()`` for an instance)."""
    if target.method:
        head = target.owner + ("()" if target.binding == "instance" else "")
        return Access((f"from {target.module} import {target.owner}",), f"{head}.{target.attr}")
    return Access((f"from {target.module} import {target.name}",), target.name)


def safe_identifier(text: str) -> str:
    return re.sub(r"\W+", "_", text).strip("_") or "call"
