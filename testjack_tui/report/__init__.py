"""Exports of the curated report: JSON (the CONTRACTS.md schema), Markdown and HTML.

The report is one typed record, :class:`Report` (``report/model.py``), read from the store by
:func:`read_report`; :func:`build_report` gives its JSON form. Markdown is written once and the
HTML page rendered from it, so the formats never disagree about what the store holds.
"""

from testjack_tui.report.build import SCHEMA, build_report, read_report
from testjack_tui.report.model import Report, json_schema
from testjack_tui.report.render import render, render_html, render_json, render_markdown

__all__ = ["SCHEMA", "Report", "build_report", "json_schema", "read_report", "render", "render_json",
           "render_markdown", "render_html"]
