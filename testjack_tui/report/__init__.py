"""Exports of the curated report: JSON (the CONTRACTS.md schema), Markdown and HTML.

Every format is rendered from the one dictionary :func:`build_report` makes, so they never
disagree about what the store holds.
"""

from testjack_tui.report.build import SCHEMA, build_report
from testjack_tui.report.render import render, render_html, render_json, render_markdown

__all__ = ["SCHEMA", "build_report", "render", "render_json", "render_markdown", "render_html"]
