"""The compiled search core: `cython -a` marks none of its parts' lines as touching
Python, and its type stub declares what it has."""
from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

from solver import _core

SOLVER = Path(__file__).resolve().parent.parent / "solver"
PARTS = sorted(path.stem for path in (SOLVER / "core").glob("*.pxi"))
SCORED_LINE = re.compile(r'<pre class="cython line score-(\d+)"[^>]*>.*?<span class="">(\d+)</span>')


@pytest.fixture(scope="module")
def annotations(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of `cython -a`'s pages of the core, built from the sources."""
    out = tmp_path_factory.mktemp("annotate")
    subprocess.run([sys.executable, "-m", "cython", "-3", "-a", "-o", str(out / "_core.c"),
                    str(SOLVER / "_core.pyx")], check=True, capture_output=True)
    return out


def test_every_part_is_included():
    text = (SOLVER / "_core.pyx").read_text()
    assert PARTS == ["bounds", "cards", "checks", "moves", "ordering", "perft", "root", "scoring", "search", "splits", "table", "threads"]
    assert [f'include "core/{part}.pxi"' in text for part in PARTS] == [True] * len(PARTS)


@pytest.mark.parametrize("part", PARTS)
def test_no_line_touches_python(annotations: Path, part: str):
    page = (annotations / "core" / f"{part}.html").read_text()
    scores = {int(line): int(score) for score, line in SCORED_LINE.findall(page)}
    source_lines = len((SOLVER / "core" / f"{part}.pxi").read_text().splitlines())
    assert len(scores) == source_lines
    assert {line: score for line, score in scores.items() if score} == {}


def test_the_python_face_is_scored(annotations: Path):
    """The same reading finds the lines that do touch Python, in the module's own file."""
    page = (annotations / "_core.html").read_text()
    assert any(int(score) > 0 for score, _ in SCORED_LINE.findall(page))


def test_the_type_stub_names_what_the_module_has():
    """`_core.pyi` (with `py.typed`, the package's types for type checkers) declares every public
    name of the compiled module, each Core method and Reason member, and nothing else."""
    stub = ast.parse((SOLVER / "_core.pyi").read_text())
    declared = {node.name: node for node in stub.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    constants = {node.target.id for node in stub.body if isinstance(node, ast.AnnAssign)}
    public = {name for name in dir(_core) if not name.startswith("_")} - {"zip_longest"}
    assert set(declared) | constants == public
    methods = {n.name if isinstance(n, ast.FunctionDef) else n.target.id for n in declared["Core"].body
               if isinstance(n, (ast.FunctionDef, ast.AnnAssign))} - {"__init__"}
    assert methods == {name for name in dir(_core.Core) if not name.startswith("_")}
    for node in [*(n for n in stub.body if isinstance(n, ast.FunctionDef)),
                 *(n for n in declared["Core"].body if isinstance(n, ast.FunctionDef) and n.name in ("solve", "clear"))]:
        real = getattr(_core.Core, node.name) if node.name in ("solve", "clear") else getattr(_core, node.name)
        assert [a.arg for a in node.args.args if a.arg != "self"] == \
            [name for name in inspect.signature(real).parameters if name != "self"], node.name
    members = {n.targets[0].id for n in declared["Reason"].body if isinstance(n, ast.Assign)}
    assert members == {r.name for r in _core.Reason}
    assert (SOLVER / "py.typed").is_file()
