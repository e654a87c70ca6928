"""A game's Profile is data: one that the engine cannot play is refused when it is made."""
from __future__ import annotations

import copy
import dataclasses
import pickle
import random

import pytest

from solver import MALILLA, MANILLE, Position, PositionError, Profile, Solver
from solver.rules import core_rules


@pytest.mark.parametrize("change, message", [
    (dict(points=(5, 4, 3)), "points: expected a tuple of 10 values, one per rank"),
    (dict(points=(5, 4, 3, 2, 1, 0, 0, 0, 0, -1)), r"points\[9\]: -1 must be at least 0"),
    (dict(trick_bonus=-5), "trick_bonus: -5 must be at least 0"),
    (dict(points=(8, 4, 3, 2, 1, 0, 0, 0, 0, 0)), r"points\[0\]: 8 is more than the 7 points a card may hold"),
    (dict(trick_bonus=7), "points: a deal of 130 points \\(cards and tricks\\) is more than the 126 the search holds"),
    (dict(protected_rank="8"), "protected_rank: '8' is not one of the ranks"),
    (dict(ranks=MALILLA.ranks + ("1",), points=MALILLA.points + (0,), cards_per_hand=11),
     "ranks: expected 1 to 10 different rank names"),
    (dict(ranks=("7",) * 10), "ranks: expected 1 to 10 different rank names"),
    (dict(cards_per_hand=8), "cards_per_hand: 8, but four hands share the 40 cards of 10 ranks"),
    (dict(capot_multiplier=0), "capot_multiplier: 0 must be at least 1"),
    (dict(packets=()), "packets: expected a tuple of packet sizes"),
    (dict(packets=(3, 0)), r"packets\[1\]: 0 must be at least 1"),
    (dict(points=(5, 4, 3, 2, 1, 1, 1, 0, 0, 0)), "points: 7 ranks of a suit stand above its worthless bottom ones"),
    (dict(protected_rank="4"), "protected_rank: '4' among the worthless ranks leaves 7 ranks above the ones"),
    (dict(ranks=("7", "a", "K", "Q", "J", "6", "5", "4", "3", "2")), "ranks: 'a' is not a rank name"),
    (dict(ranks=("7", "ACE", "K", "Q", "J", "6", "5", "4", "3", "2")), "ranks: 'ACE' is not a rank name"),
    (dict(ranks=("7", "A K", "K", "Q", "J", "6", "5", "4", "3", "2")), "ranks: 'A K' is not a rank name"),
    (dict(points=(0,) * 10, trick_bonus=0), "points: a deal worth no points \\(cards and tricks\\) has nothing to"),
    (dict(clockwise="no"), "clockwise: 'no' is not True or False"),
    (dict(undertrump_ban=2), "undertrump_ban: 2 is not True or False"),
    (dict(no_trump_allowed=True), "no_trump_allowed: trump is the suit of the dealer's shown card "
                                  r"\(trump_from_dealer_card\), never no trump"),
])
def test_a_profile_the_engine_cannot_play_is_refused(change, message):
    with pytest.raises(ValueError, match=f"^Profile malilla: {message}"):
        dataclasses.replace(MALILLA, **change)


@pytest.mark.parametrize("name", ["", "x\ud800", "tab\there", 7])
def test_a_profile_needs_a_name(name):
    with pytest.raises(ValueError, match="^Profile: name: .* is not a name \\(printable text\\)"):
        dataclasses.replace(MALILLA, name=name)


@pytest.mark.parametrize("name, change", [
    ("malilla", dict(trick_bonus=0)), ("MANILLE", dict(trick_bonus=0)), ("Malilla", {}),
])
def test_a_variant_may_not_take_a_shipped_game_s_name(name, change):
    """Its JSON would name the shipped game and read back by the shipped rules (in any case: the
    game's name is read so)."""
    with pytest.raises(ValueError, match=f"^Profile {name}: name: '{name}' names the shipped "
                                         f"{name.lower()}, whose JSON reads back by its rules"):
        dataclasses.replace(MALILLA, name=name, **change)


def test_a_shipped_game_made_again_is_itself():
    assert dataclasses.replace(MANILLE) == MANILLE and copy.deepcopy(MALILLA) == MALILLA
    assert pickle.loads(pickle.dumps(MALILLA)) == MALILLA


def test_a_copy_is_checked_as_the_original_was():
    """A profile is pickled and copied by its fields, so one made without its checks (as by an
    older pickle) is refused when copied, not passed on."""
    unchecked = object.__new__(Profile)
    unchecked.__dict__.update(vars(MALILLA), trick_bonus=0)
    for make_again in (copy.deepcopy, lambda p: pickle.loads(pickle.dumps(p))):
        with pytest.raises(ValueError, match="^Profile malilla: name: 'malilla' names the shipped malilla"):
            make_again(unchecked)


@pytest.mark.parametrize("change, message", [
    (dict(cards_per_hand=10.0), "cards_per_hand: 10.0 is not a whole number"),
    (dict(cards_per_hand=True), "cards_per_hand: True is not a whole number"),
    (dict(ranks=(["7"],) + MALILLA.ranks[1:]), "ranks: expected 1 to 10 different rank names"),
])
def test_a_field_of_the_wrong_type_is_named(change, message):
    with pytest.raises(ValueError, match=f"^Profile v: {message}"):
        dataclasses.replace(MALILLA, name="v", **change)


def test_a_protected_rank_inside_the_worthless_ones_ends_those_keyed_by_order_alone():
    """Malilla's 2 (the bottom of its worthless 6 5 4 3 2) or 6 (the top) may be protected; its 4 may
    not, since the ranks keyed by their order alone would then end at the 4, leaving 7 above."""
    for rank in ("2", "6"):
        assert dataclasses.replace(MALILLA, name="protected", protected_rank=rank).protected_rank == rank
    with pytest.raises(ValueError, match="protected_rank: '4' among the worthless ranks leaves 7 ranks above"):
        dataclasses.replace(MALILLA, protected_rank="4")


def test_points_that_do_not_fall_with_rank():
    """A top rank worth nothing: the 10 that South keeps with the ace is no richer, so South gives its
    partner's winning trick the ace (7 points), and N-S take both tricks, 14 points in all."""
    variant = dataclasses.replace(MANILLE, name="v3", ranks=("10", "A", "K"), points=(0, 7, 6), trick_bonus=1,
                                  cards_per_hand=3, clockwise=False)
    position = Position.from_json(
        {"game": "v3", "trump": "H", "hands": {"N": "10H AD", "E": "AH KH", "S": "10C AC", "W": "10S KC"},
         "leader": "N", "trick": [], "history": [["10D", "AS", "KS", "KD"]]}, profile=variant)
    assert Solver(1 << 20).solve(position).values == {"10H": 14, "AD": 14}


def test_a_protected_rank_is_named_in_the_refusal():
    variant = dataclasses.replace(MANILLE, name="king", protected_rank="K")
    position = Position.from_json({"game": "king", "trump": "S", "leader": "N", "trick": ["QC"],
                                   "hands": {"N": "8H", "E": "KD 9H", "S": "8S 9S", "W": "7S 10S"}}, profile=variant)
    with pytest.raises(PositionError, match="E may not play KD: may not discard the K of a suit not yet led"):
        position.play("KD")


def test_a_variant_of_a_shipped_game_plays_by_its_own_points():
    """N leads the ten and takes the last trick: 10S AS KS QS, worth 4 + 4 + 3 + 2 and 2 for the trick.
    Two variants of one name share a hash (profiles hash by name): the caches keyed by profile
    must still tell the two apart."""
    variant = dataclasses.replace(MANILLE, name="variant", points=(4, 4, 3, 2, 1, 0, 0, 0), trick_bonus=2)
    twin = dataclasses.replace(variant, points=MANILLE.points, trick_bonus=0)
    assert hash(twin) == hash(variant) and core_rules(variant) is not core_rules(twin)
    position = Position(variant, "S", (1 << 7, 1 << 6, 1 << 5, 1 << 4), 0)
    assert Solver(1 << 20).solve(position).value == 15
    assert Solver(1 << 20).solve(dataclasses.replace(position, profile=twin)).value == 14


def test_a_profile_hashes_by_its_name_and_keeps_its_key_through_a_pickle():
    """Profiles of one name share a hash but not their equality, and a profile read back from a
    pickle is the same cache key."""
    variant = dataclasses.replace(MANILLE, name="twin", points=(4, 4, 3, 2, 1, 0, 0, 0), trick_bonus=2)
    twin = dataclasses.replace(variant, trick_bonus=1)
    assert hash(variant) == hash(twin) and variant != twin
    restored = pickle.loads(pickle.dumps(MANILLE))
    assert restored == MANILLE and hash(restored) == hash(MANILLE) and core_rules(restored) is core_rules(MANILLE)


def test_a_game_s_core_flags_are_built_once_for_each_distinct_set():
    """A capot changes the flags only where it scores more than its points (Manille's, not Malilla's)."""
    assert core_rules(MALILLA) is core_rules(MALILLA, False) is core_rules(MALILLA, capot=True)
    assert core_rules(MANILLE, True) is core_rules(MANILLE, capot=True) is not core_rules(MANILLE)


def test_the_core_refuses_a_deal_worth_more_than_its_table_holds():
    """Its table keeps bounds in 8 bits: the Profile's own check is not the only guard."""
    from solver import _core
    with pytest.raises(ValueError, match="a deal of more than 126 points is not supported"):
        _core.Rules((0, 0, 0, 0, 7, 7, 7, 7, 7, 7), 0, 1, -1, False)
    assert dataclasses.replace(MALILLA, name="bonus-6", trick_bonus=6).total_points == 120   # the largest bonus it holds


def test_a_variant_keeps_its_rules_through_puzzles_tables_and_analyses():
    """Each reads its positions back from JSON, which names the game: the variant's own rules
    must come back, not an unknown-game error."""
    from solver.analysis import PlayedDeal, analyze
    from solver.deal import deal, random_play
    from solver.puzzles import generate
    from solver.table import dd_table, table_of

    variant = dataclasses.replace(MALILLA, name="malilla-no-bonus", trick_bonus=0)
    (puzzle,) = generate(variant, count=1, seed=1)
    assert puzzle.position.profile == variant
    start = Position.from_json(deal(variant, 1).to_position_json(), profile=variant)
    assert start.profile == variant and start.profile.total_points == 60
    cell = dd_table(start, Solver(1 << 22)).entry(start.trump, "W")
    solved = Solver(1 << 22).solve(dataclasses.replace(start, leader=3), mode="best").value
    assert (cell.total, cell.value) == (60, solved)
    assert table_of(start, Solver(1 << 22)).entry(start.trump, "W") == cell
    played = PlayedDeal(start, tuple(random_play(start, random.Random(1), 8)), dealer=0)
    analysis = analyze(played, Solver(1 << 22), single_dummy=2)
    assert analysis.cards[0].before == Solver(1 << 22).solve(start).value
    assert sum(analysis.result.dd_points) == 60


def test_a_profile_may_be_given_by_a_shipped_game_s_name():
    obj = {"game": "Manille", "trump": "H", "hands": {"N": "10S", "E": "AS", "S": "KS", "W": "7H"}, "leader": "N"}
    assert Position.from_json(obj, profile="manille") == Position.from_json(obj)
    with pytest.raises(ValueError, match="^profile: unknown game 'whist'"):
        Position.from_json(obj, profile="whist")


def test_a_variant_given_for_another_game_is_refused():
    variant = dataclasses.replace(MALILLA, name="malilla-no-bonus", trick_bonus=0)
    obj = {"game": "manille", "trump": "H", "hands": {"N": "10S", "E": "AS", "S": "KS", "W": "7H"}, "leader": "N"}
    with pytest.raises(PositionError) as err:
        Position.from_json(obj, profile=variant)
    assert (err.value.field, err.value.problem) == \
        ("game", "'manille' is not the game of the profile given (malilla-no-bonus)")
