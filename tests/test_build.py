"""The build: the profile-guided build's training run works with this tree's
library, its MALILLA_* variables read as documented in setup.py, the sdist
carries the test suite, and a checkout without the core says how to build it."""
from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from setuptools.command.egg_info import FileList

from solver import _core

ROOT = Path(__file__).resolve().parent.parent


def training_script() -> str:
    """`TRAINING` from setup.py, read without running the build."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    [value] = [node.value for node in tree.body if isinstance(node, ast.Assign)
               and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["TRAINING"]]
    return ast.literal_eval(value)


def setup_py_function(name: str) -> Callable[..., object]:
    """The function `name` of setup.py, defined without running the build."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    [node] = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name]
    namespace: dict[str, object] = {"os": os}
    exec(compile(ast.Module(body=[node], type_ignores=[]), "setup.py", "exec"), namespace)
    return namespace[name]  # type: ignore[return-value]


@pytest.mark.parametrize("value", ["", "0", "false", "No", " OFF "])
def test_a_build_variable_set_to_a_no_is_off(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("MALILLA_PORTABLE", value)
    env_flag = setup_py_function("env_flag")
    assert env_flag("MALILLA_PORTABLE") is False
    assert env_flag("MALILLA_PORTABLE", default=True) is (value == "")


@pytest.mark.parametrize("value", ["1", "yes", "true", "on"])
def test_a_build_variable_set_to_a_yes_is_on(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("MALILLA_PORTABLE", value)
    assert setup_py_function("env_flag")("MALILLA_PORTABLE") is True


def test_an_unset_build_variable_takes_its_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MALILLA_PGO", raising=False)
    env_flag = setup_py_function("env_flag")
    assert env_flag("MALILLA_PGO", default=True) is True
    assert env_flag("MALILLA_PGO") is False


def test_the_profile_guided_training_runs_on_the_core():
    """A training run that fails leaves the core built without the profile, only
    with a warning in the build's log; here it must run to its end."""
    run = subprocess.run([sys.executable, "-c", training_script(), _core.__file__, str(ROOT)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr


def test_the_sdist_carries_the_test_suite_and_the_benchmarks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """MANIFEST.in takes every file of tests/ and bench/ and buf's settings, and
    none of the Node packages npm installs there nor compiled Python."""
    wanted = {path.relative_to(ROOT).as_posix() for folder in ("tests", "bench") for path in (ROOT / folder).rglob("*")
              if path.is_file() and not {"node_modules", "__pycache__"} & set(path.parts)} | {"proto/buf.yaml"}
    leftovers = {"tests/interop/node_modules/@grpc/grpc-js/package.json", "tests/buf/node_modules/.bin/buf",
                 "tests/__pycache__/conftest.cpython-311.pyc", "bench/__pycache__/conftest.cpython-311.pyc"}
    assert {"tests/conftest.py", "tests/interop/client.js", "tests/buf/package.json", "bench/conftest.py"} <= wanted
    for name in wanted | leftovers:   # the tree's files (empty) and what a test run leaves beside them
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).touch()
    monkeypatch.chdir(tmp_path)
    manifest = FileList()
    for line in (ROOT / "MANIFEST.in").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            manifest.process_template_line(line)
    assert set(manifest.files) == wanted


def test_a_checkout_without_the_core_says_how_to_build_it(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "solver", tmp_path / "solver", ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    run = subprocess.run([sys.executable, "-S", "-c", "import solver"], cwd=tmp_path,   # -S: no installed copy
                         capture_output=True, text=True, timeout=60)
    error = run.stderr.strip().splitlines()[-1]
    assert run.returncode == 1
    assert error.startswith("ImportError: solver's compiled search core (solver._core) is missing")
    assert "python -m pip install -e ." in error
