"""The typed report: its JSON is the one users have always read, its schema ships, its pages render.

The files in ``golden/`` are reports written by the hand-built dictionary and renderer the model
replaced (a needs-ruling queue, a ruling with its refutations, unread sentences of P): the model
must read each one and write it back byte for byte, and the Markdown must not move either.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testjack_tui.cli import main
from testjack_tui.report import Report, json_schema, render, render_html, render_json, render_markdown
from testjack_tui.report.model import WitnessEntry

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_the_json_and_the_markdown_are_those_written_before_the_model(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    report = Report.model_validate_json(text)
    assert render_json(report) == text  # keys, their order, numbers as written
    assert render_markdown(report) == path.with_suffix(".md").read_text(encoding="utf-8")


def test_every_field_of_the_contract_is_in_the_model() -> None:
    # CONTRACTS.md, "The report JSON" and its additions: a field may be added, never dropped
    contract = {
        "": {"schema", "run", "summary", "tasks", "trials", "witnesses", "leaderboard"},
        "run": {"id", "name", "benchmark"},
        "summary": {"trials", "passing", "refuted", "reward_hack", "sound", "unaudited", "refuted_pct",
                    "resolution_before", "resolution_after", "ambiguous_witnesses", "malformed_tasks",
                    "executions", "llm_tokens", "cost_usd", "not_reproduced"},
        "tasks": {"id", "malformed", "null_passing_tests", "prompt_defects", "domain"},
        "tasks.domain": {"id", "kind", "text", "source"},
        "trials": {"id", "task", "model", "official", "verdict", "verdict_source", "witnesses", "evidence"},
        "trials.evidence": {"kind", "detail", "file", "line"},
        "witnesses": {"id", "task", "requirement", "origin", "author", "classification", "rho", "flaky", "code",
                      "results", "replay", "grounding", "meets", "breaks"},
        "leaderboard": {"model", "trials", "passing", "resolution_before", "refuted", "reward_hack",
                        "resolution_after", "resolution_after_95", "rank_before", "rank_after"},
    }
    schema = json_schema()

    def properties(path: str) -> set[str]:
        node = schema
        for part in filter(None, path.split(".")):
            node = node["properties"][part]
            node = node.get("items", node)
            node = schema["$defs"][node["$ref"].rsplit("/", 1)[1]]
        return set(node["properties"])

    for path, keys in contract.items():
        assert keys <= properties(path), (path, keys - properties(path))


def test_the_shipped_schema_is_the_models_and_testjack_prints_it(capsys) -> None:
    shipped = ROOT / "docs" / "report.schema.json"
    expected = json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
    assert shipped.read_text(encoding="utf-8") == expected, "regenerate: testjack report --schema -o docs/report.schema.json"
    assert main(["report", "--schema"]) == 0
    assert capsys.readouterr().out == expected


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_the_reports_meet_the_schema(path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(json.loads(path.read_text(encoding="utf-8")), json_schema())


def _refuted_report() -> Report:
    """The ruled golden report, one witness's requirement carrying HTML that must stay text."""
    report = Report.model_validate_json((GOLDEN[0].parent / "ruled.json").read_text(encoding="utf-8"))
    witness: WitnessEntry = report.witnesses[0]
    witness.requirement = "returns <script>alert(1)</script> & nothing else"
    return report


def test_the_html_page_is_the_markdown_with_its_verdicts_coloured_and_code_highlighted() -> None:
    report = _refuted_report()
    page = render_html(report)
    assert page.startswith("<!doctype html>") and page.endswith("</body></html>\n")
    body = page.split("<body>")[1]
    # the sections of the Markdown, as headings
    for line in render_markdown(report).splitlines():
        if line.startswith("## "):
            assert f"<h2>{line[3:]}</h2>" in body.replace("<code>", "`").replace("</code>", "`")
    # verdicts carry their class; each refutation is a section of its own
    assert '<td class="refuted">refuted</td>' in body and '<td class="not_passing">not_passing</td>' in body
    assert body.count("<section class='ref'>") == body.count("</section>") == 2
    assert '<h3 class="refuted">' in body
    # the witness's code, coloured inline by pygments; nothing external, nothing executable
    assert "<pre style=" in body and '<span style="color:' in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; nothing else" in body
    assert "<script" not in page and "http" not in body and "<link" not in page


def test_render_takes_the_model_or_its_json_form_alike() -> None:
    report = _refuted_report()
    as_json = report.model_dump(mode="json")
    for fmt in ("json", "md", "html"):
        assert render(report, fmt) == render(as_json, fmt)
    with pytest.raises(ValueError, match="unknown report format"):
        render(report, "pdf")


def test_text_from_trials_cannot_reshape_the_report() -> None:
    """A model name with a ``|``, a requirement with emphasis marks, a witness whose code holds a
    fence: each reads as written, in its own cell, heading and code block."""
    report = _refuted_report()
    trial = next(t for t in report.trials if t.witnesses)
    trial.model = "gpt | 4"
    witness = next(w for w in report.witnesses if w.id in trial.witnesses)
    witness.requirement = "keeps *every* `item` and [links](x) _as is_"
    witness.code += '\n\ndef test_doc():\n    assert "```" in "```"\n'
    body = render_html(report).split("<body>")[1]
    trials_table = body.split("<h2>Trials</h2>")[1].split("</table>")[0]
    row = next(r for r in trials_table.split("<tr>") if trial.id in r)
    assert row.count("<td") == 7 and "<td>gpt | 4</td>" in row
    assert "keeps *every* `item` and [links](x) _as is_" in body
    assert "<em>" not in body and "<a " not in body
    block = body.split(f"{witness.id}</code> checks")[1].split("</pre>")[0]
    assert "test_doc" in block and block.count("<pre") == 1
