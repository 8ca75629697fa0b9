"""The SWE-bench environment data holds the harness's own facts.

Each value here was read in the swebench 4.1.0 wheel (swebench/harness/constants/python.py,
MAP_REPO_VERSION_TO_SPECS), or, for pytest pins, in the repositories' own requirements files; a
change of the data file that breaks one of them is a change of fact and needs a source.
"""

from __future__ import annotations

from testjack_tui.formats.swebench_env import BUILTIN, repo_spec, task_environment


def test_the_file_names_where_its_facts_were_checked():
    header = BUILTIN.read_text().split("[repos.", 1)[0]
    assert "swebench 4.1.0" in header and "swebench 5.0.2" in header


def test_flask_versions_have_the_harness_python_and_pins():
    v20, v21, v23 = (repo_spec("pallets/flask", v) for v in ("2.0", "2.1", "2.3"))
    assert (v20.python, v21.python, v23.python) == ("3.9", "3.10", "3.11")
    assert "Jinja2==3.0.1" in v20.pip_packages and "click==8.0.1" in v20.pip_packages
    assert "Jinja2==3.1.2" in v21.pip_packages and "Werkzeug==2.3.7" in v21.pip_packages
    assert repo_spec("pallets/flask", "2.2").pip_packages == v21.pip_packages
    # flask's requirements/tests.txt pins pytest 7.x (7.3.1 at 2.3.1): below 8 for every version
    assert v20.pytest == v23.pytest == "pytest<8"
    # 2.3 depends on blinker, which the harness's editable install brings
    assert "blinker>=1.6.2" in v23.pip_packages and "blinker>=1.6.2" not in v21.pip_packages


def test_flask_requirements_reach_the_task_with_its_pytest_and_src_on_the_path(tmp_path):
    (tmp_path / "src" / "flask").mkdir(parents=True)
    (tmp_path / "src" / "flask" / "__init__.py").write_text("")
    row = {"instance_id": "pallets__flask-1", "repo": "pallets/flask", "version": "2.3",
           "test_patch": "diff --git a/tests/test_basic.py b/tests/test_basic.py\n"}
    env = task_environment(row, tmp_path)
    assert env.requirements[-1] == "pytest<8" and "Werkzeug==2.3.7" in env.requirements
    assert env.command.startswith("export PYTHONPATH=src:$PYTHONPATH && python -m pytest")
    assert env.command.endswith("-rA tests/test_basic.py") and env.log_parser == "swebench-pytest"


def test_django_python_versions_follow_the_harness():
    got = {v: repo_spec("django/django", v).python for v in ("1.11", "2.2", "3.2", "4.0", "4.1", "4.2", "5.1")}
    assert got == {"1.11": "3.5", "2.2": "3.5", "3.2": "3.6", "4.0": "3.8", "4.1": "3.9", "4.2": "3.9",
                   "5.1": "3.11"}
    assert repo_spec("django/django", "1.9").test_cmd == "./tests/runtests.py --verbosity 2"
    assert "--parallel 1" in repo_spec("django/django", "3.0").test_cmd


def test_sympy_pip_packages_and_command():
    assert repo_spec("sympy/sympy", "1.12").pip_packages == ["mpmath==1.3.0", "flake8-comprehensions"]
    assert repo_spec("sympy/sympy", "1.13").pip_packages == ["mpmath==1.3.0"]
    spec = repo_spec("sympy/sympy", "1.13")
    assert spec.runner == "sympy" and spec.python == "3.9"
    assert spec.test_cmd.endswith("bin/test -C --verbose")


def test_other_repositories_commands_pins_and_pythons():
    assert repo_spec("astropy/astropy", "5.2").test_cmd == "pytest -rA"
    assert repo_spec("astropy/astropy", "1.3").test_cmd.startswith("pytest -rA -vv -o console_output_style=classic")
    assert repo_spec("astropy/astropy", "v5.3").python == "3.10"
    assert repo_spec("pylint-dev/pylint", "3.0").pip_packages == ["astroid==3.0.0a6", "setuptools"]
    assert repo_spec("pylint-dev/pylint", "2.8").local is False  # pyenchant needs a system library
    assert repo_spec("pytest-dev/pytest", "7.4").pip_packages[:3] == ["iniconfig==2.0.0", "packaging==23.1",
                                                                      "pluggy==1.3.0"]
    assert repo_spec("scikit-learn/scikit-learn", "0.22").python == "3.6"
    assert repo_spec("matplotlib/matplotlib", "3.3").python == "3.8"
    assert repo_spec("sphinx-doc/sphinx", "8.1").python == "3.10"


def test_pylint_2_15_has_what_the_harness_installs_and_needs_an_image():
    spec = repo_spec("pylint-dev/pylint", "2.15")
    # requirements_test_min.txt and setup.cfg at pylint-dev__pylint-7080's base commit
    assert "astroid==2.11.6" in spec.pip_packages and "tomlkit>=0.10.1" in spec.pip_packages
    assert spec.python == "3.9" and spec.local is False
    assert repo_spec("pylint-dev/pylint", "2.14").local is True  # only the measured version changes
