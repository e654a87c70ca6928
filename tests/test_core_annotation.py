"""The search core's parts compile to plain C: `cython -a` marks none of their
lines as touching Python."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

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
    assert PARTS == ["bounds", "cards", "moves", "ordering", "root", "search", "table"]
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
