"""Helpers for lists."""

from listkit.flatten import flatten

__all__ = ["flatten"]
