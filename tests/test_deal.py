"""Dealing: hand sizes, packet order, trump, leader, dealer rotation, position JSON."""
from __future__ import annotations

import dataclasses
import json
import random

import pytest

from solver import cards
from solver import Position
from solver.cards import card_name, check_seat
from solver.cards import parse_trump, trump_choices
from solver.deal import Deal, deal, next_dealer, random_play
from solver.profiles import MALILLA, MANILLE

from conftest import load_vectors

PROFILES = [MALILLA, MANILLE]
N, E, S, W = range(4)


def shuffled(profile, seed):
    """The deck as `deal` shuffles it."""
    pack = cards.deck(profile)
    random.Random(seed).shuffle(pack)
    return pack


def hand(pack, indices):
    return tuple(sorted((pack[i] for i in indices), key=cards.sort_key))


class TestHandsPartitionTheDeck:
    @pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
    @pytest.mark.parametrize("seed", [0, 1, 7, 12345])
    @pytest.mark.parametrize("dealer", range(4))
    def test_sizes_and_partition(self, profile, seed, dealer):
        d = deal(profile, seed, dealer)
        assert [len(h) for h in d.hands] == [profile.cards_per_hand] * 4
        every = [c for h in d.hands for c in h]
        assert len(set(every)) == len(every)
        assert sorted(every) == sorted(cards.deck(profile))

    @pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
    def test_hands_sorted(self, profile):
        d = deal(profile, 3)
        for h in d.hands:
            assert list(h) == sorted(h, key=cards.sort_key)


class TestDeterminism:
    @pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
    def test_same_seed_same_deal(self, profile):
        assert deal(profile, 42, 2) == deal(profile, 42, 2)

    @pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
    def test_different_seeds_differ(self, profile):
        hands = {deal(profile, seed).hands for seed in range(20)}
        assert len(hands) == 20

    def test_named_trump_same_seed_same_deal(self):
        assert deal(MANILLE, 9).trump == deal(MANILLE, 9).trump

    @pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
    def test_a_game_is_named_or_given(self, profile):
        assert deal(profile.name.upper(), 42, 1) == deal(profile, 42, 1)

    def test_an_unknown_game_is_refused_by_name(self):
        with pytest.raises(ValueError, match="unknown game 'bridge'; expected one of malilla, manille"):
            deal("bridge", 1)


class TestPacketOrder:
    def test_manille_3_2_3_clockwise_from_dealers_left(self):
        pack = shuffled(MANILLE, 2024)
        d = deal(MANILLE, 2024, dealer=N, trump="H")
        # Round 1: 3 each E S W N, round 2: 2 each, round 3: 3 each.
        expected = {
            E: [0, 1, 2, 12, 13, 20, 21, 22],
            S: [3, 4, 5, 14, 15, 23, 24, 25],
            W: [6, 7, 8, 16, 17, 26, 27, 28],
            N: [9, 10, 11, 18, 19, 29, 30, 31],
        }
        for seat, indices in expected.items():
            assert d.hands[seat] == hand(pack, indices)

    def test_manille_order_follows_dealer(self):
        pack = shuffled(MANILLE, 5)
        d = deal(MANILLE, 5, dealer=W, trump="S")
        assert d.hands[N] == hand(pack, [0, 1, 2, 12, 13, 20, 21, 22])
        assert d.hands[W] == hand(pack, [9, 10, 11, 18, 19, 29, 30, 31])

    def test_malilla_one_by_one_counterclockwise_from_dealers_right(self):
        pack = shuffled(MALILLA, 77)
        d = deal(MALILLA, 77, dealer=N)
        # W S E N, one card each, ten rounds: the dealer's last card is the deck's last.
        for offset, seat in enumerate((W, S, E, N)):
            assert d.hands[seat] == hand(pack, range(offset, 40, 4))
        assert d.shown == pack[39]

    def test_malilla_order_follows_dealer(self):
        pack = shuffled(MALILLA, 8)
        d = deal(MALILLA, 8, dealer=E)
        for offset, seat in enumerate((N, W, S, E)):
            assert d.hands[seat] == hand(pack, range(offset, 40, 4))

    def test_uneven_packets_fill_hands_exactly(self):
        variant = dataclasses.replace(MANILLE, name="manille-threes", packets=(3,))  # 3 3 then 2 to make 8
        pack = shuffled(variant, 4)
        d = deal(variant, 4, dealer=N, trump="S")
        assert d.hands[E] == hand(pack, [0, 1, 2, 12, 13, 14, 24, 25])
        assert d.hands[N] == hand(pack, [9, 10, 11, 21, 22, 23, 30, 31])


class TestMalillaTrump:
    @pytest.mark.parametrize("seed", range(10))
    @pytest.mark.parametrize("dealer", range(4))
    def test_trump_is_suit_of_dealers_shown_card(self, seed, dealer):
        d = deal(MALILLA, seed, dealer)
        assert d.shown is not None
        assert d.shown in d.hands[dealer]
        assert d.trump == cards.SUITS[cards.card_suit(d.shown)]
        assert d.shown == shuffled(MALILLA, seed)[-1]

    def test_trump_argument_rejected(self):
        with pytest.raises(ValueError, match="fixes trump"):
            deal(MALILLA, 1, trump="S")

    def test_trumps_vary_with_seed(self):
        assert len({deal(MALILLA, seed).trump for seed in range(40)}) == 4


class TestNamedTrump:
    @pytest.mark.parametrize("trump", ["S", "h", "♦", "C", "NT", "nt"])
    def test_given_trump_used(self, trump):
        d = deal(MANILLE, 3, trump=trump)
        assert d.trump == parse_trump(trump, MANILLE)
        assert d.shown is None

    def test_given_trump_does_not_change_hands(self):
        assert deal(MANILLE, 3, trump="S").hands == deal(MANILLE, 3, trump="NT").hands

    def test_random_trump_drawn_after_shuffle_from_same_rng(self):
        for seed in range(20):
            rng = random.Random(seed)
            rng.shuffle(cards.deck(MANILLE))
            assert deal(MANILLE, seed).trump == rng.choice(("S", "H", "D", "C", "NT"))

    def test_random_trump_covers_every_choice(self):
        assert {deal(MANILLE, seed).trump for seed in range(60)} == {"S", "H", "D", "C", "NT"}

    def test_no_nt_when_profile_forbids_it(self):
        variant = dataclasses.replace(MANILLE, name="manille-trumps", no_trump_allowed=False)
        assert trump_choices(variant) == ("S", "H", "D", "C")
        assert "NT" not in {deal(variant, seed).trump for seed in range(60)}
        with pytest.raises(ValueError, match="no no-trump"):
            deal(variant, 1, trump="NT")


class TestLeaderAndDealer:
    @pytest.mark.parametrize("dealer, leader", [(N, W), (W, S), (S, E), (E, N)])
    def test_malilla_dealers_right_leads(self, dealer, leader):
        assert deal(MALILLA, 0, dealer).leader == leader

    @pytest.mark.parametrize("dealer, leader", [(N, E), (E, S), (S, W), (W, N)])
    def test_manille_dealers_left_leads(self, dealer, leader):
        assert deal(MANILLE, 0, dealer).leader == leader

    def test_malilla_deal_passes_right(self):
        seats = [N]
        for _ in range(4):
            seats.append(next_dealer(MALILLA, seats[-1]))
        assert seats == [N, W, S, E, N]

    def test_manille_deal_passes_left(self):
        seats = [N]
        for _ in range(4):
            seats.append(next_dealer(MANILLE, seats[-1]))
        assert seats == [N, E, S, W, N]

    @pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
    def test_next_dealer_leads_first(self, profile):
        # The next dealer is the first leader of this deal.
        for dealer in range(4):
            assert next_dealer(profile, dealer) == deal(profile, 0, dealer).leader


class TestPositionJson:
    def test_malilla(self):
        d = deal(MALILLA, 11, dealer=S)
        pos = d.to_position_json()
        assert pos["game"] == "malilla"
        assert pos["trump"] == d.trump
        assert pos["dealer"] == "S"
        assert pos["leader"] == pos["to_move"] == "E"
        assert pos["trick"] == [] and pos["led_suits"] == ""
        for seat, text in pos["hands"].items():
            assert tuple(sorted(cards.parse_cards(text, MALILLA), key=cards.sort_key)) == d.hands[cards.parse_seat(seat)]

    def test_manille_has_no_led_suits(self):
        pos = deal(MANILLE, 11, dealer=S, trump="NT").to_position_json()
        assert "led_suits" not in pos
        assert pos["trump"] == "NT" and pos["leader"] == "W" and pos["dealer"] == "S"
        assert set(pos["hands"]) == {"N", "E", "S", "W"}

    def test_deal_json_adds_the_shown_card(self):
        d = deal(MALILLA, 11, dealer=S)
        obj = d.to_deal_json()
        assert obj == {**d.to_position_json(), "shown": cards.card_name(d.shown, MALILLA)}
        assert obj["shown"][-1] == d.trump
        assert deal(MANILLE, 11, dealer=S).to_deal_json() == deal(MANILLE, 11, dealer=S).to_position_json()

    def test_is_json_serialisable(self):
        pos = deal(MANILLE, 1).to_position_json()
        assert json.loads(json.dumps(pos)) == pos

    @pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
    def test_same_keys_as_vectors(self, profile):
        vector = next(v for v in load_vectors("full") if v["game"] == profile.name)
        ours = deal(profile, 0).to_position_json()
        assert set(ours) - {"dealer"} == set(vector) - {"values"}


class TestRandomPlay:
    @pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
    def test_legal_to_the_end_and_repeatable(self, profile):
        start = Position.from_json(deal(profile, 5).to_deal_json())
        play = random_play(start, random.Random(1))
        assert play == random_play(start, random.Random(1))
        assert len(play) == 4 * profile.tricks
        position = start
        for card in play:
            assert card in position.legal_moves()
            position = position.play(card)
        assert position.is_over

    def test_the_first_cards_only(self):
        start = Position.from_json(deal(MANILLE, 5).to_deal_json())
        assert random_play(start, random.Random(1), cards=6) == random_play(start, random.Random(1))[:6]


class TestBadInputs:
    @pytest.mark.parametrize("dealer", [4, -1, "N", 1.0, True, None])
    def test_bad_dealer(self, dealer):
        with pytest.raises(ValueError, match=r"^dealer: .* is not a seat index \(N=0 E=1 S=2 W=3\)$"):
            deal(MANILLE, 0, dealer)

    @pytest.mark.parametrize("dealer", [4, -1, "E"])
    def test_bad_dealer_in_next_dealer(self, dealer):
        with pytest.raises(ValueError, match=r"^dealer: .* is not a seat index"):
            next_dealer(MALILLA, dealer)

    @pytest.mark.parametrize("seed", [None, "x", 1.5, True])
    def test_bad_seed(self, seed):
        with pytest.raises(ValueError, match=r"^seed: .* is not a whole number$"):
            deal(MANILLE, seed)

    @pytest.mark.parametrize("trump", ["X", "", "SH", 3, ["S"]])
    def test_bad_trump(self, trump):
        with pytest.raises(ValueError, match=r"^trump: .* is not a trump \(S H D C or NT\)$"):
            deal(MANILLE, 0, trump=trump)

    def test_nt_rejected_by_parse_trump_for_malilla(self):
        with pytest.raises(cards.CardError, match=r"^malilla has no no-trump deals \(S H D C\)$"):
            parse_trump("NT", MALILLA)
        with pytest.raises(cards.CardError, match=r"^'X' is not a trump \(S H D C or NT\)$"):
            parse_trump("X", MANILLE)
        assert (parse_trump("nt", MANILLE), parse_trump("h", MALILLA)) == ("NT", "H")

    def test_check_seat_accepts_seats(self):
        assert [check_seat(s) for s in range(4)] == [0, 1, 2, 3]

    @pytest.mark.parametrize("card", [10, 15, -1, 64])
    def test_a_number_that_is_no_card_has_no_name(self, card):
        with pytest.raises(ValueError, match=f"{card} is not a card number of the malilla deck"):
            card_name(card, MALILLA)

    def test_profile_that_cannot_deal(self):
        """Refused as it is made (tests/test_profiles.py), before any deal."""
        with pytest.raises(ValueError, match="cards_per_hand: 7, but four hands share the 32 cards"):
            dataclasses.replace(MANILLE, cards_per_hand=7)
        with pytest.raises(ValueError, match=r"packets\[0\]: 0 must be at least 1"):
            dataclasses.replace(MANILLE, packets=(0,))


class TestDealIsFrozen:
    def test_cannot_modify(self):
        d = deal(MALILLA, 0)
        assert isinstance(d, Deal)
        with pytest.raises(dataclasses.FrozenInstanceError):
            d.trump = "H"


@pytest.mark.parametrize("game", ["malilla", "manille"])
def test_a_negative_seed_deals_its_own_deal(game):
    """random.Random would take its absolute value: -3 would deal seed 3's cards."""
    assert deal(game, -3).hands != deal(game, 3).hands
    assert deal(game, -3) == deal(game, -3)
