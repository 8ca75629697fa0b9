"""Who writes candidate witnesses: the offline author, the LLM author, the analyst, or nobody.

Authors propose; they never certify. Every candidate goes through the audit's validation on the
reference world (3 of 3 runs) before it may judge any trial.
"""

from testjack_tui.authors.base import Author, AuthorContext, Candidate, NoneAuthor
from testjack_tui.authors.factory import make_author

__all__ = ["Author", "AuthorContext", "Candidate", "NoneAuthor", "make_author"]
