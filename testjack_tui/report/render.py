"""The report in each format users ask for: JSON, Markdown, or one self-contained HTML page.

Each takes the typed report or its JSON form (what :func:`build_report` returns).
"""

from __future__ import annotations

import json
from typing import Any

from testjack_tui.report.html_page import html_page
from testjack_tui.report.markdown import markdown_text
from testjack_tui.report.model import Report, as_report

FORMATS = ("md", "html", "json")


def render(report: Report | dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return render_json(report)
    if fmt == "md":
        return render_markdown(report)
    if fmt == "html":
        return render_html(report)
    raise ValueError(f"unknown report format {fmt!r} ({', '.join(FORMATS)})")


def render_json(report: Report | dict[str, Any]) -> str:
    # json.dumps, not pydantic's own writer: the bytes users diff stay those of every earlier release
    return json.dumps(as_report(report).model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


def render_markdown(report: Report | dict[str, Any]) -> str:
    return markdown_text(as_report(report))


def render_html(report: Report | dict[str, Any]) -> str:
    return html_page(as_report(report))
