"""Ways of writing numbers."""

from numerals.ordinal import ordinal

__all__ = ["ordinal"]
