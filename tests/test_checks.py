"""Whole-number arguments of the library: a wrong type or a value too small is a ValueError
naming the argument, from every function that takes one, never a TypeError from deep inside."""
from __future__ import annotations

import enum

import pytest

from conftest import played_deal
from solver import MALILLA, MANILLE, Position
from solver.advice import advise, advise_iter, verdict
from solver.analysis import analyze, perfect_score
from solver.batch import run_batch
from solver.cards import card_points, seat_name, trick_points
from solver.checks import check_whole, parse_size
from solver.puzzles import check_position, generate, generate_attempts, mine
from solver.quoting import quoted
from solver.report import render_report
from solver.scoring import Match, side_score
from solver.solve import Solver
from solver.table import table_of
from solver.view import view_of


@pytest.mark.parametrize("value, least, message", [
    ("3", None, "n: '3' is not a whole number"),
    (2.0, None, "n: 2.0 is not a whole number"),
    (None, 1, "n: None is not a whole number"),
    (True, 0, "n: True is not a whole number"),
    (0, 1, "n: 0 must be at least 1"),
    (-3, 0, "n: -3 must be at least 0"),
])
def test_refusals(value, least, message):
    with pytest.raises(ValueError) as err:
        check_whole("n", value, least)
    assert str(err.value) == message


@pytest.mark.parametrize("value, least", [(0, None), (-5, None), (1, 1), (2 ** 70, 0)])
def test_acceptances(value, least):
    check_whole("n", value, least)


DEAL = played_deal("manille", 5, 12)
VIEW = view_of(played_deal("manille", 6), played_deal("manille", 6)["play"][:5])


@pytest.mark.parametrize("call, message", [
    (lambda s: analyze(DEAL, s, single_dummy="3"), "single_dummy: '3' is not a whole number"),
    (lambda s: analyze(DEAL, s, single_dummy=2, seed="x"), "seed: 'x' is not a whole number"),
    (lambda s: analyze(DEAL, s, objective="match"), "objective: 'match' is not one of points, score"),
    (lambda s: advise(VIEW, samples=2.5, solver=s), "samples: 2.5 is not a whole number"),
    (lambda s: advise(VIEW, samples=2, max_attempts=0, solver=s), "max_attempts: 0 must be at least 1"),
    (lambda s: advise(VIEW, samples=3, max_attempts=2, solver=s), "max_attempts: 2 is fewer than the 3 samples asked for"),
    # the generators refuse at the call, before anything is asked of them
    (lambda s: generate(MANILLE, "2", 1, solver=s), "count: '2' is not a whole number"),
    (lambda s: generate(MANILLE, 1, 1, min_tricks=None, solver=s), "min_tricks: None is not a whole number"),
    (lambda s: generate_attempts(MANILLE, 1, 1, margin=0, solver=s), "margin: 0 must be at least 1"),
    (lambda s: mine(DEAL, margin=1.5, solver=s), "margin: 1.5 is not a whole number"),
    (lambda s: advise_iter(VIEW, samples=0, solver=s), "samples: 0 must be at least 1"),
    (lambda s: advise_iter(VIEW, timeout=-1, solver=s), "timeout: -1 is not a positive number of seconds"),
    (lambda s: run_batch("solve", None, game="manille", deals=2, chunk="2"), "chunk: '2' is not a whole number"),
], ids=["analyze-single-dummy", "analyze-seed", "analyze-objective", "advise-samples", "advise-attempts", "advise-attempts-samples",
         "generate-count",
        "generate-tricks", "generate-attempts-margin", "mine-margin", "advise-iter-samples", "advise-iter-timeout",
        "batch-chunk"])
def test_each_function_names_its_argument(call, message):
    with pytest.raises(ValueError) as err:
        call(Solver(1 << 20))
    assert str(err.value) == message


@pytest.mark.parametrize("call", [
    lambda s: analyze(DEAL, s),
    lambda s: table_of({k: v for k, v in played_deal("manille", 5).items() if k != "play"}, s),
    lambda s: advise(VIEW, samples=2, solver=s),
    lambda s: next(generate(MANILLE, 1, 1, solver=s)),
    lambda s: next(mine(DEAL, solver=s)),
], ids=["analyze", "table", "advise", "generate", "mine"])
@pytest.mark.parametrize("solver", [0, "", [], "solver", Solver])
def test_an_object_that_is_no_solver_is_named(call, solver):
    """Not quietly swapped for the default (a falsy one) nor an AttributeError from inside."""
    with pytest.raises(ValueError) as err:
        call(solver)
    assert str(err.value) == f"solver: {quoted(solver)} is not a Solver"


@pytest.mark.parametrize("call", [
    lambda s: next(generate(MANILLE, 1, 1, node_solver=s)),
    lambda s: next(mine(DEAL, node_solver=s)),
    lambda s: check_position(POSITION, node_solver=s),
], ids=["generate", "mine", "check"])
@pytest.mark.parametrize("node_solver", [0, "counter", Solver, Position])
def test_a_node_solver_that_cannot_count_is_named(call, node_solver):
    """A counter needs `clear` as well as `solve`: a Position has neither, the Solver class is no solver."""
    with pytest.raises(ValueError) as err:
        call(node_solver)
    assert str(err.value) == f"node_solver: {quoted(node_solver)} is not a Solver"


def test_a_searcher_without_clear_cannot_count_nodes():
    class Searching:
        def solve(self, *args, **kwargs):
            raise AssertionError("not to be called")

    with pytest.raises(ValueError, match=r"^node_solver: .* is not a Solver: it has no clear\(\)$"):
        check_position(POSITION, node_solver=Searching())


HUGE = 10 ** 5000
"""Past Python's limit on converting a whole number to text: an error must not try to write it out."""
POSITION = {"game": "manille", "trump": "S", "hands": {"N": "7S", "E": "8S", "S": "9S", "W": "JS"}, "leader": "N"}


@pytest.mark.parametrize("call, message", [
    (lambda: check_whole("n", -HUGE, 0), "n: <16610-bit number> must be at least 0"),
    (lambda: Solver(HUGE), "memory: <16610-bit number> bytes is more than"),
    (lambda: Solver(-HUGE), "memory: <16610-bit number> bytes is too small"),
    (lambda: generate(MANILLE, 1, 1, min_tricks=HUGE), "min_tricks: <16610-bit number> is more than"),
    (lambda: Position.from_json({**POSITION, "leader": HUGE}), "leader: <16610-bit number> is not a seat"),
    (lambda: Position.from_json({**POSITION, "to_move": -HUGE}), "to_move: <16610-bit number> is not a seat"),
    (lambda: Solver(1 << 20).solve(Position.from_json(POSITION), mode=HUGE), "mode: <16610-bit number> is not one"),
    (lambda: Position.from_json(POSITION).play(HUGE), "card: <16610-bit number> is not a card"),
], ids=["least", "memory-huge", "memory-negative", "tricks", "leader", "to-move", "mode", "play"])
def test_a_huge_number_is_named_by_its_size(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value).startswith(message)


def _match_with_bonus_card(card: object) -> None:
    match = Match("malilla")
    match.start_deal(card)


@pytest.mark.parametrize("call, message", [
    (lambda: card_points(15, MALILLA), "15 is not a card number of the malilla deck"),
    (lambda: card_points(-1, MALILLA), "-1 is not a card number of the malilla deck"),
    (lambda: trick_points([0, 1, 2, True], MALILLA), "True is not a card number of the malilla deck"),
    (lambda: seat_name(-1), "-1 is not a seat index (N=0 E=1 S=2 W=3)"),
    (lambda: side_score(MANILLE, -1, False, "S"), "points: -1 must be at least 0"),
    (lambda: side_score(MANILLE, 1.5, False, "S"), "points: 1.5 is not a whole number"),
    (lambda: side_score(MANILLE, 61, False, "S"), "points: 61 is more than the 60 points of a manille deal"),
    (lambda: perfect_score(Solver(1 << 20), Position.from_json(POSITION), 999),
     "points_ns: 999 is more than the 60 points of a manille deal"),
    (lambda: _match_with_bonus_card(True), "True is not a card of the malilla deck"),
    (lambda: _match_with_bonus_card(1.0), "1.0 is not a card of the malilla deck"),
    (lambda: render_report([None]), "items[0]: None is not an Analysis or a ReportItem"),
], ids=["card-15", "card-negative", "trick-bool", "seat", "side-negative", "side-float", "side-over",
        "perfect-points", "bonus-bool", "bonus-float", "report-item"])
def test_a_helper_names_a_number_out_of_its_range(call, message):
    """Not a quiet answer for a number that means nothing (card 15 is no card), nor an error from inside."""
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value) == message


def test_a_verdict_on_a_card_the_advice_has_not_valued_is_refused():
    advice = advise(VIEW, samples=2, solver=Solver(1 << 20))
    with pytest.raises(ValueError, match=r"^card: 'XX' is not one of the advice's cards \("):
        verdict("XX", advice, 0)


class Modes(str, enum.Enum):
    BEST = "best"


class Mode(str):
    pass


@pytest.mark.parametrize("mode", [Mode("best"), Modes.BEST], ids=["str", "enum"])
def test_a_mode_of_a_str_type_of_its_own_is_read_as_its_text(mode):
    """An enum's str() is its member's name, not its text: the mode is the text it equals."""
    position = Position.from_json(POSITION)
    assert Solver(1 << 20).solve(position, mode=mode) == Solver(1 << 20).solve(position, mode="best")


def test_a_key_that_is_no_text_is_no_misspelt_key():
    assert Position.from_json({**POSITION, HUGE: 1, (1, 2): 3}).legal_moves() == ["7S"]


@pytest.mark.parametrize("text, size", [("1024", 1024), ("64k", 64 << 10), ("64K", 64 << 10), ("256M", 256 << 20),
                                        ("256MiB", 256 << 20), ("256mb", 256 << 20), ("1G", 1 << 30),
                                        ("2 GiB", 2 << 30), ("100B", 100), (" 5 ", 5)])
def test_sizes(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["1T", "1ib", "-1", "+1", "1.5G", "M", "", "1 000"])
def test_what_is_not_a_size(text):
    with pytest.raises(ValueError) as info:
        parse_size(text)
    assert str(info.value) == f"{text!r} is not a size (bytes, or a number with K, M or G)"
