"""The service's API passes buf's STANDARD lint rules (proto/buf.yaml) and its formatter.

buf is installed from the npm registry by .ci/run (`npm ci --prefix tests/buf`);
without it this test fails, it does not skip.
"""
from __future__ import annotations

import subprocess

import pytest

from conftest import PROJECT

BUF = PROJECT / "tests" / "buf" / "node_modules" / ".bin" / "buf"


def buf(*args: str) -> subprocess.CompletedProcess:
    if not BUF.is_file():
        pytest.fail(f"{BUF} is missing: run `npm ci --prefix tests/buf` (as .ci/run does)")
    return subprocess.run([str(BUF), *args], cwd=PROJECT / "proto", capture_output=True, text=True, timeout=120)


def test_lint():
    proc = buf("lint")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_format():
    proc = buf("format", "--diff", "--exit-code")
    assert (proc.returncode, proc.stdout) == (0, "")


def test_lint_finds_a_fault(tmp_path):
    """The same lint, on a copy of the API with a field named against the rules, refuses it."""
    copy = tmp_path / "malilla" / "dd" / "v1"
    copy.mkdir(parents=True)
    text = (PROJECT / "proto" / "malilla" / "dd" / "v1" / "double_dummy.proto").read_text()
    (copy / "double_dummy.proto").write_text(text.replace("string game = 1;", "string gameName = 1;", 1))
    (tmp_path / "buf.yaml").write_text((PROJECT / "proto" / "buf.yaml").read_text())
    proc = subprocess.run([str(BUF), "lint"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and '"gameName" should be lower_snake_case' in proc.stdout
