"""`Position`: notation, the position JSON, play, history, rule messages and bad input."""
from __future__ import annotations

import concurrent.futures
import copy
import json
import multiprocessing
import pickle
import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference as ref
from conftest import load_vectors, played_deal
from solver import MANILLE, IllegalPlay, Position, PositionError, _core, get_profile
from solver.cards import CardError, card_name, card_names, is_card, parse_card
from solver.deal import random_play
from solver.rules import core_rules, trump_index
from solver.solve import Solver


def malilla(hands, leader="N", trick=(), led_suits=None, trump="H", **extra):
    obj = {"game": "malilla", "trump": trump, "hands": dict(hands), "leader": leader, "trick": list(trick)}
    if led_suits is not None:
        obj["led_suits"] = led_suits
    obj.update(extra)
    return obj


def manille(hands, leader="N", trick=(), trump="S", **extra):
    obj = {"game": "manille", "trump": trump, "hands": dict(hands), "leader": leader, "trick": list(trick)}
    obj.update(extra)
    return obj


def field_of(obj, **kwargs) -> str:
    with pytest.raises(PositionError) as err:
        Position.from_json(obj, **kwargs)
    assert isinstance(err.value, ValueError)
    return err.value.field


def parseable_vectors():
    """Every vector line that strict parsing accepts (a few Manille lines have unexplained sizes)."""
    out = []
    for name in ("legal", "rules", "endgames3", "endgames6", "full"):
        for obj in load_vectors(name):
            try:
                Position.from_json(obj)
            except PositionError:
                continue
            out.append(obj)
    return out


# ---------------------------------------------------------------- notation

class TestNotation:
    BASE = {"N": "AH 2D", "W": "KC 5C", "S": "2S 4H", "E": "7D QC"}

    def test_case_insensitive(self):
        lower = malilla({k: v.lower() for k, v in self.BASE.items()}, trump="d", leader="n")
        upper = malilla(self.BASE, trump="D")
        assert Position.from_json(lower) == Position.from_json(upper)
        assert Position.from_json(lower).hand("N") == ["AH", "2D"]

    def test_suit_symbols(self):
        symbols = {"N": "A♥ 2♦", "W": "K♣ 5♣", "S": "2♠ 4♥", "E": "7♦ Q♣"}
        pos = Position.from_json(malilla(symbols, trump="♦"))
        assert pos == Position.from_json(malilla(self.BASE, trump="D"))
        assert pos.to_json()["hands"]["E"] == "7D QC"

    def test_symbols_in_trick_and_play(self):
        pos = Position.from_json(malilla(self.BASE, leader="N", trump="D"))
        assert pos.play("a♥") == pos.play("AH")
        assert pos.play("a♥").to_json()["trick"] == ["AH"]

    def test_ten_only_in_manille(self):
        pos = Position.from_json(manille({"N": "10S", "E": "10h", "S": "10♦", "W": "10C"}))
        assert pos.hand("S") == ["10D"]
        assert pos.legal_moves() == ["10S"]
        assert field_of(malilla({"N": "10S", "W": "2C", "S": "3C", "E": "4C"})) == "hands.N"

    @pytest.mark.parametrize("rank", ["2", "3", "4", "5", "6"])
    def test_two_to_six_only_in_malilla(self, rank):
        pos = Position.from_json(malilla({"N": rank + "S", "W": "KC", "S": "QC", "E": "JC"}))
        assert pos.legal_moves() == [rank + "S"]
        assert field_of(manille({"N": "7S", "E": rank + "S", "S": "8S", "W": "9S"})) == "hands.E"

    @pytest.mark.parametrize("text", ["1S", "XS", "7X", "S", "7", "", "11H", "AHH", "7 S", "T♠"])
    def test_unreadable_cards(self, text):
        hands = {"N": [text], "W": ["KC"], "S": ["QC"], "E": ["JC"]}
        assert field_of(malilla(hands), strict=False) == "hands.N"

    @pytest.mark.parametrize("text", ["ßH", "ıH"])
    def test_a_rank_that_upper_case_spells_in_ascii_is_no_rank(self, text):
        """"ß" is "SS" in upper case and "ı" is "I": both are rank names of this variant, not of its cards."""
        variant = replace(get_profile("malilla"), name="ascii", ranks=("7", "A", "K", "Q", "J", "SS", "I", "4", "3", "2"))
        assert parse_card("ssH", variant) == parse_card("SSH", variant)
        with pytest.raises(CardError, match="is not a card"):
            parse_card(text, variant)

    @pytest.mark.parametrize("text", ["KS,AH,2D", "KSAH2D"])
    def test_cards_run_together_are_told_apart_from_a_wrong_rank(self, text):
        with pytest.raises(PositionError) as err:
            Position.from_json(malilla({"N": text, "W": "KC 5C", "S": "2S 4H", "E": "7D QC"}))
        assert err.value.field == "hands.N"
        assert err.value.problem == f"'{text}' is not a card (rank then suit, like 7S; cards are separated by spaces)"

    def test_a_played_deal_is_not_taken_for_its_start(self):
        """Its `play` would be ignored, and the start of the deal solved instead of the position after it."""
        obj = played_deal("malilla", 3, 6)
        with pytest.raises(PositionError) as err:
            Position.from_json(obj)
        assert err.value.field == "play"
        assert err.value.problem == ("a position does not take the cards played: give the position after them "
                                     "(with its `history`), or analyze the played deal")

    def test_hands_as_lists(self):
        listed = malilla({k: v.split() for k, v in self.BASE.items()}, trump="D")
        assert Position.from_json(listed) == Position.from_json(malilla(self.BASE, trump="D"))

    @pytest.mark.parametrize("game", ["malilla", "manille"])
    def test_the_table_of_card_names_is_card_name(self, game):
        profile = get_profile(game)
        names = card_names(profile)
        assert len(names) == 64 and sum(1 for n in names if n) == 4 * len(profile.ranks)
        for c in range(64):
            assert names[c] == (card_name(c, profile) if is_card(c, profile) else "")


# ---------------------------------------------------------------- JSON round trip

class TestJsonRoundTrip:
    def test_vectors_round_trip(self):
        vectors = parseable_vectors()
        assert len(vectors) > 900
        for obj in vectors:
            pos = Position.from_json(obj)
            out = pos.to_json()
            assert Position.from_json(out) == pos
            assert Position.from_json(json.dumps(out)) == pos
            for seat in "NESW":
                assert sorted(out["hands"][seat].split()) == sorted(obj["hands"][seat].split())
            assert out["game"] == obj["game"] and out["trump"] == obj["trump"]
            assert out["leader"] == obj["leader"] and out["trick"] == obj["trick"]
            assert out["to_move"] == obj["to_move"]
            if obj["game"] == "malilla":
                assert set(out["led_suits"]) == set(obj["led_suits"])
            else:
                assert "led_suits" not in out

    def test_text_and_bytes_and_dict_agree(self):
        obj = load_vectors("endgames6")[0]
        text = json.dumps(obj)
        assert Position.from_json(text) == Position.from_json(text.encode()) == Position.from_json(obj)


# ---------------------------------------------------------------- play

class TestPlay:
    def two_tricks(self):
        # spades trump; N leads AH, W follows KH, S (partner winning) trumps 2S, E follows 7H
        return Position.from_json(malilla({"N": "AH 3C", "W": "KH 4C", "S": "2S 5C", "E": "7H 6C"},
                                          leader="N", trump="S", led_suits=""))

    def test_play_returns_a_new_position(self):
        pos = self.two_tricks()
        before = pos.to_json()
        after = pos.play("AH")
        assert pos.to_json() == before
        assert after is not pos
        assert after.to_json()["trick"] == ["AH"]
        assert after.hand("N") == ["3C"]
        assert after.to_json()["to_move"] == "W"       # Malilla goes N W S E
        assert after.to_json()["led_suits"] == "H"

    def test_completed_trick_winner_leads(self):
        pos = self.two_tricks()
        for card in ["AH", "KH", "2S", "7H"]:
            pos = pos.play(card)
        out = pos.to_json()
        assert out["trick"] == [] and out["leader"] == "S" and out["to_move"] == "S"
        assert [pos.hand(s) for s in "NWSE"] == [["3C"], ["4C"], ["5C"], ["6C"]]
        for card in ["5C", "6C", "3C", "4C"]:               # S E N W; 6C wins for E
            pos = pos.play(card)
        assert pos.is_over
        assert pos.to_json()["leader"] == "E"
        with pytest.raises(IllegalPlay) as err:
            pos.play("7S")
        assert (err.value.field, err.value.problem) == ("card", "the deal is over: 7S cannot be played")

    def test_manille_goes_clockwise_and_ten_wins(self):
        pos = Position.from_json(manille({"N": "9S", "E": "10S", "S": "7S", "W": "AS"}, trump="NT"))
        pos = pos.play("9S")
        assert pos.to_json()["to_move"] == "E"
        for card in ["10S", "7S", "AS"]:
            pos = pos.play(card)
        assert pos.is_over and pos.to_json()["leader"] == "E"

    @pytest.mark.parametrize("seat", [-1, 4, 7, True, 1.0])
    def test_hand_of_something_that_is_no_seat(self, seat):
        with pytest.raises(ValueError, match=r"^seat: .* is not a seat index"):
            self.two_tricks().hand(seat)
        with pytest.raises(PositionError, match=r"^seat: 'X' is not a seat \(N E S W\)$"):
            self.two_tricks().hand("X")

    def test_play_of_a_card_not_held(self):
        pos = self.two_tricks()
        with pytest.raises(IllegalPlay) as err:
            pos.play("KH")
        assert "KH" in str(err.value) and "N" in str(err.value)
        with pytest.raises(IllegalPlay) as err:
            pos.play("10H")                                   # not a Malilla card
        assert err.value.field == "card"

    def test_play_of_a_card_another_seat_holds_names_the_seat_to_move(self):
        """N leads, and the rules never get to ask about KH: N does not hold it (W does)."""
        with pytest.raises(IllegalPlay) as err:
            self.two_tricks().play("KH")
        assert (err.value.field, err.value.problem) == ("card", "N does not hold KH")

    @pytest.mark.parametrize("card", [None, -1, 10, 64, 999, True, 2.0])
    def test_play_of_something_that_is_no_card(self, card):
        """Cards are names or the deck's own indices (0-9 in a suit of Malilla's 16 slots)."""
        with pytest.raises(IllegalPlay) as err:
            self.two_tricks().play(card)
        assert (err.value.field, err.value.problem) == ("card", f"{card!r} is not a card of the malilla deck")


# ---------------------------------------------------------------- history

def random_deal(game: ref.Game, seed: int, tricks: int, extra: int):
    """A deal from its start: `tricks` completed tricks and `extra` cards of the next, played at random
    by the reference rules. Returns (state, history, reference points and tricks of N-S and E-W)."""
    rng = random.Random(seed)
    pack = game.deck()
    rng.shuffle(pack)
    n = game.cards_per_hand
    hands = tuple(frozenset(pack[i * n:(i + 1) * n]) for i in range(4))
    trumps = list(ref.SUITS) + ([ref.NO_TRUMP] if game.no_trump else [])
    state = ref.State(game, rng.choice(trumps), hands, rng.choice("NESW"))
    history, points, won = [], [0, 0], [0, 0]
    for _ in range(tricks * 4 + extra):
        card = rng.choice(ref.legal(state))
        before = state
        state, ns = ref.play(state, card)
        if not state.trick:
            trick = before.trick + (card,)
            history.append(list(trick))
            winner = ref.team(state.leader)
            points[winner] += sum(game.card_points(c) for c in trick) + game.trick_bonus
            won[winner] += 1
    return state, history, tuple(points), tuple(won)


def with_history(state: ref.State, history, led=True):
    obj = state.to_json()
    obj["history"] = history
    if not led:
        obj.pop("led_suits", None)
    return obj


class TestHistory:
    @pytest.mark.parametrize("game", [ref.MALILLA, ref.MANILLE], ids=lambda g: g.name)
    @pytest.mark.parametrize("seed", range(12))
    def test_points_tricks_and_led_suits_are_derived(self, game, seed):
        tricks = 1 + seed % (game.cards_per_hand - 1)
        state, history, points, won = random_deal(game, seed, tricks, seed % 4)
        pos = Position.from_json(with_history(state, history, led=False))
        assert pos.points_won() == points
        assert pos.tricks_won() == won
        out = pos.to_json()
        assert out["history"] == history
        if game.seven_protection:
            assert set(out["led_suits"]) == set(state.led)
            assert Position.from_json(with_history(state, history)) == pos
        assert Position.from_json(out) == pos
        assert pos.legal_moves() == ref.legal(state)

    def test_playing_on_extends_the_history(self):
        state, history, points, won = random_deal(ref.MALILLA, 5, 3, 0)
        pos = Position.from_json(with_history(state, history))
        for _ in range(4):
            card = ref.legal(state)[0]
            state, _ = ref.play(state, card)
            pos = pos.play(card)
        assert len(pos.to_json()["history"]) == 4
        assert sum(pos.points_won()) == sum(points) + sum(
            ref.MALILLA.card_points(c) for c in pos.to_json()["history"][3]) + 1
        assert sum(pos.tricks_won()) == 4

    @pytest.mark.parametrize("game", [ref.MALILLA, ref.MANILLE], ids=lambda g: g.name)
    @pytest.mark.parametrize("seed", range(4))
    def test_a_history_without_its_first_leader_is_scored(self, game, seed):
        """A position built with its history but not the first leader finds it from the tricks' winners."""
        state, history, points, won = random_deal(game, seed, 2 + seed, seed % 4)
        pos = Position.from_json(with_history(state, history))
        bare = Position(pos.profile, pos.trump, pos.hands, pos.leader, pos.trick, pos.led, pos.history)
        assert bare.first_leader is None and bare == pos
        assert bare.points_won() == points and bare.tricks_won() == won
        assert bare.won_flags == pos.won_flags

    def test_no_history_means_unknown_points(self):
        obj = load_vectors("endgames3")[0]
        assert Position.from_json(obj).points_won() is None
        assert Position.from_json(obj).tricks_won() is None

    def test_start_of_deal_has_an_empty_history(self):
        pos = Position.from_json(load_vectors("full")[0])
        assert pos.points_won() == (0, 0) and pos.tricks_won() == (0, 0)

    def test_led_suits_contradicting_the_history(self):
        state, history, _, _ = random_deal(ref.MALILLA, 3, 3, 1)
        obj = with_history(state, history)
        wrong = "".join(s for s in ref.SUITS if s not in state.led) or "S"
        lead = state.trick[0][-1]
        obj["led_suits"] = "".join(sorted(set(wrong) | {lead}))
        assert field_of(obj) == "led_suits"

    def test_manille_ignores_led_suits(self):
        """No Manille rule reads the suits led: any record spelled as suits is accepted and dropped."""
        state, history, _, _ = random_deal(ref.MANILLE, 3, 3, 1)
        obj = with_history(state, history)
        plain = Position.from_json(obj)
        obj["led_suits"] = "SHDC"
        odd = Position.from_json(obj)
        assert odd == plain and odd.led == 0
        assert "led_suits" not in odd.to_json()
        obj["led_suits"] = "SXC"
        assert field_of(obj) == "led_suits"

    def test_history_must_start_at_the_first_trick(self):
        state, history, _, _ = random_deal(ref.MANILLE, 4, 3, 0)
        assert field_of(with_history(state, history[1:])) == "history"

    @pytest.mark.parametrize("game", [ref.MALILLA, ref.MANILLE], ids=lambda g: g.name)
    @pytest.mark.parametrize("seed", range(8))
    def test_illegal_card_in_history_is_named(self, game, seed):
        """Swap a history card with an illegal card the same player still holds; the error names the
        first play that the reference rules reject."""
        state, history, _, _ = random_deal(game, 100 + seed, 4, 0)
        found = self._illegal_swap(game, state, history)
        assert found is not None, "no illegal swap in this deal; pick another seed"
        obj, where = found
        with pytest.raises(IllegalPlay) as err:
            Position.from_json(obj)
        assert err.value.field == where
        assert str(err.value).startswith(where + ":")

    @settings(max_examples=150, deadline=None)
    @given(st.sampled_from(["malilla", "manille"]), st.integers(0, 10**6), st.integers(0, 6), st.integers(0, 40),
           st.lists(st.tuples(st.integers(0, 39), st.integers(0, 63)), max_size=3))
    def test_the_core_replays_recorded_play_as_the_plays_one_by_one(self, game, seed, tricks, length, changes):
        """`_core.replay`, the fast check of a history or a trick in progress, from a trick
        boundary `tricks` into the deal (with the suits led by then), stops at the first card that
        `Position.play` refuses (or that is no card), on legal play with a few cards changed."""
        deal_start = Position.from_json({k: v for k, v in played_deal(game, seed, 0).items() if k != "play"})
        line = random_play(deal_start, random.Random(seed), 4 * tricks + length)
        start = deal_start
        for card in line[:4 * tricks]:
            start = start.play(card)
        cards = [parse_card(card, start.profile) for card in line[4 * tricks:]]
        for place, card in changes:
            if place < len(cards):
                cards[place] = card
        expected = len(cards)
        position = start
        for k, card in enumerate(cards):
            try:
                position = position.play(card)
            except IllegalPlay:
                expected = k
                break
        assert _core.replay(core_rules(start.profile), start.hands, trump_index(start.trump), start.leader,
                            start.led, tuple(cards)) == expected

    @staticmethod
    def _illegal_swap(game, state, history):
        """(position JSON, "history[i][j]") for a history where one card is swapped with an illegal
        card its player still holds, or None. The winners do not change, so neither do the leaders
        nor the hands dealt; the reference finds the first play it rejects."""
        trump = state.trump

        def winner(t):
            return ref.winner_index(game, trump, tuple(t))

        first = None
        for cand in "NESW":                      # the first leader that leads to today's leader
            lead = cand
            for t in history:
                lead = game.next_seat(lead, winner(t))
            if lead == state.leader:
                first = cand
        leaders = [first]
        for t in history:
            leaders.append(game.next_seat(leaders[-1], winner(t)))
        dealt = {s: set(state.hand(s)) for s in "NESW"}
        for lead, t in zip(leaders, history):
            for j, c in enumerate(t):
                dealt[game.next_seat(lead, j)].add(c)

        def first_rejected(hist):
            s = ref.State(game, trump, tuple(frozenset(dealt[x]) for x in "NESW"), first)
            for i, t in enumerate(hist):
                for j, c in enumerate(t):
                    if c not in ref.legal(s):
                        return f"history[{i}][{j}]"
                    s, _ = ref.play(s, c)
            return None

        assert first_rejected(history) is None
        for i, t in enumerate(history):
            for j, c in enumerate(t):
                seat = game.next_seat(leaders[i], j)
                for other in sorted(state.hand(seat)):
                    new_t = list(t)
                    new_t[j] = other
                    if winner(new_t) != winner(t):
                        continue
                    hist = [list(x) for x in history]
                    hist[i] = new_t
                    where = first_rejected(hist)
                    if where is None:
                        continue
                    obj = state.to_json()
                    obj["hands"][seat] = " ".join(sorted((set(state.hand(seat)) - {other}) | {c}))
                    obj["history"] = hist
                    obj.pop("led_suits", None)
                    return obj, where
        return None


# ---------------------------------------------------------------- rule messages

def illegal(obj, card) -> IllegalPlay:
    pos = Position.from_json(obj)
    with pytest.raises(IllegalPlay) as err:
        pos.play(card)
    assert err.value.field == "card"
    assert card in str(err.value)
    return err.value


class TestIllegalPlayMessages:
    def test_must_beat(self):
        # a rival (N) leads QC; W holds KC, 7C and 2C
        obj = malilla({"N": "AS 2D", "W": "KC 7C 2C", "S": "3S 4D 5H", "E": "6S 3D 4H"},
                      leader="N", trick=["QC"], led_suits="C")
        assert Position.from_json(obj).legal_moves() == ["7C", "KC"]
        msg = str(illegal(obj, "2C"))
        assert "must beat QC with" in msg and "KC" in msg and "7C" in msg
        assert "W may not play 2C" in msg

    def test_must_follow(self):
        # N leads KC, W follows 2C; S, whose partner is winning, holds a club
        obj = malilla({"N": "AS 2D", "W": "4S 5D", "S": "3C AD 4D", "E": "6S 3D 4H"},
                      leader="N", trick=["KC", "2C"], led_suits="C")
        assert Position.from_json(obj).legal_moves() == ["3C"]
        msg = str(illegal(obj, "AD"))
        assert "must follow clubs with 3C" in msg

    def test_must_trump(self):
        # hearts trump; a rival leads QC; W has no club and one trump
        obj = malilla({"N": "AS 2D", "W": "2H AD 4S", "S": "3S 5D 5H", "E": "6S 3D 4H"},
                      leader="N", trick=["QC"], led_suits="C")
        assert Position.from_json(obj).legal_moves() == ["2H"]
        msg = str(illegal(obj, "AD"))
        assert "must trump with 2H" in msg

    def test_must_overtrump(self):
        # N leads QC, W trumps with 3H; S has no club and holds AH
        obj = malilla({"N": "AS 2D", "W": "5S 5D", "S": "AH 4S 3D", "E": "6S 6D 4H"},
                      leader="N", trick=["QC", "3H"], led_suits="C")
        assert Position.from_json(obj).legal_moves() == ["AH"]
        msg = str(illegal(obj, "4S"))
        assert "must overtrump 3H with AH" in msg

    def test_malilla_has_no_undertrump_ban(self):
        obj = malilla({"N": "AS 2D", "W": "5S 5D", "S": "2H 4S 3D", "E": "6S 6D 4H"},
                      leader="N", trick=["QC", "3H"], led_suits="C")
        assert Position.from_json(obj).legal_moves() == ["2H", "3D", "4S"]

    def test_undertrump_ban_against_a_rival(self):
        # Manille, spades trump: N leads AH, E trumps KS; S has no heart, a lower trump and others
        obj = manille({"N": "9S 9D", "E": "8C 7D", "S": "7S 8D JC", "W": "AC QC JD"},
                      leader="N", trick=["AH", "KS"])
        assert Position.from_json(obj).legal_moves() == ["8D", "JC"]
        msg = str(illegal(obj, "7S"))
        assert "may not undertrump KS" in msg and "8D" in msg and "JC" in msg

    def test_undertrump_ban_when_the_partner_trumped(self):
        # E leads AH, S trumps KS, W discards 9D; N (S's partner) has no heart
        obj = manille({"N": "7S 8D 9C", "E": "7H 8H", "S": "10D QD", "W": "JD 10C"},
                      leader="E", trick=["AH", "KS", "9D"])
        assert Position.from_json(obj).legal_moves() == ["8D", "9C"]
        msg = str(illegal(obj, "7S"))
        assert "may not undertrump KS" in msg
        # holding only trumps, some above and some below the partner's: must overtrump the partner
        obj["hands"]["N"] = "AS 7S 8S"
        assert Position.from_json(obj).legal_moves() == ["AS"]
        # holding only lower trumps: any of them
        obj["hands"]["N"] = "QS 7S 8S"
        assert Position.from_json(obj).legal_moves() == ["7S", "8S", "QS"]

    def test_protected_seven(self):
        # hearts trump; N leads KC; W has no club and no trump, and the 7 of unled diamonds
        obj = malilla({"N": "AS 2D", "W": "7D 3S 4S", "S": "3D 4D 5D", "E": "6S 6D 4H"},
                      leader="N", trick=["KC"], led_suits="C")
        assert Position.from_json(obj).legal_moves() == ["3S", "4S"]
        msg = str(illegal(obj, "7D"))
        assert "may not discard the seven" in msg and "3S" in msg
        # once diamonds have been led, the seven may go
        obj["led_suits"] = "CD"
        assert Position.from_json(obj).legal_moves() == ["3S", "4S", "7D"]

    def test_protection_lifts_when_only_sevens_are_left(self):
        obj = malilla({"N": "AS", "W": "7D 7S", "S": "3D 4D", "E": "6S 6D"},
                      leader="N", trick=["KC"], led_suits="C")
        assert Position.from_json(obj).legal_moves() == ["7D", "7S"]

    def test_leading_a_seven_is_allowed(self):
        obj = malilla({"N": "7D 3S", "W": "2C 3C", "S": "4D 5D", "E": "6S 6D"}, leader="N", led_suits="")
        assert Position.from_json(obj).legal_moves() == ["3S", "7D"]

    def test_illegal_card_in_the_trick(self):
        obj = malilla({"N": "AS 2D 5C", "W": "KH 7H 3C", "S": "3S 4D 5D 6C", "E": "6S 6D 4C 2C"},
                      leader="N", trick=["QH", "2H"], led_suits="H", trump="S")
        with pytest.raises(IllegalPlay) as err:
            Position.from_json(obj)
        assert err.value.field == "trick[1]"
        assert "W may not play 2H: must beat QH with" in str(err.value)
        assert "KH" in str(err.value) and "7H" in str(err.value)


# ---------------------------------------------------------------- malformed positions

GOOD = {"game": "malilla", "trump": "D",
        "hands": {"N": "KS AH 2D", "W": "KC 5C", "S": "2S 4H", "E": "7D QC"},
        "leader": "W", "trick": ["JS", "6S", "4D"], "led_suits": "SHC", "to_move": "N"}


HUGE = "Q" * 20000


def bad(**changes):
    obj = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if key == "hands" and isinstance(value, dict):
            obj["hands"].update(value)
        elif value is KeyError:
            obj.pop(key)
        else:
            obj[key] = value
    return obj


class TestMalformedPositions:
    def test_the_base_is_good(self):
        # E trumped W's JS; N holds KS and must follow spades
        assert Position.from_json(GOOD).legal_moves() == ["KS"]

    def test_position_error_is_a_value_error(self):
        assert issubclass(PositionError, ValueError) and issubclass(IllegalPlay, PositionError)

    @pytest.mark.parametrize("obj, field", [
        pytest.param(bad(hands={"N": "KS AH ZD"}), "hands.N", id="unknown-card"),
        pytest.param(bad(hands={"N": "KS AH AH"}), "hands.N", id="twice-in-one-hand"),
        pytest.param(bad(hands={"E": "7D KS"}), "hands.E", id="twice-across-hands"),
        pytest.param(bad(hands={"N": "KS AH JS"}), "trick[0]", id="in-hand-and-trick"),
        pytest.param(bad(hands={"N": "KS AH 10D"}), "hands.N", id="ten-in-malilla"),
        pytest.param(bad(trick=["JS", "6S", "10D"]), "trick[2]", id="ten-in-malilla-trick"),
        pytest.param(bad(hands={"N": "KS AH"}), "hands", id="sizes-unexplained"),
        pytest.param(bad(hands={"E": "7D"}), "hands", id="sizes-unexplained-2"),
        pytest.param(bad(hands={"N": "KS AH 2D 3D 4D 5D 6D 2C 3C 4C 5C"}), "hands.N", id="eleven-cards"),
        pytest.param(bad(trick=["JS", "6S", "4D", "3D"]), "trick", id="trick-of-four"),
        pytest.param(bad(led_suits="HC"), "led_suits", id="led-misses-trick-lead"),
        pytest.param(bad(led_suits="SXC"), "led_suits", id="led-bad-suit"),
        pytest.param(bad(led_suits="SSC"), "led_suits", id="led-twice"),
        pytest.param(bad(led_suits=7), "led_suits", id="led-not-a-string"),
        pytest.param(bad(trump="NT"), "trump", id="nt-in-malilla"),
        pytest.param(bad(trump="X"), "trump", id="bad-trump"),
        pytest.param(bad(trump=KeyError), "trump", id="missing-trump"),
        pytest.param(bad(to_move="E"), "to_move", id="to-move-contradicts-trick"),
        pytest.param(bad(to_move="Q"), "to_move", id="to-move-bad-seat"),
        pytest.param(bad(leader="X"), "leader", id="leader-bad-seat"),
        pytest.param(bad(leader=KeyError), "leader", id="leader-missing"),
        pytest.param(bad(leader=3), "leader", id="leader-not-a-string"),
        pytest.param(bad(hands={"X": "3C"}), "hands", id="hands-bad-seat"),
        pytest.param(bad(game="bridge"), "game", id="unknown-game"),
        pytest.param(bad(game=KeyError), "game", id="missing-game"),
        pytest.param(bad(hands=None), "hands", id="hands-null"),
        pytest.param(bad(trick="JS 6S 4D"), "trick", id="trick-not-a-list"),
        pytest.param(bad(trick=["JS", 6, "4D"]), "trick", id="trick-non-string-card"),
        pytest.param(bad(hands={"N": 5}), "hands.N", id="hand-not-cards"),
        pytest.param(bad(history="none"), "history", id="history-not-a-list"),
        pytest.param(bad(history=[["JS"]]), "history[0]", id="history-short-trick"),
    ])
    def test_field_is_named(self, obj, field):
        assert field_of(obj) == field

    @pytest.mark.parametrize("obj, field", [
        pytest.param(bad(game=HUGE), "game", id="game"),
        pytest.param(bad(trump=HUGE), "trump", id="trump"),
        pytest.param(bad(leader=HUGE), "leader", id="leader"),
        pytest.param(bad(to_move=HUGE), "to_move", id="to-move"),
        pytest.param(bad(hands={"N": HUGE}), "hands.N", id="hand"),
        pytest.param(bad(hands={HUGE: "3C"}), "hands", id="seat"),
        pytest.param(bad(trick=["JS", HUGE, "4D"]), "trick[1]", id="trick"),
    ])
    def test_a_huge_value_is_echoed_cut_short(self, obj, field):
        with pytest.raises(PositionError) as err:
            Position.from_json(obj)
        assert err.value.field == field
        assert f"... ({len(HUGE)} characters)" in err.value.problem and len(err.value.problem) < 120

    @pytest.mark.parametrize("trick", ["JS 6S 4D", ["JS", 6, "4D"], {"0": "JS"}])
    def test_a_trick_that_is_no_list_of_card_strings_is_named_so(self, trick):
        with pytest.raises(PositionError) as err:
            Position.from_json(bad(trick=trick))
        assert (err.value.field, err.value.problem) == ("trick", "expected a list of card strings")

    def test_missing_seat(self):
        obj = bad()
        del obj["hands"]["E"]
        assert field_of(obj) == "hands"
        assert "E" in str(pytest.raises(PositionError, Position.from_json, obj).value)

    def test_hands_not_an_object(self):
        obj = bad()
        obj["hands"] = ["KS AH 2D", "KC 5C"]
        assert field_of(obj) == "hands"

    def test_card_twice_message_names_both_places(self):
        with pytest.raises(PositionError) as err:
            Position.from_json(bad(hands={"E": "7D KS"}))
        assert "KS appears twice" in str(err.value) and "hands.N" in str(err.value)

    def test_manille_rejects_malilla_cards(self):
        obj = manille({"N": "2S", "E": "AS", "S": "KS", "W": "QS"})
        assert field_of(obj) == "hands.N"
        obj = manille({"N": "7S", "E": "AS", "S": "KS", "W": "QS"}, trick=["6H"], leader="W")
        assert field_of(obj, strict=False) == "trick[0]"

    def test_history_with_an_illegal_play(self):
        # Manille, spades trump, N leads the first trick.
        # Trick 0: N 7H, E 8H (must beat), S 9H (must beat), W JH: W wins, 1 point.
        # Trick 1: W AH, N QH, E KH, S 10H (must beat AH): S wins, 14 points.
        obj = {"game": "manille", "trump": "S", "leader": "S", "trick": [],
               "hands": {"N": "7S 8S 9S 10S AS KS", "E": "7C 8C 9C 10C AC KC",
                         "S": "QS JS QD QC JC 9D", "W": "JD 8D 7D 10D AD KD"},
               "history": [["7H", "8H", "9H", "JH"], ["AH", "QH", "KH", "10H"]]}
        pos = Position.from_json(obj)
        assert pos.tricks_won() == (1, 1)
        assert pos.points_won() == (14, 1)
        # E discards 7C on trick 1 although holding KH: history[1][2]
        wrong = json.loads(json.dumps(obj))
        wrong["history"][1][2] = "7C"
        wrong["hands"]["E"] = "KH 8C 9C 10C AC KC"
        with pytest.raises(IllegalPlay) as err:
            Position.from_json(wrong)
        assert err.value.field == "history[1][2]"
        assert "7C" in str(err.value) and "must follow hearts" in str(err.value)

    @pytest.mark.parametrize("text", ["{not json", "", "[1, 2", "{'game': 'malilla'}", b"\xff\xfe\x00"])
    def test_not_json(self, text):
        assert field_of(text) == "position"

    @pytest.mark.parametrize("text, problem", [
        ('{"game": "mal\udcffilla"}', "not UTF-8 text (byte 0xFF at character 13)"),
        (b'{"game": "mal\xffilla"}', "not UTF-8 text (byte 0xFF at character 13)"),
        ('{"game": "mal\ud800illa"}', "not UTF-8 text (lone surrogate U+D800 at character 13)"),
        ('{"game": "mal\\ud800illa"}', "a \\u escape spells a lone surrogate, which is not text"),
        ('{"game": "malilla", "x": "\\uDFFF"}', "a \\u escape spells a lone surrogate, which is not text"),
        ('{"game": "malilla", "trump": NaN}', "not valid JSON (NaN is not a JSON value)"),
        ('{"game": "malilla", "trump": -Infinity}', "not valid JSON (-Infinity is not a JSON value)"),
    ])
    def test_text_that_is_not_utf8_json(self, text, problem):
        """Undecodable bytes (read with `surrogateescape`), lone surrogates and NaN: none is JSON
        text, and each would fail later, where it is written out."""
        with pytest.raises(PositionError) as err:
            Position.from_json(text)
        assert (err.value.field, err.value.problem) == ("position", problem)

    @pytest.mark.parametrize("text, key", [
        ('{"game": "manille", "trump": "S", "leader": "N", '
         '"hands": {"N": "7S", "N": "AS", "E": "8S", "S": "9S", "W": "JS"}}', "N"),
        ('{"game": "manille", "trump": "S", "trump": "H", "leader": "N", '
         '"hands": {"N": "7S", "E": "8S", "S": "9S", "W": "JS"}}', "trump"),
    ])
    def test_a_key_given_twice_in_text_is_refused(self, text, key):
        """JSON text allows it, and a parser keeps one of the two: a card would vanish from the
        deal, or a trump be picked without a word."""
        with pytest.raises(PositionError) as err:
            Position.from_json(text)
        assert (err.value.field, err.value.problem) == ("position", f"the key {key!r} is given twice in one object")

    @pytest.mark.parametrize("game, change, field, problem", [
        ("malilla", {"leader": None}, "leader", "missing: the seat that leads the trick (N E S W)"),
        ("malilla", {"trump": None}, "trump", "missing (S H D C)"),
        ("manille", {"trump": None}, "trump", "missing (S H D C or NT)"),
        ("manille", {"trump": 5}, "trump", "5 is not a trump (S H D C or NT)"),
        ("manille", {"game": None}, "game", "missing (malilla or manille)"),
        ("manille", {"game": ["manille"]}, "game", "not a string (malilla or manille)"),
    ])
    def test_a_missing_field_is_called_missing(self, game, change, field, problem):
        obj = {k: v for k, v in played_deal(game, 1).items() if k != "play"}
        obj = {k: v for k, v in {**obj, **change}.items() if v is not None}
        with pytest.raises(PositionError) as err:
            Position.from_json(obj)
        assert (err.value.field, err.value.problem) == (field, problem)

    def test_one_card_is_counted_as_one_card(self):
        obj = {"game": "manille", "trump": "NT", "hands": {"N": "AS", "E": "KS", "S": "QS", "W": "JS"},
               "leader": "N", "trick": []}
        for change, problem in (({"history": []}, "N would have started the deal with 1 card, not 8: the history "
                                                  "must go back to the first trick"),
                                ({"history": [["7S"]]}, "1 card; a completed trick has 4")):
            with pytest.raises(PositionError) as err:
                Position.from_json({**obj, **change})
            assert err.value.problem == problem

    @pytest.mark.parametrize("change, field, problem", [
        ({"hands": {"N": "ZZ " * 11, "E": "", "S": "", "W": ""}}, "hands.N", "11 cards; a malilla hand holds at most 10"),
        ({"trick": ["ZZ"] * 10 ** 5}, "trick", "100000 cards; a trick in progress has at most 3"),
        ({"history": [["ZZ"] * 5]}, "history[0]", "5 cards; a completed trick has 4"),
        ({"history": [["ZZ"]] * 11}, "history", "11 tricks; a malilla deal has 10"),
        # a string is split no further than the deck's size
        ({"hands": {"N": "ZZ " * 10 ** 6, "E": "", "S": "", "W": ""}}, "hands.N",
         "more than 40 cards; the malilla deck has 40"),
        ({"history": ["ZZ " * 10 ** 6]}, "history[0]", "more than 40 cards; the malilla deck has 40"),
    ])
    def test_too_many_cards_are_refused_by_their_count_before_any_is_read(self, change, field, problem):
        """Not cards at all: read one by one, the first would be refused as no card."""
        obj = {**{k: v for k, v in played_deal("malilla", 1).items() if k != "play"}, **change}
        with pytest.raises(PositionError) as err:
            Position.from_json(obj)
        assert (err.value.field, err.value.problem) == (field, problem)

    def test_a_lenient_hand_may_not_hold_more_cards_than_the_deck(self):
        obj = {**{k: v for k, v in played_deal("manille", 1).items() if k != "play"},
               "hands": {"N": "ZZ " * 33, "E": "", "S": "", "W": ""}}
        with pytest.raises(PositionError) as err:
            Position.from_json(obj, strict=False)
        assert (err.value.field, err.value.problem) == ("hands.N", "more than 32 cards; the manille deck has 32")

    def test_a_lenient_hand_given_as_a_list_may_not_hold_more_cards_than_the_deck(self):
        """A list is refused by its count too, before any of its cards is read."""
        obj = {**{k: v for k, v in played_deal("manille", 1).items() if k != "play"},
               "hands": {"N": ["ZZ"] * 33, "E": "", "S": "", "W": ""}}
        with pytest.raises(PositionError) as err:
            Position.from_json(obj, strict=False)
        assert (err.value.field, err.value.problem) == ("hands.N", "33 cards; the manille deck has 32")

    def test_a_seat_given_twice_in_two_cases_is_refused(self):
        """``N`` and ``n`` name one seat: the second hand is not quietly taken over the first."""
        obj = {k: v for k, v in played_deal("manille", 1).items() if k != "play"}
        hands = {**obj["hands"], "n": obj["hands"]["N"]}
        with pytest.raises(PositionError) as err:
            Position.from_json({**obj, "hands": hands})
        assert (err.value.field, err.value.problem) == ("hands", "a seat is given twice")

    def test_a_surrogate_pair_escape_is_text(self):
        obj = {k: v for k, v in played_deal("malilla", 1).items() if k != "play"}
        text = json.dumps({**obj, "comment": "\U0001F0A1"})
        assert "\\ud83c" in text and Position.from_json(text).to_json() == Position.from_json(obj).to_json()

    def test_a_deeply_nested_value_is_echoed_cut_short(self):
        value = "N"
        for _ in range(5000):
            value = [value]
        obj = {k: v for k, v in played_deal("malilla", 1).items() if k != "play"}
        with pytest.raises(PositionError) as err:
            Position.from_json({**obj, "leader": value})
        assert err.value.field == "leader" and "[[[" in err.value.problem and len(err.value.problem) < 80

    @pytest.mark.parametrize("key, meant", [("led_suit", "led_suits"), ("Trump", "trump"), ("histroy", "history"),
                                            ("to-move", "to_move"), ("leadr", "leader"),
                                            ("pending_double", "pending_doubling"), ("pending_doubled", "pending_doubling"),
                                            ("lead", "leader"),
                                            ("led", "led_suits"), ("Hist", "history")])
    def test_a_misspelt_key_is_refused_with_the_key_it_resembles(self, key, meant):
        """Ignored, it would be a silent wrong answer (`led_suit` would lose the suits led)."""
        obj = {k: v for k, v in played_deal("malilla", 1).items() if k != "play"}
        obj[key] = obj.get(meant, "")
        with pytest.raises(PositionError) as err:
            Position.from_json(obj)
        assert str(err.value) == f"position: unknown key '{key}' (did you mean {meant}?)"

    def test_keys_unlike_any_of_the_format_are_left_alone(self):
        """Like the vectors' answers beside their positions (and a dict's keys that are not text)."""
        obj = {k: v for k, v in played_deal("malilla", 1).items() if k != "play"}
        extra = {**obj, "values": {}, "legal": [], "rule": "x", "id": 7, "comment": "deal 1", 5: 1}
        assert Position.from_json(extra).to_json() == Position.from_json(obj).to_json()
        long = {**obj, "x" * 10 ** 6: 1}   # far longer than any key it could be a misspelling of
        assert Position.from_json(long).to_json() == Position.from_json(obj).to_json()
        short = {**obj, "tr": 1}   # two letters begin trick and trump, but are too short to be one cut short
        assert Position.from_json(short).to_json() == Position.from_json(obj).to_json()

    @pytest.mark.parametrize("game, change, field, problem", [
        ("malilla", {"dealer": "Q"}, "dealer", "'Q' is not a seat"),
        ("malilla", {"shown": [1, {}]}, "shown", "expected a card string"),
        ("malilla", {"shown": "ZZ"}, "shown", "'ZZ' is not a card"),
        ("manille", {"shown": "7S"}, "shown", "manille has no dealer's bonus and no shown card"),
    ])
    def test_a_dealer_or_shown_card_that_is_none_is_refused(self, game, change, field, problem):
        """The search has no use for them, but they are of the format: passed over, a slip would go
        unseen until the deal is analysed."""
        obj = {**{k: v for k, v in played_deal(game, 1).items() if k not in ("play", "shown")}, **change}
        with pytest.raises(PositionError) as err:
            Position.from_json(obj)
        assert err.value.field == field and problem in err.value.problem
        other = {**obj, "dealer": "W", "shown": None}   # a seat, though not the seat before the leader
        assert Position.from_json(other) == Position.from_json({k: v for k, v in obj.items() if k not in change})

    @pytest.mark.parametrize("order", [("Trump", "lead", "histroy"), ("histroy", "Trump", "lead"),
                                       ("lead", "histroy", "Trump")])
    def test_of_several_misspelt_keys_the_first_in_the_line_is_named(self, order):
        """The same line always gets the same error, whatever the process's hash seed."""
        obj = {k: v for k, v in played_deal("malilla", 1).items() if k != "play"}
        text = json.dumps({**obj, **{key: 1 for key in order}})
        with pytest.raises(PositionError, match=f"unknown key '{order[0]}'"):
            Position.from_json(text)

    def test_an_object_of_too_many_keys_is_refused(self):
        """Each key outside the format is compared with the format's, so a line of thousands is
        refused by their count, before any is compared."""
        obj = {k: v for k, v in played_deal("malilla", 1).items() if k != "play"}
        many = {**obj, **{f"note{i}": 0 for i in range(256 - len(obj))}}
        assert Position.from_json(many) == Position.from_json(obj)
        with pytest.raises(PositionError, match="^position: 257 keys, more than the 256 an object may hold$"):
            Position.from_json({**many, "one more": 0})

    @pytest.mark.parametrize("game, value, problem", [
        ("manille", "yes", "expected true or false"),
        ("manille", 1, "expected true or false"),
        ("malilla", True, "malilla has no doubling after a tie"),
    ])
    def test_pending_doubling_is_checked(self, game, value, problem):
        obj = {k: v for k, v in played_deal(game, 1).items() if k != "play"}
        with pytest.raises(PositionError) as err:
            Position.from_json({**obj, "pending_doubling": value})
        assert (err.value.field, err.value.problem) == ("pending_doubling", problem)

    def test_pending_doubling_is_kept(self):
        obj = {k: v for k, v in played_deal("manille", 1).items() if k != "play"}
        doubled = Position.from_json({**obj, "pending_doubling": True})
        assert doubled.pending_doubling and doubled.to_json()["pending_doubling"] is True
        assert "pending_doubling" not in Position.from_json(obj).to_json()
        assert Position.from_json(doubled.to_json()) == doubled

    @pytest.mark.parametrize("encode", [lambda text: "\ufeff" + text, lambda text: ("\ufeff" + text).encode()])
    def test_a_byte_order_mark_is_dropped(self, encode):
        text = json.dumps({k: v for k, v in played_deal("malilla", 1).items() if k != "play"})
        assert Position.from_json(encode(text)).to_json() == Position.from_json(text).to_json()

    @pytest.mark.parametrize("text", ["[1, 2]", "3", "null", '"malilla"', "true"])
    def test_json_that_is_not_an_object(self, text):
        assert field_of(text) == "position"

    def test_every_hand_empty(self):
        obj = malilla({"N": "", "W": "", "S": "", "E": ""})
        assert field_of(obj, strict=False) == "hands"


# ---------------------------------------------------------------- fuzzing

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=15)
KEYS = ["game", "trump", "hands", "leader", "trick", "led_suits", "to_move", "history"]
CARDISH = st.sampled_from(["7S", "10D", "2c", "a♥", "K♣", "1S", "10", "S", "", "7S 8S", "JX", "Q♦", "9h",
                           "6D", "3♠", "AS", "KH", "ah"])


def vector_pool():
    return [obj for name in ("legal", "rules", "endgames3", "full") for obj in load_vectors(name)[:60]]


VECTOR_POOL = st.deferred(lambda: st.sampled_from(vector_pool()))


def must_be_position_or_error(obj, strict=True):
    """Parse `obj`: a Position or a PositionError, nothing else. An accepted position must answer
    legal_moves(), and its to_json() must read back to the same canonical JSON."""
    try:
        pos = Position.from_json(obj, strict=strict)
    except PositionError:
        return None
    assert isinstance(pos, Position)
    pos.legal_moves()
    out = pos.to_json()
    try:
        again = Position.from_json(out, strict=strict)
    except PositionError as e:
        raise AssertionError(f"accepted {obj!r} but not its own to_json {out!r}: {e}") from None
    assert again.to_json() == out
    return pos


@st.composite
def mutated_vectors(draw):
    obj = json.loads(json.dumps(draw(VECTOR_POOL)))   # a copy: the pool must not change
    for key in ("legal", "values", "rule"):
        obj.pop(key, None)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["drop", "replace", "swap", "add", "trick", "seat", "history"]))
        if kind == "drop":
            obj.pop(draw(st.sampled_from(KEYS)), None)
        elif kind == "replace":
            obj[draw(st.sampled_from(KEYS))] = draw(JSON)
        elif kind == "swap" and isinstance(obj.get("hands"), dict) and all(s in obj["hands"] for s in "NESW"):
            a, b = draw(st.sampled_from("NESW")), draw(st.sampled_from("NESW"))
            ha, hb = str(obj["hands"][a]).split(), str(obj["hands"][b]).split()
            if ha and hb:
                i, j = draw(st.integers(0, len(ha) - 1)), draw(st.integers(0, len(hb) - 1))
                ha[i], hb[j] = hb[j], ha[i]
                obj["hands"][a], obj["hands"][b] = " ".join(ha), " ".join(hb)
        elif kind == "add" and isinstance(obj.get("hands"), dict):
            seat = draw(st.sampled_from(["N", "E", "S", "W", "n", "x"]))
            obj["hands"][seat] = str(obj["hands"].get(seat, "")) + " " + draw(CARDISH)
        elif kind == "trick":
            obj["trick"] = draw(st.lists(CARDISH, max_size=5))
        elif kind == "seat":
            obj[draw(st.sampled_from(["leader", "to_move"]))] = draw(st.sampled_from("NESWnx") | st.text(max_size=2))
        elif kind == "history":
            obj["history"] = draw(st.lists(st.lists(CARDISH, max_size=5) | CARDISH, max_size=3))
    return obj


FUZZ = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


class TestFuzz:
    @settings(max_examples=1500, **FUZZ)
    @given(obj=JSON | st.dictionaries(st.sampled_from(KEYS), JSON, max_size=8), strict=st.booleans())
    def test_arbitrary_json(self, obj, strict):
        must_be_position_or_error(obj, strict)
        try:
            text = json.dumps(obj)
        except ValueError:
            return
        must_be_position_or_error(text, strict)

    @settings(max_examples=1500, **FUZZ)
    @given(obj=mutated_vectors(), strict=st.booleans())
    def test_mutated_vector_positions(self, obj, strict):
        must_be_position_or_error(obj, strict)
        must_be_position_or_error(json.dumps(obj), strict)

    @settings(max_examples=800, **FUZZ)
    @given(text=st.text() | st.binary())
    def test_raw_text(self, text):
        assert must_be_position_or_error(text) is None


class TestAsciiNotation:
    """Letters that only case-fold to a suit or seat are not accepted."""

    @pytest.mark.parametrize("field,value", [("trump", "ſ"), ("leader", "ſ")])
    def test_folded_letters_rejected(self, field, value):
        obj = {"game": "malilla", "trump": "S", "hands": {"N": "7S", "W": "AS", "S": "KS", "E": "QS"},
               "leader": "N", "trick": [], "led_suits": ""}
        obj[field] = value
        with pytest.raises(PositionError) as e:
            Position.from_json(obj)
        assert e.value.field == field

    def test_folded_card_rejected(self):
        obj = {"game": "malilla", "trump": "S", "hands": {"N": "7ſ", "W": "AS", "S": "KS", "E": "QS"},
               "leader": "N", "trick": []}
        with pytest.raises(PositionError) as e:
            Position.from_json(obj)
        assert e.value.field == "hands.N"


def _refused(obj: dict) -> PositionError:
    """Run in a worker process: the error a bad position raises there."""
    try:
        Position.from_json(obj)
    except PositionError as e:
        return e
    raise AssertionError("accepted")


class TestErrorsCrossProcesses:
    @pytest.mark.parametrize("error", [PositionError("hands.N", "7S appears twice"),
                                       IllegalPlay("trick[1]", "W may not play 2H")])
    def test_pickled_and_copied_whole(self, error):
        for twin in (pickle.loads(pickle.dumps(error)), copy.copy(error), copy.deepcopy(error)):
            assert (type(twin), str(twin), twin.field, twin.problem) == \
                (type(error), str(error), error.field, error.problem)

    def test_raised_in_a_worker_process(self):
        bad = {"game": "manille", "trump": "S", "hands": {"N": "7S", "E": "7S", "S": "8S", "W": "9S"},
               "leader": "N", "trick": []}
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            error = pool.submit(_refused, bad).result(timeout=60)
        assert (type(error), error.field) == (PositionError, "hands.E")


def test_repr_is_one_readable_line():
    position = Position.from_json({"game": "malilla", "trump": "D", "leader": "W", "trick": ["JS", "6S", "4D"],
                                   "hands": {"N": "KS AH 2D", "W": "KC 5C", "S": "2S 4H", "E": "7D QC"},
                                   "led_suits": "SHC"})
    assert repr(position) == ("<Position malilla trump=D N:KS AH 2D E:7D QC S:2S 4H W:KC 5C leader=W "
                              "trick=[JS 6S 4D] to_move=N led_suits=SHC>")
    assert repr(position.profile) == "<Profile malilla>"
    doubled = Position.from_json({"game": "manille", "trump": "S", "leader": "N", "trick": [], "pending_doubling": True,
                                  "hands": {"N": "7S", "E": "8S", "S": "9S", "W": "10S"}})
    assert repr(doubled).endswith("to_move=N pending_doubling>")


def test_repr_of_a_position_built_by_hand_does_not_raise():
    assert repr(Position(MANILLE, "S", (0, 0, 0, 0), 7)) == \
        "<Position manille trump=S hands=(0, 0, 0, 0) leader=7 trick=()>"


def rebuilt(position: Position) -> Position:
    """`position` built afresh, field by field, with no check run on it."""
    return Position(position.profile, position.trump, position.hands, position.leader, position.trick, position.led,
                    position.history, position.first_leader, position.pending_doubling)


class TestPositionBuiltByHand:
    """A Position made field by field, not read from JSON, is checked before it is solved."""

    @pytest.mark.parametrize("game", ["malilla", "manille"])
    def test_a_deal_played_out_reads_back_from_its_json(self, game):
        """As `play` leaves it: no card is legal, and solving it is refused, since the deal is over."""
        position = Position.from_json({k: v for k, v in played_deal(game, 2).items() if k != "play"})
        while not position.is_over:
            position = position.play(position.legal_moves()[0])
        read = Position.from_json(position.to_json())
        assert read == position and read.legal_moves() == [] and read.points_won() == position.points_won()
        with pytest.raises(PositionError, match="^hands: the deal is over: nothing is left to play$"):
            Solver(1 << 20).solve(read)
        empty = {**position.to_json(), "history": None}   # no history: no deal at all
        with pytest.raises(PositionError, match="^hands: every hand is empty"):
            Position.from_json(empty)

    @pytest.mark.parametrize("game", ["malilla", "manille"])
    def test_a_deal_start_has_an_empty_history_however_it_was_made(self, game):
        """Its hands hold the whole deck, so no trick was completed: read leniently, or built
        without a history, it is the same position, and its deal score can be solved."""
        obj = {k: v for k, v in played_deal(game, 3).items() if k != "play"}
        read = Position.from_json(obj)
        for other in (Position.from_json(obj, strict=False), Position(read.profile, read.trump, read.hands, read.leader,
                                                                      pending_doubling=read.pending_doubling)):
            assert other.history == () and other == read and hash(other) == hash(read)
            assert Solver(1 << 20).solve(other, mode="best", objective="score").value == \
                Solver(1 << 20).solve(read, mode="best", objective="score").value
        later = read
        for _ in range(4):
            later = later.play(later.legal_moves()[0])
        assert replace(later, history=None).history is None   # a trick completed: its cards are unknown
        contradicted = Position.from_json({**obj, "led_suits": "SH"}, strict=False) if game == "malilla" else None
        assert contradicted is None or contradicted.history is None   # suits led before: not a deal start
        if game == "malilla":   # a known history and the suits led must agree, however the position was made
            with pytest.raises(PositionError, match="^led_suits: SH contradicts the history, which leads nothing$"):
                replace(read, led=0b11).check()

    @pytest.mark.parametrize("fields, field, problem", [
        (dict(hands=(1, 1, 1, 1)), "hands.E", "7S appears twice"),
        (dict(leader=9), "leader", "9 is not a seat (0 to 3: N E S W)"),
        (dict(leader=True), "leader", "True is not a seat (0 to 3: N E S W)"),
        (dict(hands=(1 << 15, 2, 4, 8)), "hands.N", "not a mask of cards of the manille deck"),
        (dict(hands=(1 << 70, 2, 4, 8)), "hands.N", "not a mask of cards of the manille deck"),
        (dict(hands=(-1, 2, 4, 8)), "hands.N", "not a mask of cards of the manille deck"),
        (dict(hands=(1, 2, 4)), "hands", "expected four card masks (N, E, S, W)"),
        (dict(hands=(1, 2, 4, 0), trick=(200,)), "trick[0]", "200 is not a card of the manille deck"),
        (dict(hands=(1, 2, 4, 0), trick=(2,)), "trick[0]", "9S appears twice"),
        (dict(trump="X"), "trump", "'X' is not a trump (S H D C or NT)"),
        (dict(trump="s"), "trump", "'s': a Position writes it 'S'"),
        (dict(led=99), "led_suits", "99 is not a set of suits (a mask of 4 bits)"),
        (dict(history=((16, 17, 18, 1),)), "history[0][3]", "8S appears twice"),
        (dict(history=((16, 17, 18, 19), (20, 21, 17, 22))), "history[1][2]", "8H appears twice"),
        (dict(hands=(1, 2, 4, 0), trick=(True,)), "trick[0]", "True is not a card of the manille deck"),
        (dict(history=((16, 17, 18, -1),)), "history[0][3]", "-1 is not a card of the manille deck"),
        (dict(history=((16, 17, 1 << 70, 19),)), "history[0][2]",
         f"{1 << 70} is not a card of the manille deck"),
        (dict(history=((16, "7H", 18, 19),)), "history[0][1]", "'7H' is not a card of the manille deck"),
        (dict(history=((16, 17, 18),)), "history[0]", "expected a completed trick of 4 cards"),
        (dict(pending_doubling=True, profile=get_profile("malilla")), "pending_doubling",
         "malilla has no doubling after a tie"),
        (dict(hands=(3, 4, 8, 16)), "hands", "sizes N=2 E=1 S=1 W=1 do not fit a trick of 0 cards led by N"),
        (dict(leader=1.0), "leader", "1.0 is not a seat (0 to 3: N E S W)"),
        (dict(first_leader=9), "first_leader", "9 is not a seat (0 to 3: N E S W)"),
        (dict(history=()), "history", "0 tricks, but the hands show 7 played: the history must go back to "
         "the first trick"),
        (dict(history=((16, 17, 18, 19),)), "history", "1 trick, but the hands show 7 played: the history must "
         "go back to the first trick"),
        (dict(hands=(3, 4, 8, 1 << 16), trick=(5,)), "hands",
         "sizes N=2 E=1 S=1 W=1 do not fit a trick of 1 card led by N"),
        (dict(history=[]), "history", "expected a tuple of completed tricks, or None"),
        (dict(led=0.0), "led_suits", "0.0 is not a set of suits (a mask of 4 bits)"),
        (dict(led=16), "led_suits", "16 is not a set of suits (a mask of 4 bits)"),
        (dict(led=True), "led_suits", "True is not a set of suits (a mask of 4 bits)"),
        (dict(leader=None), "leader", "None is not a seat (0 to 3: N E S W)"),
        (dict(trick=(16, 17, 18, 19)), "trick", "expected at most 3 cards"),
        (dict(hands=(True, 2, 4, 8)), "hands.N", "not a mask of cards of the manille deck"),
        (dict(hands=(0x100FF, 0xFE0000 | 1 << 32, 0xFE << 32 | 1 << 48, 0xFE << 48)), "hands",
         "a manille hand holds at most 8 cards"),
    ])
    def test_bad_fields_are_named(self, fields, field, problem):
        position = Position(**{**dict(profile=get_profile("manille"), trump="S", hands=(1, 2, 4, 8), leader=0),
                               **fields})
        with pytest.raises(PositionError) as err:
            Solver(1 << 20).solve(position)
        assert (err.value.field, err.value.problem) == (field, problem)

    @given(st.lists(st.one_of(st.integers(-2, 66), st.booleans(), st.just(1 << 70), st.just("7S")), max_size=3),
           st.lists(st.lists(st.integers(0, 63), min_size=4, max_size=4), max_size=4))
    def test_the_cards_mask_of_the_trick_and_history_is_that_of_distinct_cards_or_minus_one(self, trick, history):
        """The fast read of the played cards that `check` makes; anything else sends it to the
        card-by-card read that names the bad card."""
        cards = trick + [c for t in history for c in t]
        plain = all(type(c) is int and 0 <= c < 64 for c in cards) and len(set(cards)) == len(cards)
        expected = sum(1 << c for c in cards) if plain else -1
        assert _core.cards_mask(tuple(trick), tuple(tuple(t) for t in history)) == expected

    def test_a_card_of_an_int_type_of_its_own_is_read_as_its_number(self):
        class Number(int):
            pass

        position = Position.from_json({k: v for k, v in played_deal("manille", 3).items() if k != "play"})
        for _ in range(5):
            position = position.play(position.legal_moves()[0])
        own = replace(position, trick=tuple(Number(c) for c in position.trick),
                      history=tuple(tuple(Number(c) for c in t) for t in position.history))
        own.check()
        assert Solver(1 << 20).solve(own).values == Solver(1 << 20).solve(position).values

    def test_a_history_and_first_leader_that_disagree_with_the_play_are_refused(self):
        """Either would change the points won so far, and so a score."""
        position = Position.from_json({k: v for k, v in played_deal("manille", 3).items() if k != "play"})
        for _ in range(8):
            position = position.play(position.legal_moves()[0])
        position.check()
        for fields, field in ((dict(history=()), "history"), (dict(history=position.history[1:]), "history"),
                              (dict(first_leader=(position.first_leader + 1) % 4), "first_leader")):
            with pytest.raises(PositionError) as err:
                Solver(1 << 20).solve(replace(position, **fields), objective="score")
            assert err.value.field == field

    def test_malformed_fields_raise_rather_than_crash_or_hang(self):
        """Queries that do not check the whole position still refuse what the core cannot read."""
        good = Position(MANILLE, "S", (1, 2, 4, 8), 0)
        with pytest.raises(ValueError, match="hands: 3 masks; expected four"):
            replace(good, hands=(1, 2, 4)).legal_moves()
        with pytest.raises(ValueError, match="leader: 7 is not a seat"):
            replace(good, leader=7).legal_moves()
        with pytest.raises(ValueError, match="trick: 40 cards; at most 4 here"):
            replace(good, history=(tuple(range(40)),)).points_won()
        with pytest.raises(ValueError, match=r"trick\[0\]: -3 is not a card number"):
            replace(good, hands=(0, 2, 4, 8), trick=(-3,)).legal_moves()
        with pytest.raises(ValueError, match="-1 is not a mask of cards: it is negative"):
            replace(good, hands=(-1, 0, 0, 0)).hand("N")
        assert repr(replace(good, hands=(-1, 0, 0, 0))) == \
            "<Position manille trump=S hands=(-1, 0, 0, 0) leader=0 trick=()>"
        assert repr(replace(good, profile="manille", leader="N")) == \
            "<Position manille trump=S hands=(1, 2, 4, 8) leader=N trick=()>"

    @pytest.mark.parametrize("game", ["malilla", "manille"])
    def test_every_position_a_checked_one_plays_to_passes_a_check_of_its_own(self, game):
        """A solver skips the check of a position played from a checked one, or read from JSON:
        each such position, and its JSON read back (with its history), rebuilt field by field,
        must pass it."""
        for seed in range(3):
            obj = played_deal(game, seed)
            position = Position.from_json({k: v for k, v in obj.items() if k != "play"})
            position.check()
            for card in obj["play"]:
                position = position.play(card)
                rebuilt(position).check()
                if not position.is_over:
                    rebuilt(Position.from_json(position.to_json())).check()

    def test_suits_led_that_leave_out_the_trick_in_progress_are_refused(self):
        obj = {"game": "malilla", "trump": "D", "leader": "S", "trick": ["2H", "AH"], "led_suits": "SHDC",
               "hands": {"N": "KS 5S JD", "E": "3D 2C", "S": "6H 5D", "W": "7H 3H JC"}}
        read = Position.from_json(obj)
        with pytest.raises(PositionError, match="^led_suits: does not include H, the suit led to the trick"):
            Position.from_json({**obj, "led_suits": "SDC"})
        with pytest.raises(PositionError, match="^led_suits: does not include H, the suit led to the trick"):
            Solver(1 << 20).solve(replace(read, led=read.led & ~0b0010))

    def test_suits_led_at_the_start_of_a_deal_are_refused(self):
        start = Position.from_json({k: v for k, v in played_deal("malilla", 1).items() if k != "play"})
        assert start.led == 0 and start.history == ()
        built = Position(start.profile, start.trump, start.hands, start.leader, led=0b0110)
        with pytest.raises(PositionError, match="^led_suits: HD contradicts the start of the deal, which leads "
                                                "nothing"):
            built.check()
        built.check(strict=False)

    def test_a_position_played_from_one_never_checked_is_checked_in_full(self):
        uneven = Position(MANILLE, "S", (0b11, 1 << 16, 1 << 32, 1 << 48), 0)
        with pytest.raises(PositionError, match="^hands: sizes N=2 E=1 S=1 W=1"):
            uneven.check()
        with pytest.raises(PositionError, match="^hands: sizes N=1 E=1 S=1 W=1 do not fit a trick of 1"):
            Solver(1 << 20).solve(uneven.play(0))

    def test_a_position_read_from_json_passes(self):
        for line in load_vectors("endgames3")[:50]:
            position = Position.from_json(line)
            position.check()
            assert Position(position.profile, position.trump, position.hands, position.leader, position.trick,
                            position.led).legal_moves() == position.legal_moves()

    @pytest.mark.parametrize("name", ["endgames3", "endgames6", "full"])
    def test_every_position_read_from_json_passes_a_check_of_its_own(self, name):
        """A solver skips the check of a position read from JSON: each one, rebuilt field by
        field, must pass it."""
        for line in load_vectors(name):
            rebuilt(Position.from_json(line)).check()


def test_a_line_longer_than_the_most_is_cut_and_refused_and_the_next_is_read(monkeypatch):
    """Its rest is skipped unkept, so that a line with no end does not fill the memory."""
    import io

    from solver import jsonlines as module
    monkeypatch.setattr(module, "MAX_LINE", 10)
    lines = list(module.input_lines(io.StringIO("short\n" + "x" * 50 + "\n" + "y" * 9 + "\n" + "z" * 30)))
    assert lines == ["short\n", "x" * 11, "y" * 9 + "\n", "z" * 11]
    with pytest.raises(PositionError, match="^position: more than 10 characters, the most a line may hold$"):
        Position.from_json(lines[1])
    with pytest.raises(PositionError, match="not valid JSON"):   # within the most: read, and refused as JSON
        Position.from_json(lines[2])
    cut = next(module.input_lines(io.StringIO(" " * 50 + "{}\n")))   # blank as far as it is read, but cut
    assert cut == " " * 11 and not module.blank_line(cut)
    assert module.blank_line(" " * 10 + "\n")   # as long as a line may be, and whole


def test_a_failed_read_names_the_file_or_standard_input():
    import io

    from solver.jsonlines import input_lines

    class Failing(io.StringIO):
        def readline(self, size: int | None = -1) -> str:
            raise OSError(5, "Input/output error")

    for name, said in (("deals.jsonl", "deals.jsonl"), ("<stdin>", "standard input")):
        stream = Failing()
        stream.name = name
        with pytest.raises(OSError) as failed:
            list(input_lines(stream))
        assert failed.value.filename == said and failed.value.strerror == "Input/output error"
