"""Regenerate the README's excerpts of command output from the sample run, so they show what the
current code prints and a stale one is caught.

    python benchmarks/readme_excerpts.py [--store PATH] [--check]

Imports and audits ``sample_runs/toolbox`` as the README's tour does (``testjack audit
sample_runs/toolbox``, default options; into a temporary store unless ``--store`` names one), runs
the tour's commands in this process and writes what they print into the fenced block that follows
each ``<!-- excerpt: NAME ... -->`` line of README.md:

- ``audit``: the summary table ``testjack audit sample_runs/toolbox`` prints;
- ``report``: ``testjack report toolbox --format md``'s summary table, its second refutation (the
  witnesses' code left out) and its prompt defects;
- ``leaderboard``: the header and rows of ``testjack leaderboard toolbox``.

``--check`` writes nothing and exits 1 naming each excerpt that differs. One figure depends on the
machine and is compared without its value: the executions count (mutation testing has a time
budget), were an excerpt to show it. ``tests/export/test_readme_excerpts.py`` checks the README against the audited sample
that the export tests share.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLBOX = ROOT / "sample_runs" / "toolbox"
README = ROOT / "README.md"
MARKER = re.compile(r"^<!-- excerpt: (\w+)")
CODE_LEFT_OUT = "(the witness's code)"


def run_cli(store: Path, *args: str) -> tuple[str, str]:
    """One ``testjack`` command run in this process on ``store``: its stdout and stderr."""
    sys.path.insert(0, str(ROOT))
    from testjack_tui.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--store", str(store), *args])
    if code != 0:
        raise SystemExit(f"testjack {' '.join(args)} failed (exit {code}):\n{err.getvalue()[-2000:]}")
    return out.getvalue(), err.getvalue()


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def audit_block(store: Path) -> list[str]:
    """The tour's audit: the command, the import line (a new store only) and the summary table."""
    out, err = run_cli(store, "audit", str(TOOLBOX), "--workers", "2")
    imported = [line for line in err.splitlines() if line.startswith("testjack: imported:")]
    return ["$ testjack audit sample_runs/toolbox", *imported, *_lines(out)]


def _sections(markdown: str) -> dict[str, list[str]]:
    """The report's level-2 sections by heading, each with its heading line."""
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in markdown.splitlines():
        if line.startswith("## "):
            current = sections.setdefault(line, [])
        current.append(line)
    return sections


def _without_code(lines: list[str]) -> list[str]:
    """A refutation with its witness's code block replaced by a note."""
    kept: list[str] = []
    inside = False
    for line in lines:
        if line.startswith("```"):
            if not inside:
                kept.append(CODE_LEFT_OUT)
            inside = not inside
        elif not inside:
            kept.append(line)
    return kept


def _trimmed(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def _table_only(lines: list[str]) -> list[str]:
    """A section's heading and its first table, without the lines after it."""
    first = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(first, len(lines)) if not lines[i].startswith("|")), len(lines))
    return lines[:end]


def report_block(store: Path) -> list[str]:
    out, _ = run_cli(store, "report", "toolbox", "--format", "md")
    sections = _sections(out)
    pick = {name: next(lines for heading, lines in sections.items() if heading.startswith(name))
            for name in ("## Summary", "## Refutations", "## Prompt defects")}
    refutations = pick["## Refutations"]
    starts = [i for i, line in enumerate(refutations) if line.startswith("### ")]
    second = refutations[starts[1]:starts[2] if len(starts) > 2 else None]
    parts = [_table_only(pick["## Summary"]), [refutations[0], "", *_without_code(second)],
             pick["## Prompt defects"]]
    block: list[str] = []
    for part in parts:
        block += [*_trimmed(part), ""]
    return _trimmed(block)


def leaderboard_block(store: Path) -> list[str]:
    out, _ = run_cli(store, "leaderboard", "toolbox")
    return [line.rstrip() for line in out.splitlines() if line.startswith(("┃", "│"))]


BLOCKS = {"audit": audit_block, "report": report_block, "leaderboard": leaderboard_block}


def excerpts(store: Path) -> dict[str, list[str]]:
    return {name: make(store) for name, make in BLOCKS.items()}


def shown(readme: str) -> dict[str, list[str]]:
    """The README's excerpts: the lines inside the fenced block after each marker."""
    lines = readme.splitlines()
    found: dict[str, list[str]] = {}
    for i, line in enumerate(lines):
        match = MARKER.match(line)
        if match:
            start, end = _fence(lines, i + 1)
            found[match.group(1)] = lines[start + 1:end]
    return found


def _fence(lines: list[str], start: int) -> tuple[int, int]:
    """The opening and closing lines of the fenced block that starts at ``start``."""
    ticks = re.match(r"^(`{3,})", lines[start])
    if ticks is None:
        raise ValueError(f"README.md line {start + 1}: an excerpt marker must be followed by a fenced block")
    end = next(j for j in range(start + 1, len(lines)) if lines[j].rstrip() == ticks.group(1))
    return start, end


def rewrite(readme: str, blocks: dict[str, list[str]]) -> str:
    lines = readme.splitlines()
    for i in range(len(lines) - 1, -1, -1):  # from the end: earlier indexes stay valid
        match = MARKER.match(lines[i])
        if match and match.group(1) in blocks:
            start, end = _fence(lines, i + 1)
            lines[start + 1:end] = blocks[match.group(1)]
    return "\n".join(lines) + "\n"


def comparable(lines: list[str]) -> list[str]:
    """An excerpt as compared: the command and import lines of the audit left out (an audited
    store prints no import line), the executions count without its value."""
    kept = [line for line in lines if not line.startswith(("$ ", "testjack: imported:"))]
    kept = [re.sub(r"\s+\d+(\s*│)$", r" N\1", line) if "│ executions" in line else line for line in kept]
    return [re.sub(r"Executions: \d+", "Executions: N", line) for line in kept]


def stale(readme: str, blocks: dict[str, list[str]]) -> list[str]:
    """The names of the README's excerpts that are missing or differ from ``blocks``."""
    have = shown(readme)
    return [name for name, lines in blocks.items()
            if name not in have or comparable(have[name]) != comparable(lines)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", help="a store to import and audit the toolbox run into (default: a temporary one)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if an excerpt is stale")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        blocks = excerpts(Path(args.store) if args.store else Path(tmp) / "testjack.db")
    readme = README.read_text(encoding="utf-8")
    if args.check:
        old = stale(readme, blocks)
        for name in old:
            print(f"README.md: the {name} excerpt is stale; run python benchmarks/readme_excerpts.py")
        return 1 if old else 0
    README.write_text(rewrite(readme, blocks), encoding="utf-8")
    print(f"rewrote {', '.join(blocks)} in {README}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
