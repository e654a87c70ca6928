"""The library's and the service's type hints agree with their code: mypy,
configured in pyproject.toml, finds nothing in solver/ and server/."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def mypy(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_solver_and_server_type_check(tmp_path: Path) -> None:
    result = mypy(cache=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_a_wrong_hint_is_found(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong_hint.py"
    wrong.write_text("from solver import Position\n\n\n"
                     "def count(position: Position) -> str:\n"
                     "    return position.to_move\n")
    result = mypy(str(wrong), cache=tmp_path / "cache")
    assert result.returncode == 1
    assert "wrong_hint.py:5: error: Incompatible return value" in result.stdout


def test_a_generic_without_its_arguments_is_found(tmp_path: Path) -> None:
    bare = tmp_path / "bare_generic.py"
    bare.write_text("def hands() -> dict:\n"
                    "    return {}\n")
    result = mypy(str(bare), cache=tmp_path / "cache")
    assert result.returncode == 1
    assert 'bare_generic.py:1: error: Missing type arguments for generic type "dict"' in result.stdout
