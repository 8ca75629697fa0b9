"""The LLM author: an agent on any OpenAI-compatible endpoint that writes witnesses (paper 3.2, 3.3)."""

from testjack_tui.authors.base import AuthorFailed
from testjack_tui.authors.llm.author import LLMAuthor
from testjack_tui.authors.llm.budget import BudgetExhausted
from testjack_tui.authors.llm.client import EndpointFailed
from testjack_tui.authors.llm.settings import LLMSettings, load_settings

__all__ = ["AuthorFailed", "BudgetExhausted", "EndpointFailed", "LLMAuthor", "LLMSettings", "load_settings"]
