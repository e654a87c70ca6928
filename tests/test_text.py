"""Plain text for a person: the hand diagram, and the bars between the tricks of a line of play."""
from __future__ import annotations

import re

import pytest

from conftest import load_vectors
from solver import Position
from solver.cards import SEATS
from solver.solve import Solver
from solver.text import diagram, tricks_text


def trick_ends(position: Position, line: list[str]) -> list[int]:
    """The number of cards of `line` played when each trick is complete, by playing it out."""
    ends = []
    for i, card in enumerate(line):
        position = position.play(card)
        if not position.trick:
            ends.append(i + 1)
    return ends


@pytest.mark.parametrize("name", ["endgames3", "endgames6"])
def test_the_bars_fall_where_tricks_end(name):
    solver = Solver()
    started = 0
    for obj in load_vectors(name):
        position = Position.from_json(obj)
        line = solver.solve(position).line
        started += bool(position.trick)
        groups = [g.split() for g in tricks_text(line, len(position.trick)).split(" | ")]
        assert [c for g in groups for c in g] == list(line)
        sizes = [len(g) for g in groups]
        assert [sum(sizes[:k + 1]) for k in range(len(sizes))] == trick_ends(position, list(line))
    assert started > 0, "no vector has a trick in progress"


@pytest.mark.parametrize("played, sizes", [(0, [4, 4, 1]), (1, [3, 4, 2]), (2, [2, 4, 3]), (3, [1, 4, 4])])
def test_the_first_trick_holds_what_is_left_of_it(played, sizes):
    line = [f"{n}S" for n in range(2, 11)]
    assert [len(g.split()) for g in tricks_text(line, played).split(" | ")] == sizes


def test_no_line_is_empty_text():
    assert tricks_text([], 2) == ""


def test_the_diagram_shows_every_hand_and_marks_an_empty_one():
    obj = load_vectors("endgames3")[1]
    position = Position.from_json(obj)
    text = "\n".join(diagram(position))
    for seat in SEATS:
        assert f"{seat}: {' '.join(position.hand(seat))}" in text
    while all(position.hands):
        position = position.play(position.legal_moves()[0])
    lines = diagram(position)
    shown = dict(re.findall(r"([NESW]): (\S+(?: \S+)*)", "\n".join(lines)))
    assert shown == {s: " ".join(position.hand(s)) or "-" for s in SEATS}
    assert "-" in shown.values()
    assert lines[0].index("N:") == lines[2].index("S:")
