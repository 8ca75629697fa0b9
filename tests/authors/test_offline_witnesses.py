"""Witness files are plain pytest files that state one call and its expectation."""

import ast
import subprocess
import sys

from testjack_tui.pysource.signatures import Access
from testjack_tui.authors.offline.witnesses import Spec, calls_in_witness, render


def _run(tmp_path, code: str) -> int:
    (tmp_path / "mathx.py").write_text("def half(n):\n    if n < 0:\n        raise ValueError(n)\n    return n / 2\n")
    (tmp_path / "test_w.py").write_text(code)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_w.py"],
                          cwd=tmp_path, capture_output=True).returncode


def test_rendered_witness_is_valid_and_says_what_it_checks(tmp_path):
    spec = Spec("half", Access(("import mathx",), "mathx.half"), "3", "1.5", source="probe", why='odd input "x"')
    code = render(spec)
    ast.parse(code)
    assert "half(3) returns 1.5, as the reference does" in code
    assert "pytest.approx(1.5)" in code  # floats are not compared digit for digit
    assert _run(tmp_path, code) == 0
    wrong = render(Spec("half", Access(("import mathx",), "mathx.half"), "3", "2", source="probe"))
    assert _run(tmp_path, wrong) == 1


def test_raising_witness_uses_pytest_raises(tmp_path):
    spec = Spec("half", Access(("from mathx import half",), "half"), "-1", raises="ValueError", source="prompt")
    code = render(spec)
    assert "with pytest.raises(ValueError):" in code and "P's example" in code
    assert _run(tmp_path, code) == 0
    assert calls_in_witness(code) == {"half(-1)"}
