"""The offline author (``--author offline``, the default): real refutations with no LLM endpoint.

Modules, one idea each: ``examples`` (P's stated examples), ``signatures`` (functions a patch
changes and how tests reach them), ``inputs`` (seeds, EvalPlus-style mutation, hypothesis
generation), ``probe`` (running calls inside worlds and comparing), ``witnesses`` (rendering test
files), ``amplify`` (T0's inputs mutated), ``author`` (the Author protocol).
"""

from testjack_tui.authors.offline.author import OfflineAuthor

__all__ = ["OfflineAuthor"]
