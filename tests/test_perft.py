"""Counting the legal sequences of cards (`solver.perft`): its checks and its limits. The counts
themselves are held to the reference in test_reference.py."""
from __future__ import annotations

import signal
import threading

import pytest

from conftest import load_vectors
from solver import Position
from solver.perft import perft
from solver.solve import SearchTimeout


@pytest.fixture
def full_deal() -> Position:
    return Position.from_json(load_vectors("full")[0])


@pytest.mark.parametrize("depth, problem", [
    (0, "depth: 0 must be at least 1"),
    (True, "depth: True is not a whole number"),
    (2.0, "depth: 2.0 is not a whole number"),
    (41, "depth: 41 is more than the 40 cards left to play"),
])
def test_a_depth_outside_the_cards_left_is_refused(full_deal, depth, problem):
    with pytest.raises(ValueError, match=f"^{problem}$"):
        perft(full_deal, depth)


def test_one_card_counts_the_legal_cards(full_deal):
    counted = perft(full_deal, 1)
    assert counted.cards == {card: 1 for card in full_deal.legal_moves()}
    assert counted.total == len(full_deal.legal_moves())


def test_the_last_card_of_a_deal_can_be_counted():
    last = Position.from_json({"game": "manille", "trump": "NT", "leader": "N", "trick": ["7S", "8S", "9S"],
                               "hands": {"N": "", "E": "", "S": "", "W": "10S"}})
    assert perft(last, 1).to_json() == {"depth": 1, "total": 1, "cards": {"10S": 1}}


def test_a_count_past_its_timeout_raises(full_deal):
    with pytest.raises(SearchTimeout, match="^timeout: the count took more than the 0.01 s allowed$"):
        perft(full_deal, 24, timeout=0.01)


def test_a_timeout_must_be_a_positive_number(full_deal):
    with pytest.raises(ValueError, match="^timeout: "):
        perft(full_deal, 4, timeout=0)


def test_ctrl_c_stops_a_long_count(full_deal):
    timer = threading.Timer(0.3, signal.raise_signal, (signal.SIGINT,))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            perft(full_deal, 30, timeout=60)
    finally:
        timer.cancel()
