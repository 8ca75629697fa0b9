"""The public tasks ``swebench_public_task.py`` can build: which releases, which files, which predictions.

Each is a pair of consecutive releases on PyPI whose fix is small and whose sdist ships its tests.
The SymPy and Flask problem statements are written here, in our own words, from what the fix does
(pathspec's is its changelog entry and documented contract, read from the sdists at run time); the
predictions are small edits of the base release written for the walkthrough: one equal in
behaviour to the fix, one that passes the official tests but misses a case the statement states,
one that fails them.

- ``pathspec`` (pytest, flat layout): 0.12.0 -> 0.12.1, ``PathSpec.match_file`` returns ``None``.
- ``sympy`` (SymPy's own runner, ``bin/test``): 1.13.0 -> 1.13.1, issue #26799: a zero vector of
  ``sympy.physics.vector`` cannot be pretty printed. Its sdist does not ship ``bin/test`` (the git
  repository does), so the task's repository gets a stand-in of our own
  (``swebench_public_runs.BIN_TEST``) that calls SymPy's runner, shipped in the sdist, with the
  options the harness passes.
- ``flask`` (pytest, ``src/`` layout): 2.3.1 -> 2.3.2, ``Vary: Cookie`` missing on responses whose
  cookie depends on the session. Its environment (Werkzeug and friends) comes from TestJack's
  SWE-bench environment data for pallets/flask 2.3.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# (old text, new text) replaced once in fix_files[0], or (file, old text, new text)
Edit = tuple[str, str] | tuple[str, str, str]


@dataclass(frozen=True)
class Project:
    """The facts of one public task: where it comes from and which files hold the fix."""

    dist: str  # the PyPI name
    base: str  # the release with the bug
    fixed: str  # the next release, with the fix
    repo: str  # owner/name as SWE-bench names it (the project's source URL)
    # the number the instance id ends with: the issue the changelog cites, else the fixed release's
    # digits (these are not the projects' own PR numbers)
    issue: int
    fix_files: tuple[str, ...]  # the source files whose diff is the reference patch
    function: tuple[str, str]  # (file, Class.method or function) whose documented contract the prompt quotes
    changelog: str  # the file holding the release notes ("" when the sdist has none)
    tests_dir: str = "tests"
    # test files whose diff is the test patch; empty: every file under tests_dir
    test_files: tuple[str, ...] = ()
    runner: str = "pytest"  # "pytest" or "sympy" (bin/test), read as the harness reads its log
    statement: str = ""  # our own problem statement; empty: release note + documented contract
    # model -> its edits (one Edit, or a list of them, applied in order); in this order: equal in
    # behaviour to the fix, passes the official tests but misses a stated case, fails them
    predictions: dict[str, Edit | list[Edit]] = field(default_factory=dict)
    # the analyst's witness for the walkthrough: (the requirement it checks, its code); it refutes
    # the prediction that misses the stated case
    analyst_witness: tuple[str, str] = ("", "")

    @property
    def version(self) -> str:
        """The harness's version key: the base release's major.minor."""
        return ".".join(self.base.split(".")[:2])


PATHSPEC = Project(
    dist="pathspec",
    base="0.12.0",
    fixed="0.12.1",
    repo="cpburnz/python-pathspec",
    issue=84,
    fix_files=("pathspec/pathspec.py",),
    function=("pathspec/pathspec.py", "PathSpec.match_file"),
    changelog="CHANGES.rst",
    predictions={
        # The buggy line is "return include" (include is True, False or None).
        "model-a": ("\t\treturn include\n", "\t\treturn include is True\n"),
        "model-b": ("\t\treturn include\n",
                    "\t\tif include is None and isinstance(file, str):\n\t\t\treturn False\n\t\treturn include\n"),
        "model-c": ("\t\treturn include\n", "\t\treturn include is not None\n"),
    },
    analyst_witness=("match_file() of a path no pattern matches returns False for any os.PathLike",
                     '''from pathlib import PurePosixPath

from pathspec import PathSpec


def test_unmatched_pathlike_is_false():
    spec = PathSpec.from_lines("gitwildmatch", ["*.txt"])
    assert spec.match_file(PurePosixPath("unmatch.bin")) is False
'''),
)

# The line 1.13.0 ends Vector._pretty with; and the body of vpprint's printing.
_PRETTY_RETURN = "        return prettyForm.__add__(*terms)\n"
_VPPRINT = "    pp = VectorPrettyPrinter(settings)\n"

SYMPY = Project(
    dist="sympy",
    base="1.13.0",
    fixed="1.13.1",
    repo="sympy/sympy",
    issue=26799,
    fix_files=("sympy/physics/vector/vector.py",),
    function=("sympy/physics/vector/vector.py", "Vector._pretty"),
    changelog="",
    tests_dir="sympy/physics/vector/tests",
    test_files=("sympy/physics/vector/tests/test_printing.py",),
    runner="sympy",
    statement="""Pretty printing a zero vector fails

In sympy.physics.vector a zero vector (0*A.x for a ReferenceFrame A, or Vector(0)) prints as 0 with
str() and vlatex(), but its pretty form cannot be made: vpprint(0*A.x), and SymPy's own
pretty(0*A.x) / pprint(0*A.x), raise an exception because the vector has no term to join.

The pretty form of a zero vector must be 0, with ASCII and with Unicode, whichever of these
printers is used; vectors with terms print as before.
""",
    predictions={
        # model-a: an empty list of terms prints 0, as the fix does
        "model-a": (_PRETTY_RETURN, "        if not terms:\n            return prettyForm('0')\n" + _PRETTY_RETURN),
        # model-b: vpprint answers "0" for a zero vector; SymPy's pretty() still raises on one
        "model-b": ("sympy/physics/vector/printing.py", _VPPRINT,
                    "    from sympy.physics.vector.vector import Vector\n"
                    "    if isinstance(expr, Vector) and not expr.args:\n"
                    "        return '0'\n" + _VPPRINT),
        # model-c: no exception, but an empty picture instead of 0
        "model-c": (_PRETTY_RETURN, "        if not terms:\n            return prettyForm('')\n" + _PRETTY_RETURN),
    },
    analyst_witness=("SymPy's pretty() of a zero vector is 0, in ASCII and in Unicode",
                     '''from sympy import pretty
from sympy.physics.vector import ReferenceFrame


def test_zero_vector_pretty_with_sympys_printer():
    A = ReferenceFrame("A")
    assert pretty(0 * A.x, use_unicode=False) == "0"
    assert pretty(0 * A.x, use_unicode=True) == "0"
'''),
)

_ACCESSED = """        # Add a "Vary: Cookie" header if the session was accessed at all.
        if session.accessed:
            response.vary.add("Cookie")

"""
_EMPTY = "        # If the session is modified to be empty, remove the cookie.\n"
_SET = """            samesite=samesite,
        )
"""

FLASK = Project(
    dist="flask",
    base="2.3.1",
    fixed="2.3.2",
    repo="pallets/flask",
    issue=232,
    fix_files=("src/flask/sessions.py",),
    function=("src/flask/sessions.py", "SecureCookieSessionInterface.save_session"),
    changelog="CHANGES.rst",
    test_files=("tests/test_basic.py",),
    statement="""Vary: Cookie missing when the session cookie is deleted or refreshed

A response whose cookies depend on the session must say so with a "Vary: Cookie" header, or a
caching proxy may serve one user's session cookie to another. 2.3.1 adds the header only when a
non-empty session was accessed. It must be set whenever the session is accessed, modified, or
refreshed:

- accessed: the view read or wrote the session;
- modified: the session was changed, including changed to empty, so that its cookie is deleted
  (the session may be marked modified by hand, `session.modified = True`, without being read);
- refreshed: a permanent session whose cookie is sent again on every request
  (SESSION_REFRESH_EACH_REQUEST), even when the view never touches the session.

The header must appear once, merged with any Vary values the view set itself.
""",
    predictions={
        # model-a: "accessed or modified" up front, and the refreshed cookie: the fix's behaviour
        "model-a": [(_ACCESSED, ""),
                    (_EMPTY, '        if session.accessed or session.modified:\n'
                             '            response.vary.add("Cookie")\n\n' + _EMPTY),
                    (_SET, _SET + '        response.vary.add("Cookie")\n')],
        # model-b: accessed up front and the refreshed cookie, but not a deletion the view never read
        "model-b": [(_ACCESSED, ""), (_EMPTY, _ACCESSED + _EMPTY),
                    (_SET, _SET + '        response.vary.add("Cookie")\n')],
        # model-c: accessed up front only; a refreshed cookie still goes out without the header
        "model-c": [(_ACCESSED, ""), (_EMPTY, _ACCESSED + _EMPTY)],
    },
    analyst_witness=("a session marked modified by hand, never read, gets Vary: Cookie when its cookie is deleted",
                     '''import flask


def test_vary_cookie_when_marked_modified_and_deleted():
    app = flask.Flask(__name__)
    app.secret_key = "analyst"

    @app.get("/mark")
    def mark():
        flask.session.modified = True  # modified by hand, never read
        return ""

    rv = app.test_client().get("/mark")
    assert rv.headers.get("Vary") == "Cookie"
'''),
)

PROJECTS = {"pathspec": PATHSPEC, "sympy": SYMPY, "flask": FLASK}
