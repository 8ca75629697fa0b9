"""Regenerate the console screenshots (README, docs/console.md) from the real app on the demo store.

    python -m tests.app.screenshots   # writes docs/screenshots/console-*.svg
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from tests.app.conftest import build_demo_store
from tests.app.helpers import settle

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


async def shoot(store: Path) -> list[Path]:
    from testjack_tui.app.app import TestJackApp

    written: list[Path] = []
    app = TestJackApp(store, run_id="demo")
    async with app.run_test(size=(140, 36)) as pilot:
        async def save(name: str) -> None:
            await settle(pilot)
            written.append(Path(app.save_screenshot(f"console-{name}.svg", str(OUT))))

        await pilot.press("f", "f")
        await save("trials")
        await pilot.press("enter")
        await save("trial-prompt")
        await pilot.press("2")
        await save("trial-diff")
        await pilot.press("4")
        await save("trial-witnesses")
        await pilot.press("escape", "ctrl+r")
        await save("rulings")
        await pilot.press("escape", "escape")
        await save("runs")
        app.theme = "testjack-light"
        await pilot.press("enter", "ctrl+r")
        await save("rulings-light")
    return written


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TESTJACK_CONFIG_DIR"] = str(Path(tmp) / "config")
        store = Path(tmp) / "testjack.db"
        build_demo_store(store, Path(tmp) / "work").close()
        for path in asyncio.run(shoot(store)):
            print(path)


if __name__ == "__main__":
    main()
