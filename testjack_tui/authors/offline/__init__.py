"""The offline author (``--author offline``, the default): real refutations with no LLM endpoint.

Modules, one idea each: ``inputs`` (seeds, EvalPlus-style mutation, hypothesis generation),
``probe`` (running calls inside worlds and comparing), ``witnesses`` (rendering test
files), ``amplify`` (T0's inputs mutated), ``author`` (the Author protocol). What
it reads of P, T0 and the patches (examples, signatures, literal calls) is ``testjack_tui.pysource``'s.
"""

from testjack_tui.authors.offline.author import OfflineAuthor

__all__ = ["OfflineAuthor"]
