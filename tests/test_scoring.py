"""Deal scores and the match record, with the worked examples of the seed texts."""
from __future__ import annotations

import dataclasses
import re

import pytest

from solver import cards
from solver.profiles import MALILLA, MANILLE
from solver.scoring import DealScore, Match, check_points, score_deal

N, E, S, W = range(4)
NS, EW = 0, 1


def card(text, profile):
    return cards.parse_card(text, profile)


def trick_winner(played, trump, profile):
    """Index in `played` of the winning card: highest trump, else highest of the suit led."""
    trump_suit = cards.SUITS.index(trump) if trump in cards.SUITS else None
    led = cards.card_suit(played[0])

    def rank(c):
        suit = cards.card_suit(c)
        return (suit == trump_suit, suit == led, c & 15)

    return max(range(len(played)), key=lambda i: rank(played[i]))


class TestSeedMalillaTrick:
    """Spades trump; A leads AH, B must beat with 7H, C KH, D 2H; B wins 4+5+3+0+1 = 13."""

    played = ["AH", "7H", "KH", "2H"]

    def test_seven_beats_ace(self):
        hand_b = [card("7H", MALILLA), card("3S", MALILLA)]
        beaters = [c for c in hand_b if cards.card_suit(c) == 1 and c > card("AH", MALILLA)]
        assert [cards.card_name(c, MALILLA) for c in beaters] == ["7H"]

    def test_b_wins_the_trick(self):
        assert trick_winner([card(t, MALILLA) for t in self.played], "S", MALILLA) == 1

    def test_trick_is_worth_13(self):
        points = [cards.card_points(card(t, MALILLA), MALILLA) for t in self.played]
        assert points == [4, 5, 3, 0]
        assert sum(points) + MALILLA.trick_bonus == 13


class TestMalillaDealScore:
    def test_totals(self):
        assert (MALILLA.total_points, MALILLA.half, MANILLE.total_points, MANILLE.half) == (70, 35, 60, 30)

    def test_excess_over_35(self):
        r = score_deal(MALILLA, (33, 37), (4, 6), "D")
        assert r.score == (0, 2) and r.winner == EW
        assert not r.tied and not r.capot and r.multiplier == 1

    def test_tie_scores_nobody(self):
        r = score_deal(MALILLA, (35, 35), (5, 5), "H")
        assert r.score == (0, 0) and r.tied and r.winner is None

    def test_slam_scores_35_without_multiplier(self):
        r = score_deal(MALILLA, (70, 0), (10, 0), "C")
        assert r.score == (35, 0) and r.capot and r.multiplier == 1

    def test_nine_tricks_is_no_slam(self):
        r = score_deal(MALILLA, (69, 1), (9, 1), "C")
        assert r.score == (34, 0) and not r.capot

    def test_pending_doubling_ignored(self):
        assert score_deal(MALILLA, (40, 30), (6, 4), "S", pending_doubling=True).score == (5, 0)


class TestManilleDealScore:
    def test_seed_no_trump_38_scores_16(self):
        r = score_deal(MANILLE, (38, 22), (5, 3), "NT")
        assert r.score == (16, 0) and r.multiplier == 2

    def test_plain_excess(self):
        assert score_deal(MANILLE, (22, 38), (3, 5), "S").score == (0, 8)

    def test_capot_worth_60(self):
        r = score_deal(MANILLE, (0, 60), (0, 8), "H")
        assert r.score == (0, 60) and r.capot and r.multiplier == 2

    def test_capot_at_no_trump(self):
        assert score_deal(MANILLE, (60, 0), (8, 0), "NT").score == (120, 0)

    def test_pending_doubling(self):
        r = score_deal(MANILLE, (38, 22), (5, 3), "D", pending_doubling=True)
        assert r.score == (16, 0) and r.multiplier == 2

    def test_all_multipliers_combine(self):
        r = score_deal(MANILLE, (60, 0), (8, 0), "NT", pending_doubling=True)
        assert r.score == (240, 0) and r.multiplier == 8

    def test_tie(self):
        r = score_deal(MANILLE, (30, 30), (4, 4), "NT")
        assert r.tied and r.score == (0, 0)

    def test_all_points_without_all_tricks_is_no_capot(self):
        r = score_deal(MANILLE, (60, 0), (7, 1), "S")
        assert r.score == (30, 0) and not r.capot


class TestScoreValidation:
    @pytest.mark.parametrize("points", [(30, 31), (0, 0), (61, -1)])
    def test_points_must_sum(self, points):
        with pytest.raises(ValueError):
            score_deal(MANILLE, points, (4, 4), "S")

    def test_points_sum_message(self):
        with pytest.raises(ValueError, match="shares out 70"):
            score_deal(MALILLA, (30, 30), (5, 5), "S")

    def test_tricks_must_sum(self):
        with pytest.raises(ValueError, match="has 8"):
            score_deal(MANILLE, (30, 30), (4, 5), "S")

    @pytest.mark.parametrize("pair", [(60,), (60, 0, 0), "60", (60.0, 0), (True, False), None])
    def test_malformed_pairs(self, pair):
        with pytest.raises(ValueError, match="two non-negative ints"):
            score_deal(MANILLE, pair, (8, 0), "S")
        with pytest.raises(ValueError, match="two non-negative ints"):
            score_deal(MANILLE, (60, 0), pair, "S")

    def test_points_without_a_trick(self):
        with pytest.raises(ValueError, match="cannot take"):
            score_deal(MANILLE, (55, 5), (8, 0), "S")

    def test_fewer_points_than_trick_bonuses(self):
        with pytest.raises(ValueError, match="cannot take"):
            score_deal(MALILLA, (67, 3), (6, 4), "S")

    @pytest.mark.parametrize("profile, points, tricks, error", [
        (MANILLE, (50, 10), (1, 7), "N-S cannot take 50 points with 1 trick (from 0 to 20)"),
        (MANILLE, (21, 39), (1, 7), "N-S cannot take 21 points with 1 trick (from 0 to 20)"),
        (MALILLA, (60, 10), (1, 9), "N-S cannot take 60 points with 1 trick (from 1 to 21)"),
        (MALILLA, (4, 66), (5, 5), "N-S cannot take 4 points with 5 tricks (from 5 to 65)"),
    ])
    def test_more_points_than_the_tricks_hold(self, profile, points, tricks, error):
        with pytest.raises(ValueError, match=re.escape(error)):
            score_deal(profile, points, tricks, "S")

    @pytest.mark.parametrize("profile, points, tricks", [
        (MANILLE, (20, 40), (1, 7)), (MANILLE, (0, 60), (3, 5)), (MALILLA, (21, 49), (1, 9)),
        (MALILLA, (65, 5), (5, 5)),
    ])
    def test_the_extremes_of_a_trick_count_are_taken(self, profile, points, tricks):
        assert score_deal(profile, points, tricks, "S").points == points

    def test_no_trump_in_malilla(self):
        with pytest.raises(ValueError, match="no no-trump"):
            score_deal(MALILLA, (40, 30), (6, 4), "NT")

    @pytest.mark.parametrize("trump, problem", [("X", "'X' is not a trump"), ("", "'' is not a trump"),
                                                (None, "missing")])
    def test_bad_trump(self, trump, problem):
        with pytest.raises(ValueError, match=f"^trump: {problem} \\(S H D C or NT\\)$"):
            score_deal(MANILLE, (40, 20), (6, 2), trump)


class TestDealerBonus:
    def test_bonus_goes_at_once(self):
        m = Match(MALILLA, dealer=E)
        m.start_deal(card("7S", MALILLA))
        assert m.scores == [0, 5] and m.waiting_bonus == 0

    def test_seed_waiting_bonus_dropped(self):
        """Both at 33, dealer shows KD; rivals take 37, score 2, reach 35 first and win."""
        m = Match(MALILLA, dealer=N)
        m.scores = [33, 33]
        m.start_deal(card("KD", MALILLA))
        assert m.scores == [33, 33] and m.waiting_bonus == 3
        r = m.record_deal((33, 37), (4, 6), "D")
        assert r.score == (0, 2)
        assert m.scores == [33, 35] and m.winner == EW and m.waiting_bonus == 0

    def test_waiting_bonus_dropped_when_dealers_side_reaches_target(self):
        m = Match(MALILLA, dealer=N)
        m.scores = [33, 20]
        m.start_deal(card("KD", MALILLA))
        m.record_deal((38, 32), (6, 4), "D")
        assert m.scores == [36, 20] and m.winner == NS

    def test_waiting_bonus_added_when_nobody_reached(self):
        m = Match(MALILLA, dealer=N)
        m.scores = [33, 33]
        m.start_deal(card("KD", MALILLA))
        m.record_deal((35, 35), (5, 5), "D")
        assert m.scores == [36, 33] and m.winner == NS

    @pytest.mark.parametrize("before, after, waiting", [(30, 34, 0), (31, 31, 4)])
    def test_bonus_waits_exactly_when_it_would_reach_35(self, before, after, waiting):
        m = Match(MALILLA, dealer=W)
        m.scores = [0, before]
        m.start_deal(card("AC", MALILLA))
        assert m.scores == [0, after] and m.waiting_bonus == waiting and m.winner is None

    def test_zero_point_card(self):
        m = Match(MALILLA)
        m.start_deal(card("2H", MALILLA))
        assert m.scores == [0, 0]

    def test_malilla_needs_shown_card(self):
        m = Match(MALILLA)
        with pytest.raises(ValueError, match="shown card"):
            m.start_deal()
        with pytest.raises(ValueError, match="shown card"):
            m.record_deal((40, 30), (6, 4), "S")

    def test_manille_has_no_bonus(self):
        with pytest.raises(ValueError, match="no dealer's bonus"):
            Match(MANILLE).start_deal(card("10S", MANILLE))

    @pytest.mark.parametrize("bad", [-1, 64, 16 + 12, "7S"])
    def test_shown_card_must_be_in_deck(self, bad):
        with pytest.raises(ValueError, match="not a card"):
            Match(MALILLA).start_deal(bad)

    def test_trump_must_be_shown_suit(self):
        m = Match(MALILLA)
        m.start_deal(card("KD", MALILLA))
        with pytest.raises(ValueError, match="shown card"):
            m.record_deal((40, 30), (6, 4), "S")
        assert m.record_deal((40, 30), (6, 4), "d").score == (5, 0)

    def test_deal_started_twice(self):
        m = Match(MALILLA)
        m.start_deal(card("KD", MALILLA))
        with pytest.raises(ValueError, match="already started"):
            m.start_deal(card("KD", MALILLA))


class TestTieDoubling:
    def test_tie_sets_pending_and_doubles_next(self):
        m = Match(MANILLE)
        m.record_deal((30, 30), (4, 4), "S")
        assert m.pending_doubling and m.scores == [0, 0]
        r = m.record_deal((35, 25), (5, 3), "S")
        assert r.score == (10, 0) and r.multiplier == 2
        assert not m.pending_doubling

    def test_one_pending_doubling_at_most(self):
        m = Match(MANILLE)
        m.record_deal((30, 30), (4, 4), "S")
        m.record_deal((30, 30), (4, 4), "H")
        assert m.pending_doubling
        assert m.record_deal((35, 25), (5, 3), "S").score == (10, 0)

    def test_pending_doubling_combines_with_no_trump_and_capot(self):
        m = Match(MANILLE)
        m.record_deal((30, 30), (4, 4), "S")
        assert m.record_deal((0, 60), (0, 8), "NT").score == (0, 240)

    def test_decisive_deal_clears_without_doubling_the_one_after(self):
        m = Match(MANILLE)
        m.record_deal((30, 30), (4, 4), "S")
        m.record_deal((31, 29), (4, 4), "S")
        assert m.record_deal((35, 25), (5, 3), "S").score == (5, 0)

    def test_malilla_tie_doubles_nothing(self):
        m = Match(MALILLA)
        m.start_deal(card("2S", MALILLA))
        m.record_deal((35, 35), (5, 5), "S")
        assert not m.pending_doubling
        m.start_deal(card("2H", MALILLA))
        assert m.record_deal((40, 30), (6, 4), "H").score == (5, 0)


class TestMatchEnd:
    def test_101_wins(self):
        m = Match(MANILLE)
        m.scores = [95, 90]
        m.record_deal((36, 24), (5, 3), "S")
        assert m.scores == [101, 90] and m.winner == NS

    def test_100_does_not_win(self):
        m = Match(MANILLE)
        m.scores = [95, 90]
        m.record_deal((35, 25), (5, 3), "S")
        assert m.scores == [100, 90] and m.winner is None

    def test_play_until_won(self):
        m = Match(MANILLE)
        deals = 0
        while m.winner is None:
            m.record_deal((22, 38), (3, 5), "NT")  # E-W score 16 a deal
            deals += 1
        assert deals == 7 and m.scores == [0, 112] and m.winner == EW
        assert len(m.history) == 7 and all(isinstance(r, DealScore) for r in m.history)

    def test_malilla_35_wins(self):
        m = Match(MALILLA)
        m.scores = [30, 0]
        m.start_deal(card("2S", MALILLA))
        m.record_deal((40, 30), (6, 4), "S")
        assert m.winner == NS

    def test_slam_wins_at_once(self):
        variant = dataclasses.replace(MALILLA, name="malilla-100", match_target=100)
        m = Match(variant, dealer=N)
        m.start_deal(card("KD", variant))
        m.record_deal((0, 70), (0, 10), "D")
        assert m.winner == EW and m.scores == [3, 35]

    def test_slam_drops_waiting_bonus(self):
        m = Match(MALILLA, dealer=N)
        m.scores = [33, 0]
        m.start_deal(card("KD", MALILLA))
        m.record_deal((0, 70), (0, 10), "D")
        assert m.winner == EW and m.scores == [33, 35]

    def test_no_slam_rule_without_flag(self):
        variant = dataclasses.replace(MALILLA, name="malilla-100", match_target=100, slam_wins_match=False)
        m = Match(variant)
        m.start_deal(card("2S", variant))
        m.record_deal((0, 70), (0, 10), "S")
        assert m.winner is None and m.scores == [0, 35]

    def test_no_deal_after_the_match(self):
        m = Match(MANILLE)
        m.scores = [100, 0]
        m.record_deal((31, 29), (4, 4), "S")
        assert m.winner == NS
        with pytest.raises(ValueError, match="match is over"):
            m.record_deal((31, 29), (4, 4), "S")
        with pytest.raises(ValueError, match="match is over"):
            m.start_deal()


class TestDealerRotation:
    def test_malilla_passes_right(self):
        m = Match(MALILLA, dealer=N)
        seen = []
        for shown in ("2S", "2H", "2D", "2C"):
            seen.append(m.dealer)
            m.start_deal(card(shown, MALILLA))
            m.record_deal((35, 35), (5, 5), shown[-1])
        assert seen == [N, W, S, E] and m.dealer == N

    def test_manille_passes_left(self):
        m = Match(MANILLE, dealer=S)
        seen = []
        for _ in range(4):
            seen.append(m.dealer)
            m.record_deal((30, 30), (4, 4), "S")
        assert seen == [S, W, N, E] and m.dealer == S

    def test_bonus_goes_to_current_dealers_side(self):
        m = Match(MALILLA, dealer=N)
        m.start_deal(card("2S", MALILLA))
        m.record_deal((35, 35), (5, 5), "S")
        m.start_deal(card("AH", MALILLA))  # dealer now W
        assert m.scores == [0, 4]

    def test_cancelled_deal_passes_without_score(self):
        m = Match(MANILLE, dealer=N)
        m.record_deal((30, 30), (4, 4), "S")
        m.cancel_deal()
        assert m.dealer == S and m.scores == [0, 0] and m.pending_doubling and len(m.history) == 1

    def test_cannot_cancel_started_deal(self):
        m = Match(MALILLA)
        m.start_deal(card("KD", MALILLA))
        with pytest.raises(ValueError, match="record it"):
            m.cancel_deal()

    @pytest.mark.parametrize("dealer", [4, -1, "N"])
    def test_bad_dealer(self, dealer):
        with pytest.raises(ValueError, match=r"^dealer: .* is not a seat index"):
            Match(MANILLE, dealer)


class TestIllegalPlay:
    @pytest.mark.parametrize("seat, winner", [(N, EW), (S, EW), (E, NS), (W, NS)])
    def test_malilla_offender_loses(self, seat, winner):
        m = Match(MALILLA)
        m.illegal_play(seat)
        assert m.winner == winner

    def test_manille_has_no_penalty(self):
        m = Match(MANILLE)
        with pytest.raises(ValueError, match="no match penalty"):
            m.illegal_play(N)
        assert m.winner is None

    def test_no_penalty_after_the_match(self):
        m = Match(MALILLA)
        m.illegal_play(E)
        with pytest.raises(ValueError, match="match is over"):
            m.illegal_play(N)
        assert m.winner == NS

    @pytest.mark.parametrize("seat", [4, "N"])
    def test_bad_seat(self, seat):
        with pytest.raises(ValueError, match=r"^seat: .* is not a seat index"):
            Match(MALILLA).illegal_play(seat)


class TestDrivenByProfileFields:
    """Renaming a profile changes nothing: no rule reads the name."""

    def test_renamed_malilla_seed_example(self):
        variant = dataclasses.replace(MALILLA, name="variant")
        m = Match(variant, dealer=N)
        m.scores = [33, 33]
        m.start_deal(card("KD", variant))
        m.record_deal((33, 37), (4, 6), "D")
        assert m.scores == [33, 35] and m.winner == EW

    def test_renamed_manille_rules(self):
        variant = dataclasses.replace(MANILLE, name="variant")
        assert score_deal(variant, (38, 22), (5, 3), "NT").score == (16, 0)
        m = Match(variant)
        m.record_deal((30, 30), (4, 4), "S")
        assert m.pending_doubling

    def test_tie_doubling_flag(self):
        variant = dataclasses.replace(MANILLE, name="manille-no-doubling", tie_doubles_next=False)
        m = Match(variant)
        m.record_deal((30, 30), (4, 4), "S")
        assert not m.pending_doubling
        assert score_deal(variant, (35, 25), (5, 3), "S", pending_doubling=True).score == (5, 0)

    def test_multiplier_fields(self):
        variant = dataclasses.replace(MANILLE, name="manille-x3", capot_multiplier=3, no_trump_multiplier=4)
        assert score_deal(variant, (60, 0), (8, 0), "NT").score == (30 * 12, 0)


@pytest.mark.parametrize("name, profile", [("manille", MANILLE), ("MALILLA", MALILLA)])
def test_a_game_is_given_by_its_profile_or_its_name(name, profile):
    """As `deal` and `generate` take it."""
    from solver.scoring import deal_multiplier, points_range, side_score
    points, tricks = (profile.total_points - 20, 20), (profile.tricks - 2, 2)
    assert score_deal(name, points, tricks, "S") == score_deal(profile, points, tricks, "S")
    assert side_score(name, 40, False, "S") == side_score(profile, 40, False, "S")
    assert points_range(name, 2) == points_range(profile, 2)
    assert deal_multiplier(name, "S", True) == deal_multiplier(profile, "S", True)
    assert Match(name).profile is profile
    with pytest.raises(ValueError, match="unknown game 'whist'"):
        Match("whist")


def test_a_trump_is_read_in_any_case_and_a_bad_one_is_refused():
    from solver.scoring import deal_multiplier, side_score
    assert deal_multiplier("manille", "nt") == deal_multiplier(MANILLE, "NT") == 2
    assert side_score("manille", 40, False, "nt") == 20
    with pytest.raises(ValueError, match="'bogus' is not a trump"):
        deal_multiplier(MANILLE, "bogus")



def test_a_deal_of_odd_total_gives_the_losers_minus_what_the_winners_score():
    """Malilla without its 2s shares out 69 points: no deal is tied, and a side's signed score is what
    `score_deal` gives it less what it gives the rivals, whichever side it is."""
    from solver.scoring import side_score
    variant = dataclasses.replace(MALILLA, name="malilla-36", ranks=MALILLA.ranks[:-1], points=MALILLA.points[:-1],
                                  cards_per_hand=9)
    assert variant.total_points == 69
    for ns in (17, 34, 35, 52):
        tricks = (4, 5) if ns < 35 else (5, 4)
        score = score_deal(variant, (ns, 69 - ns), tricks, "S").score
        assert side_score(variant, ns, False, "S") == score[0] - score[1]
        assert side_score(variant, 69 - ns, False, "S") == score[1] - score[0]


def test_points_above_the_deal_total_are_refused():
    """A side takes at most every point of the deal: 70 in Malilla, and not one more."""
    assert check_points(70, MALILLA) is None
    with pytest.raises(ValueError) as err:
        check_points(71, MALILLA)
    assert str(err.value) == "points: 71 is more than the 70 points of a malilla deal"
