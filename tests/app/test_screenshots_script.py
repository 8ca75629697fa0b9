"""The README and the manual show only screenshots that benchmarks/console_screenshots.py writes
from the sample run, so none can drift from the app unnoticed: regenerate them all with it."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOTS_DIR = ROOT / "docs" / "screenshots"


def _script():
    spec = importlib.util.spec_from_file_location("console_screenshots", ROOT / "benchmarks" / "console_screenshots.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _referenced() -> set[str]:
    names = set()
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        names |= set(re.findall(r"screenshots/([\w.-]+\.svg)", page.read_text(encoding="utf-8")))
    return names


def test_every_screenshot_shown_is_one_the_script_writes():
    shots = set(_script().SHOTS)
    assert _referenced() <= shots, sorted(_referenced() - shots)
    on_disk = {p.name for p in SHOTS_DIR.glob("*.svg")}
    assert on_disk == shots, (sorted(on_disk - shots), sorted(shots - on_disk))


def test_the_script_shoots_the_sample_run():
    script = _script()
    assert script.TOOLBOX == ROOT / "sample_runs" / "toolbox" and script.TOOLBOX.is_dir()
    assert script.OUT == SHOTS_DIR
