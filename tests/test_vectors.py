"""Every line of the shared vectors (../shared/vectors): legal cards and solved values."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import VECTOR_FILES, VECTORS, assert_modes_agree, vector_path
from solver import Position, PositionError
from solver.solve import Solver

HAND_SIZE = {"malilla": 10, "manille": 8}
STEP = {"malilla": "NWSE", "manille": "NESW"}


def sizes_explained(obj) -> bool:
    """Do the hand sizes fit the trick in progress? (Worked out here, not by the project.)"""
    order = STEP[obj["game"]]
    start = order.index(obj["leader"])
    played = {order[(start + i) % 4] for i in range(len(obj["trick"]))}
    sizes = {s: len(obj["hands"][s].split()) for s in "NESW"}
    if max(sizes.values()) > HAND_SIZE[obj["game"]]:
        return False
    return len({sizes[s] + (s in played) for s in "NESW"}) == 1


@pytest.fixture(scope="module")
def solver():
    return Solver()


@pytest.fixture(scope="module")
def helped():
    """A solver of two threads whose helper joins every search at once and shares
    moves down to the last two tricks."""
    solver = Solver(threads=2)
    solver._core.helpers_after = 0
    solver._core.split_from = 8
    return solver


class TestVectorFiles:
    def test_every_file_is_present_and_not_empty(self):
        assert VECTORS.resolve() == (Path(__file__).resolve().parents[2] / "shared" / "vectors")
        assert VECTORS.is_dir(), f"shared vectors missing: {VECTORS.resolve()}"
        for name in VECTOR_FILES:
            assert vector_path(name).is_file(), name
            assert vector_path(name).read_text(encoding="utf-8").strip(), name

    def test_missing_file_fails_rather_than_skips(self, tmp_path):
        from conftest import read_jsonl
        with pytest.raises(pytest.fail.Exception):
            read_jsonl(tmp_path / "nothing.jsonl")


class TestLegalVectors:
    @pytest.mark.vectors("legal", "rules")
    def test_legal_moves(self, vector_line):
        obj = vector_line
        if sizes_explained(obj):
            position = Position.from_json(obj)
        else:
            # a few Manille lines hold hands no trick explains: strict parsing refuses them on the
            # hands (either "hands" or the seat that holds too many cards), lenient parsing answers
            assert obj["game"] == "manille"
            with pytest.raises(PositionError) as err:
                Position.from_json(obj)
            assert err.value.field == "hands" or err.value.field.startswith("hands."), err.value
            position = Position.from_json(obj, strict=False)
        assert position.legal_moves() == obj["legal"]
        assert Position.from_json(obj, strict=False).legal_moves() == obj["legal"]

    def test_lines_needing_lenient_parsing_are_few(self, vector_lines):
        lines = vector_lines("legal") + vector_lines("rules")
        unexplained = [obj for obj in lines if not sizes_explained(obj)]
        refused = []
        for obj in lines:
            try:
                Position.from_json(obj)
            except PositionError:
                refused.append(obj)
        # strict parsing refuses exactly the lines whose sizes are unexplained, and they are few
        assert refused == unexplained
        assert len(refused) <= 10


class TestSolvedVectors:
    @pytest.mark.vectors("endgames3", "endgames6", "full")
    def test_values_and_modes(self, solver, vector_line):
        obj = vector_line
        position = Position.from_json(obj)
        expected = obj["values"]
        value = max(expected.values())
        argmax = {card for card, v in expected.items() if v == value}
        assert_modes_agree(solver, position, expected)

        solution = solver.solve(position)
        assert solution.values == expected
        assert solution.value == value
        assert set(solution.best) == argmax

    @pytest.mark.vectors("endgames3", "endgames6", "full")
    def test_values_and_modes_on_two_threads(self, helped, vector_line):
        position = Position.from_json(vector_line)
        assert helped.solve(position).values == vector_line["values"]
        assert_modes_agree(helped, position, vector_line["values"])
