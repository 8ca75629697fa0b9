"""Which requirement sets see TestJack's own site-packages behind their venv."""

from __future__ import annotations

import importlib.metadata

from testjack_tui.worlds.venvs import _pip_specs, pins_pytest


def test_a_set_that_pins_pytest_is_kept_apart_from_testjacks_plugins_and_gets_coverage():
    # TestJack's own pytest plugins, loaded by an older pinned pytest, break it before any test runs
    assert pins_pytest(("Werkzeug==2.3.7", "pytest<8"))
    assert pins_pytest(("PyTest==7.4.0",)) and pins_pytest(("pytest",))
    specs = _pip_specs(("Werkzeug==2.3.7", "pytest<8"))
    assert specs[:2] == ("Werkzeug==2.3.7", "pytest<8")
    assert specs[2] == f"coverage=={importlib.metadata.version('coverage')}"  # the data format TestJack reads


def test_plugins_and_other_packages_do_not_count_as_pinning_pytest():
    for specs in (("pytest-mock==3.11.1",), ("pytest_asyncio",), ("numpy==1.26.4",), ("--no-index", "/w/pytest.whl")):
        assert not pins_pytest(specs)
        assert _pip_specs(specs) == specs  # built as before: the base's pytest behind the venv
