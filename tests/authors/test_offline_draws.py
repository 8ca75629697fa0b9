"""Generated inputs depend on the seed alone: the same draws whatever the process has loaded.

Hypothesis mixes constants from the source of loaded "local" modules into what it draws; a
process that has imported a module full of constants (as a test run, a benchmark script or an
editable checkout has) must still draw the inputs a bare process draws (``seeded_provider``).
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

DRAWS = """
import sys
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "loaded":
    import many_constants
from hypothesis import strategies as st
from testjack_tui.authors.offline.inputs import draw
print(draw(st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=6), 300, 7))
print(draw(st.text(max_size=8), 300, 7))
print(draw(st.lists(st.integers(), max_size=6), 300, 7))
"""


def _draws(folder: Path, loaded: str) -> str:
    done = subprocess.run([sys.executable, "-c", DRAWS, str(folder), loaded], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_loaded_module_full_of_constants_changes_no_drawn_input(tmp_path):
    constants = [f"{k * 7.25 + 0.125!r}" for k in range(60)] + [f"'needle{k}'" for k in range(60)]
    constants += [str(1000003 * k + 17) for k in range(60)]
    (tmp_path / "many_constants.py").write_text(f"VALUES = [{', '.join(constants)}]\n")
    bare = _draws(tmp_path, "bare")
    assert "needle" not in bare
    assert _draws(tmp_path, "loaded") == bare
