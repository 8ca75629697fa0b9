"""Small helpers for turning text into identifiers and display strings."""

from textkit.case import camel_case, snake_case
from textkit.wrap import shorten

__all__ = ["camel_case", "shorten", "snake_case"]
