"""The build: the profile-guided build's training run works with this tree's library."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from solver import _core

ROOT = Path(__file__).resolve().parent.parent


def training_script() -> str:
    """`TRAINING` from setup.py, read without running the build."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    [value] = [node.value for node in tree.body if isinstance(node, ast.Assign)
               and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["TRAINING"]]
    return ast.literal_eval(value)


def test_the_profile_guided_training_runs_on_the_core():
    """A training run that fails leaves the core built without the profile, only
    with a warning in the build's log; here it must run to its end."""
    run = subprocess.run([sys.executable, "-c", training_script(), _core.__file__, str(ROOT)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
