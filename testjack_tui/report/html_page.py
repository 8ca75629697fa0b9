"""The report as one self-contained HTML page, rendered from its Markdown.

markdown-it-py turns the Markdown into HTML (CommonMark with GFM tables; raw HTML in the text is
escaped, never passed through) and pygments colours the witnesses' code inline. Two small token
rules keep what the page has always shown beyond plain Markdown: a verdict in a table cell, and a
refutation's heading, carry the verdict as a class (the stylesheet colours it), and each
refutation, an h3 with what follows it up to the next heading, sits in its own
``<section class='ref'>``.
"""

from __future__ import annotations

from html import escape

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from testjack_tui.model import Verdict
from testjack_tui.report.markdown import markdown_text
from testjack_tui.report.model import Report

CSS = """
body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#1d2230;background:#fbfbfd}
table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccd;padding:.3rem .6rem;text-align:left}
th{background:#eef}code{background:#eef;padding:0 .2rem;border-radius:3px}pre code{background:none;padding:0}
.refuted{color:#b3261e;font-weight:600}.reward_hack{color:#8e24aa;font-weight:600}.sound{color:#1b7f3b}
.unaudited,.not_passing,.not_reproduced{color:#666}
section.ref{border-left:4px solid #b3261e;padding-left:1rem;margin:1.5rem 0}
pre{overflow-x:auto;padding:.6rem;border-radius:4px}
"""

_CODE = HtmlFormatter(noclasses=True, style="friendly", nowrap=True)
VERDICTS = {str(v) for v in Verdict}


def html_page(report: Report) -> str:
    """One page, no external assets: the stylesheet and the highlighted code are inline."""
    title = escape(f"TestJack audit: {report.run.name}")
    body = _markdown().render(markdown_text(report))
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title>"
            f"<style>{CSS}</style></head><body>\n{body}</body></html>\n")


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "highlight": _highlight}).enable("table")
    md.core.ruler.push("verdict_cells", _verdict_cells)
    md.core.ruler.push("refutation_sections", _refutation_sections)
    return md


def _highlight(code: str, lang: str, _attrs: str) -> str:
    if lang != "python":
        return ""  # markdown-it escapes it and wraps it itself
    # starting with <pre, it is taken as the whole block
    return (f"<pre style='background:{_CODE.style.background_color}'><code>"
            f"{highlight(code, PythonLexer(), _CODE)}</code></pre>")


def _verdict_cells(state: StateCore) -> None:
    tokens = state.tokens
    for cell, inline in zip(tokens, tokens[1:]):
        if cell.type == "td_open" and inline.type == "inline" and inline.content in VERDICTS:
            cell.attrJoin("class", inline.content)


def _refutation_sections(state: StateCore) -> None:
    out: list[Token] = []
    open_section = False
    for i, token in enumerate(state.tokens):
        if token.type == "heading_open" and token.tag in ("h1", "h2", "h3"):
            if open_section:
                out.append(_html("</section>\n"))
            open_section = token.tag == "h3"
            if open_section:  # the heading ends with its label, "refuted" or "reward hack": its colour
                hack = state.tokens[i + 1].content.endswith("reward hack")
                token.attrJoin("class", str(Verdict.REWARD_HACK if hack else Verdict.REFUTED))
                out.append(_html("<section class='ref'>\n"))
        out.append(token)
    if open_section:
        out.append(_html("</section>\n"))
    state.tokens = out


def _html(text: str) -> Token:
    token = Token("html_block", "", 0)
    token.content = text
    return token
