"""Regenerate the console screenshots of the README and the manual from the sample run, so they
show what a newcomer sees after the README's demo and cannot drift from the app.

    python benchmarks/console_screenshots.py [--store PATH] [--out docs/screenshots]

Imports ``sample_runs/toolbox`` into a store (a temporary one unless ``--store`` names one), audits
it with the default options (lightweight, offline author, seed 0: the same verdicts every time;
an audit that already finished continues at once), then drives the real app with Pilot and saves
each screen in ``SHOTS`` as an SVG. Settings come from a temporary directory, never the
analyst's own.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLBOX = ROOT / "sample_runs" / "toolbox"
OUT = ROOT / "docs" / "screenshots"
SIZE = (140, 36)
NARROW = (100, 30)
TRIAL = "slug-t3"  # refuted: its ghost branch drops accented letters instead of folding them

# file name -> what it shows (the README and docs/console.md use these and no others)
SHOTS = {
    "console-runs.svg": "the runs screen",
    "console-trials.svg": "the trial list, the cursor on the first refutation (f)",
    "console-trial-prompt.svg": "a refuted trial's prompt and checklist",
    "console-trial-diff.svg": "its diff, reference and trial side by side",
    "console-trial-witnesses.svg": "its witness matrix and the highlighted witness on every passing trial",
    "console-trial-witnesses-narrow.svg": "the witness matrix at 100 columns",
    "console-help.svg": "the help (F1)",
    "console-rulings.svg": "the rulings queue",
    "console-rulings-light.svg": "the rulings in the light theme",
}


def audited_store(path: Path) -> None:
    """Import and audit the toolbox run into ``path`` (quietly; a finished audit is instant)."""
    from testjack_tui.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(["--store", str(path), "audit", str(TOOLBOX), "--workers", "2"])
    if code != 0:
        raise SystemExit(f"auditing {TOOLBOX} failed (exit {code}); run the same with the CLI to see why")


async def shoot(store: Path, out: Path) -> list[Path]:
    from testjack_tui.app.app import TestJackApp

    sys.path.insert(0, str(ROOT))
    from tests.app.helpers import settle

    written: list[Path] = []

    async def save(app, pilot, name: str) -> None:
        await settle(pilot)
        assert name in SHOTS, name
        written.append(Path(app.save_screenshot(name, str(out))))

    app = TestJackApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await save(app, pilot, "console-runs.svg")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("f")
        await save(app, pilot, "console-trials.svg")
        app.screen.open_trial(TRIAL)
        await save(app, pilot, "console-trial-prompt.svg")
        await pilot.press("2")
        await save(app, pilot, "console-trial-diff.svg")
        await pilot.press("4")
        await save(app, pilot, "console-trial-witnesses.svg")
        await pilot.press("f1")
        await save(app, pilot, "console-help.svg")
        await pilot.press("f1", "ctrl+r")
        await save(app, pilot, "console-rulings.svg")
        app.theme = "testjack-light"
        await save(app, pilot, "console-rulings-light.svg")
    app = TestJackApp(store, run_id="toolbox")
    async with app.run_test(size=NARROW) as pilot:
        app.theme = "testjack-dark"  # the light theme of the last shot is remembered
        await settle(pilot)
        app.screen.open_trial(TRIAL)
        await settle(pilot)
        await pilot.press("4")
        await save(app, pilot, "console-trial-witnesses-narrow.svg")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", help="a store to import and audit the toolbox run into (default: a temporary one)")
    parser.add_argument("--out", default=str(OUT), help="where the SVGs go (default docs/screenshots)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TESTJACK_CONFIG_DIR"] = str(Path(tmp) / "config")
        os.environ.pop("TESTJACK_ANALYST", None)
        store = Path(args.store) if args.store else Path(tmp) / "testjack.db"
        audited_store(store)
        for path in asyncio.run(shoot(store, out)):
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
