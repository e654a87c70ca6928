"""The README's Python examples run as written, with their placeholder inputs
(`position_json`, `played_deal_json`, ...) bound to real ones."""
from __future__ import annotations

import json
import re

import pytest

from conftest import PROJECT, played_deal
from server_fixtures import running_server
from solver import Position, get_profile
from solver.analysis import analyze
from solver.batch_stats import BatchStats
from solver.deal import deal
from solver.puzzles import generate, mine
from solver.solve import Solution, Solver, solve
from solver.table import table_of
from solver.view import view_of

README_ADDRESS = "127.0.0.1:50051"


def readme_examples() -> list[str]:
    text = (PROJECT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def example_using(*names: str) -> str:
    """The one README example that uses every one of `names`."""
    found = [code for code in readme_examples() if all(name in code for name in names)]
    assert len(found) == 1, f"{len(found)} README examples use {names}"
    return found[0]


ANNOTATED = re.compile(r"^\s*(\w+) = .*#\s*\w+: (.*)$", flags=re.M)


def run(code: str, **names) -> dict:
    """Run an example; a result annotated `x = ...  # Type: .a, .b()` must have those attributes."""
    scope = {"__name__": "__main__", **names}
    exec(compile(code, "README.md", "exec"), scope)
    for name, listed in ANNOTATED.findall(code):
        attributes = re.findall(r"\.(\w+)", listed)
        assert attributes and [a for a in attributes if not hasattr(scope[name], a)] == [], (name, listed)
    return scope


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_example_is_run():
    assert len(readme_examples()) == 6


def test_position_and_solver(in_tmp):
    """On a deal whose leader may lead the example's 7S."""
    position = next(p for p in (deal(get_profile("manille"), seed=s).to_position_json() for s in range(100))
                    if "7S" in Position.from_json(p).legal_moves())
    (in_tmp / "deal.json").write_text(json.dumps(position))
    scope = run(example_using("Solver().solve(position)"))
    assert scope["solution"].values == solve(Position.from_json(position)).values


def test_analysis_table_and_report(in_tmp):
    played, full = played_deal("malilla", 5), deal(get_profile("manille"), seed=5).to_deal_json()
    scope = run(example_using("write_report("), played_deal_json=played, deal_json=full)
    assert scope["a"].to_json() == analyze(played).to_json()
    assert scope["t"].to_json() == table_of(full).to_json()
    assert "<html" in (in_tmp / "report.html").read_text(encoding="utf-8").lower()


def test_puzzles():
    code = example_using("generate(get_profile(")
    puzzles: list = []
    played = played_deal("manille", 1)
    generated = generate(get_profile("manille"), count=1, seed=1)
    first = next(generated).to_json()
    scope = run(code.replace("puzzle.to_json(), puzzle.rating, puzzle.tags", "puzzles.append(puzzle.to_json())"),
                puzzles=puzzles, played_deal_json=played, position_json=first["position"])
    assert len(puzzles) == 10 and all(p["position"]["game"] == "manille" for p in puzzles) and puzzles[0] == first
    assert scope["found"].to_json() == first
    mined = [p.to_json() for p in mine(played, min_tricks=2, margin=1)]
    assert len(mined) == 2 and [p.to_json() for p in scope["mined"]] == mined


def test_advice():
    full = deal(get_profile("malilla"), seed=2).to_deal_json()
    view = view_of(full, [])
    scope = run(example_using("advise(view_json"), view_json=view)
    assert scope["advice"].to_json()["cards"]


def test_batch(in_tmp):
    code = example_using("run_batch(").replace("deals=1000", "deals=20")
    scope = run(code)
    assert isinstance(scope["stats"], BatchStats)
    assert len((in_tmp / "table.jsonl").read_text().splitlines()) == 20


def test_client():
    p1, p2 = (deal(get_profile("manille"), seed=s).to_position_json() for s in (1, 2))
    with running_server() as server:
        code = example_using("Client(").replace(README_ADDRESS, f"127.0.0.1:{server.port}")
        code = code.replace("        ...", "        answers.append(answer)")
        code = code.replace("    dd.analyze_play(", "    analysed = dd.analyze_play(")
        code = code.replace("    dd.table(", "    tabled = dd.table(")
        code = code.replace("    dd.perft(", "    counted = dd.perft(")
        code = code.replace("    list(dd.generate_puzzles(", "    puzzled = list(dd.generate_puzzles(")
        answers: list = []
        played, full = played_deal("malilla", 1), deal(get_profile("malilla"), seed=1).to_deal_json()
        scope = run(code, position_json=p1, p1=p1, p2=p2, played_deal_json=played, deal_json=full, answers=answers)
    assert scope["solution"].value == solve(Position.from_json(p1), mode="best").value
    assert [type(a) for a in answers] == [Solution, Solution]
    assert scope["analysed"] == analyze(played).to_json()
    assert scope["scored"] == analyze(played, objective="score", single_dummy=20, seed=1).to_json()
    assert scope["tabled"] == table_of(full).to_json()
    assert scope["counted"] == Solver().perft(p1, 8)
    assert scope["puzzled"] == [p.to_json() for p in generate("manille", 2, 1)]
