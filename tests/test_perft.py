"""Counting the legal sequences of cards (`Solver.perft`): its checks, its limits and its cancel.
The counts themselves are held to the reference in test_reference.py."""
from __future__ import annotations

import signal
import threading
import time

import pytest

from conftest import ctrl_c_as_python_takes_it, load_vectors
from solver import Position, PositionError
from solver.perft import check_depth_option
from solver.profiles import LONGEST_DEAL
from solver.solve import SearchStopped, SearchTimeout, Solver


@pytest.fixture
def full_deal() -> Position:
    return Position.from_json(load_vectors("full")[0])


@pytest.fixture
def solver() -> Solver:
    return Solver()


@pytest.mark.parametrize("depth, problem", [
    (0, "depth: 0 must be at least 1"),
    (True, "depth: True is not a whole number"),
    (2.0, "depth: 2.0 is not a whole number"),
    (41, "depth: 41 is more than the 40 cards left to play"),
])
def test_a_depth_outside_the_cards_left_is_refused(solver, full_deal, depth, problem):
    with pytest.raises(ValueError, match=f"^{problem}$"):
        solver.perft(full_deal, depth)


def test_one_card_counts_the_legal_cards(solver, full_deal):
    counted = solver.perft(full_deal, 1)
    assert counted.cards == {card: 1 for card in full_deal.legal_moves()}
    assert counted.total == len(full_deal.legal_moves())


def test_the_last_card_of_a_deal_can_be_counted(solver):
    last = Position.from_json({"game": "manille", "trump": "NT", "leader": "N", "trick": ["7S", "8S", "9S"],
                               "hands": {"N": "", "E": "", "S": "", "W": "10S"}})
    assert solver.perft(last, 1).to_json() == {"depth": 1, "total": 1, "cards": {"10S": 1}}


UNEVEN = {"game": "malilla", "trump": "D", "leader": "W", "trick": ["JS", "6S", "4D"], "led_suits": "SHC",
          "hands": {"N": "KS AH 2D", "W": "KC 5C 3C", "S": "2S 4H", "E": "7D QC"}}
"""An abstract position: W holds a card more than the trick leaves it."""


def test_a_lenient_count_leaves_the_hand_sizes_unchecked(solver):
    position = Position.from_json(UNEVEN, strict=False)
    expected = {card: sum(len(after.play(c).legal_moves()) for c in after.legal_moves())
                for card in position.legal_moves() for after in [position.play(card)]}
    assert solver.perft(UNEVEN, 3, strict=False).cards == expected
    assert solver.perft(position, 3, strict=False).cards == expected
    for strict in (UNEVEN, position):
        with pytest.raises(PositionError, match="^hands: sizes N=3 E=2 S=2 W=3 do not fit a trick of 3 card"):
            solver.perft(strict, 3)


UNEVEN_WHOLE_DECK = {"game": "malilla", "trump": "C", "leader": "W", "trick": [],
                     "hands": {"N": "6S 3S AH 4H 3H 2H 7D QC 5C 3C AS", "W": "7H JH 6H 4D 3D 2D 6C 4C 2C",
                               "S": "7S JS 4S 5H KD JD 6D 5D 7C AC", "E": "KS QS 5S 2S KH QH AD QD KC JC"}}
"""An abstract position holding the whole deck, dealt 11, 9, 10 and 10."""


def test_a_lenient_count_takes_a_whole_deck_dealt_unevenly(solver):
    position = Position.from_json(UNEVEN_WHOLE_DECK, strict=False)
    expected = {card: len(position.play(card).legal_moves()) for card in position.legal_moves()}
    assert solver.perft(UNEVEN_WHOLE_DECK, 2, strict=False).cards == expected
    assert solver.perft(position, 2, strict=False).cards == expected


RUNS_DRY = {"game": "malilla", "trump": "C", "leader": "N", "trick": [],
            "hands": {"N": "7S AS KS 7H AH KH 7D AD KD QD", "W": "QS JS 6S QH JH 6H JD 6D 5D 3C",
                      "S": "5S 4S 3S 5H 4H 3H 4D 3D 2D 2C", "E": "2S 2H 4C 5C 6C"}}
"""An abstract position whose fifth trick finds E's hand empty: no sequence of 24 cards exists,
and a count of them finds none for as long as it runs."""


def test_a_count_that_finds_no_sequence_still_stops_at_its_timeout(solver):
    start = time.monotonic()
    with pytest.raises(SearchTimeout):
        solver.perft(RUNS_DRY, 24, timeout=0.2, strict=False)
    assert time.monotonic() - start < 2


def test_a_count_that_finds_no_sequence_still_stops_at_a_cancel(solver):
    timer = threading.Timer(0.2, solver.cancel)
    timer.start()
    try:
        with pytest.raises(SearchStopped):
            solver.perft(RUNS_DRY, 24, timeout=30, strict=False)
    finally:
        timer.cancel()


def test_a_count_past_its_timeout_raises(solver, full_deal):
    with pytest.raises(SearchTimeout, match="^timeout: the count took more than the 0.01 s allowed$"):
        solver.perft(full_deal, 24, timeout=0.01)


def test_a_timeout_must_be_a_positive_number(solver, full_deal):
    with pytest.raises(ValueError, match="^timeout: "):
        solver.perft(full_deal, 4, timeout=0)


def test_ctrl_c_stops_a_long_count(solver, full_deal):
    timer = threading.Timer(0.3, signal.raise_signal, (signal.SIGINT,))
    with ctrl_c_as_python_takes_it():
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                solver.perft(full_deal, 30, timeout=60)
        finally:
            timer.cancel()


def test_a_cancel_from_another_thread_stops_a_long_count_within_milliseconds(solver, full_deal):
    stopped: list[float] = []
    timer = threading.Timer(0.3, lambda: stopped.append(time.monotonic()) or solver.cancel())
    timer.start()
    try:
        with pytest.raises(SearchStopped) as raised:
            solver.perft(full_deal, 30, timeout=60)
        ended = time.monotonic()
    finally:
        timer.cancel()
    assert not isinstance(raised.value, SearchTimeout)
    assert str(raised.value) == "the count was stopped before it finished"
    assert ended - stopped[0] < 0.05


def test_a_cancel_before_a_count_stops_it_and_is_taken(solver, full_deal):
    solver.cancel()
    with pytest.raises(SearchStopped, match="^the count was stopped before it started$"):
        solver.perft(full_deal, 8)
    assert solver.perft(full_deal, 8) == Solver().perft(full_deal, 8)


def test_a_withdrawn_cancel_stops_no_count(solver, full_deal):
    solver.cancel()
    solver.withdraw_cancel()
    assert solver.perft(full_deal, 4).total == 77


def test_the_counts_after_a_stopped_count_are_exact(solver, full_deal):
    """The leaves of the stopped count are not carried into the next, nor is its cancel into
    the next count or search."""
    timer = threading.Timer(0.05, solver.cancel)
    timer.start()
    with pytest.raises(SearchStopped):
        solver.perft(full_deal, 30)
    timer.join()
    counted = solver.perft(full_deal, 8)
    assert counted.total == 4261 and counted == Solver().perft(full_deal, 8)
    assert solver.solve(full_deal).values == load_vectors("full")[0]["values"]


def test_the_depth_option_goes_up_to_the_cards_of_the_longest_deal():
    """`--depth 40` is a whole malilla deal: accepted; one more is refused."""
    check_depth_option(LONGEST_DEAL.deck_size, "--depth")
    with pytest.raises(ValueError, match=f"^--depth: {LONGEST_DEAL.deck_size + 1} is more than"):
        check_depth_option(LONGEST_DEAL.deck_size + 1, "--depth")
