"""Who writes candidate witnesses: the offline author, the LLM author, the analyst, or nobody.

Authors propose; they never certify. Every candidate goes through the audit's validation on the
reference world (3 of 3 runs) before it may judge any trial.
"""

from testjack_tui.authors import base
from testjack_tui.authors.base import Author, AuthorContext, Candidate, NoneAuthor
from testjack_tui.authors.factory import make_author

# make_author was defined in base.py before it moved to factory.py (base must not import the authors
# that import it). Code that still imports it from base finds it there; base itself imports no factory.
base.make_author = make_author

__all__ = ["Author", "AuthorContext", "Candidate", "NoneAuthor", "make_author"]
