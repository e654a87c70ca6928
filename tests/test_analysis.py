"""Play analysis: every card's values against fresh searches and the shared vectors, illegal
cards, partial deals, the deal's result and the input format."""
from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CountingSolver, capot_thrown, load_vectors, played_deal, start_of
from solver import MALILLA, MANILLE, IllegalPlay, Position, PositionError, get_profile
from solver.analysis import (Analysis, PlayedDeal, SummaryTotals, _forces_every_trick, analyze, format_summary,
                             perfect_score, plain_most)
from solver.cards import SEATS, card_name, card_points, deck, parse_card
from solver.deal import deal as dealt
from solver.scoring import score_deal, side_score
from solver.solve import Solver

SMALL = 1 << 22   # a small table: fresh solvers for cross-checks cost nothing to make
NO_BONUS = replace(MALILLA, name="malilla-no-bonus", trick_bonus=0)
"""Malilla whose tricks score nothing: a side can take every point and not every trick."""


def _rich_north_south(seed: int) -> dict[str, object]:
    """The start of a `NO_BONUS` deal in which N-S hold 18 of the 20 cards with points."""
    rng = random.Random(seed)
    cards = list(deck(NO_BONUS))
    rng.shuffle(cards)
    rich = [c for c in cards if card_points(c, NO_BONUS)]
    poor = [c for c in cards if c not in rich]
    ns, ew = rich[:18] + poor[:2], poor[2:] + rich[18:]
    rng.shuffle(ns)
    rng.shuffle(ew)
    hands = {"N": ns[:10], "S": ns[10:], "E": ew[:10], "W": ew[10:]}
    return {"game": NO_BONUS.name, "trump": rng.choice("SHDC"), "leader": rng.choice(SEATS), "trick": [],
            "hands": {s: " ".join(card_name(c, NO_BONUS) for c in h) for s, h in hands.items()}}


def positions_before(analysis: Analysis) -> list[Position]:
    out, position = [], analysis.start
    for c in analysis.cards:
        out.append(position)
        position = position.play(c.card)
    return out


def illegal_at(game: str, seed: int) -> tuple[dict, int, str]:
    """A played deal with a card the mover holds but may not play, and cards after it; its index and the rule."""
    profile = get_profile(game)
    for s in range(seed, seed + 50):
        obj = played_deal(game, s)
        start = start_of(obj)
        position = start
        for i, card in enumerate(obj["play"]):
            held = position.hand(position.to_move)
            wrong = sorted(set(held) - set(position.legal_moves()))
            if wrong and i >= 5:
                with pytest.raises(IllegalPlay) as err:
                    position.play(wrong[0])
                play = list(obj["play"])
                j = play.index(wrong[0])   # later: swapped with the card played, so no card is played twice
                play[i], play[j] = play[j], play[i]
                return {**obj, "play": play}, i, err.value.problem
            position = position.play(card)
    raise AssertionError(f"no illegal chance in 50 {profile.name} deals")


# ------------------------------------------------------------------ against fresh searches


class TestAgainstFreshSearches:
    @pytest.mark.parametrize("game,seed", [("malilla", 1), ("malilla", 2), ("malilla", 7),
                                           ("manille", 0), ("manille", 1), ("manille", 5)])
    def test_every_card_matches_a_fresh_solve(self, game: str, seed: int) -> None:
        analysis = analyze(played_deal(game, seed), Solver())
        assert len(analysis.cards) == 4 * get_profile(game).cards_per_hand
        for position, c in zip(positions_before(analysis), analysis.cards):
            fresh = Solver(SMALL).solve(position, mode="all")
            assert c.seat == SEATS[position.to_move]
            assert c.before == fresh.value
            assert c.after == fresh.values[c.card]
            assert dict(c.values) == fresh.values
            assert list(c.best) == fresh.best
            assert c.cost == fresh.value - fresh.values[c.card] >= 0

    @pytest.mark.parametrize("game,seed", [("malilla", 6), ("manille", 2)])
    def test_after_a_card_is_the_next_position_seen_from_the_whole_deal(self, game: str, seed: int) -> None:
        """The deal's projected points after card i (won tricks + `after`) are those before card i+1,
        which a fresh search of the next position finds on its own."""
        analysis = analyze(played_deal(game, seed), Solver())
        total = analysis.profile.total_points
        for a, b in zip(analysis.cards, analysis.cards[1:]):
            assert a.deal_value() == b.deal_value(after=False)
            assert sum(a.deal_value()) == total
        last = analysis.cards[-1]
        assert last.deal_value() == analysis.result.points   # the last trick is the last card's whole value

    def test_costs_add_up_to_the_swing_from_the_double_dummy_result(self) -> None:
        for game, seed in [("malilla", 0), ("manille", 3), ("manille", 6)]:
            analysis = analyze(played_deal(game, seed), Solver())
            ns = sum(c.cost for c in analysis.cards if c.side == 0)
            ew = sum(c.cost for c in analysis.cards if c.side == 1)
            r = analysis.result
            assert r.points[0] == r.dd_points[0] - ns + ew
            assert sum(analysis.seats[s].cost for s in "NS") == ns
            assert sum(analysis.seats[s].mistakes for s in SEATS) == sum(c.cost > 0 for c in analysis.cards)

    def test_an_optimal_line_costs_nothing(self) -> None:
        obj = played_deal("manille", 4)
        start = start_of(obj)
        line = list(Solver().solve(start, mode="best").line)
        assert len(line) == 32
        analysis = analyze({**obj, "play": line}, Solver())
        assert all(c.cost == 0 and c.card in c.best for c in analysis.cards)
        assert analysis.result.points == analysis.result.dd_points

    def test_one_solver_serves_the_deal_and_the_shared_default_works(self) -> None:
        obj = played_deal("manille", 7)
        assert analyze(obj).to_json() == analyze(obj, Solver()).to_json()


class TestAgainstVectors:
    @pytest.mark.parametrize("index", range(12))
    def test_first_two_cards_match_the_vector_values(self, index: int) -> None:
        line = load_vectors("full")[index]
        values = line.pop("values")
        profile = get_profile(line["game"])
        best = max(values.values())
        worst = min(values, key=lambda c: (values[c], c))
        start = Position.from_json(line)
        reply = start.play(worst).legal_moves()[0]
        analysis = analyze({**line, "play": [worst, reply]}, Solver())
        first, second = analysis.cards
        assert first.seat == line["leader"]
        assert first.before == best
        assert first.after == values[worst]
        assert first.cost == best - values[worst]
        assert set(first.best) == {c for c, v in values.items() if v == best}
        assert dict(first.values) == values
        # the rivals' value before their reply is the rest of the deal
        assert second.before == profile.total_points - values[worst]
        assert analysis.result.dd_points[SEATS.index(line["leader"]) % 2] == best


# ------------------------------------------------------------------ the deal-score objective


def capot_side(position: Position) -> int | None:
    """The side that takes every trick when both play for the deal score from `position` (None: neither)."""
    if not position.is_over:
        for card in Solver(SMALL).solve(position, mode="best", objective="score").line:
            position = position.play(card)
    tricks = position.tricks_won()
    return next((side for side in (0, 1) if tricks[side] == position.profile.tricks), None)


def check_against_fresh_score_solves(obj: dict) -> None:
    """Each card of the deal-score analysis of `obj` against fresh searches: its values, its
    `loses_capot` against the capots of the perfect lines before and after it (where a capot
    multiplies the score), the deal from one card to the next, the summary, and the flags of the
    analysis in points."""
    analysis = analyze(obj, Solver(SMALL), objective="score")
    for position, c in zip(positions_before(analysis), analysis.cards):
        fresh = Solver(SMALL).solve(position, mode="all", objective="score")
        assert (c.before, c.after, dict(c.values), list(c.best)) == \
            (fresh.value, fresh.values[c.card], fresh.values, fresh.best)
        if analysis.profile.capot_multiplier > 1:   # the deal score tells a capot, and its lines end in one
            before, after = capot_side(position), capot_side(position.play(c.card))
            assert c.loses_capot == (before == c.side != after or before != 1 - c.side == after)
        else:
            assert not c.loses_capot
    assert analysis.cards[0].deal_value(after=False) == analysis.result.dd_score
    for a, b in zip(analysis.cards, analysis.cards[1:]):
        assert a.deal_value() == b.deal_value(after=False)
    r = analysis.result
    assert r.projected == analysis.cards[-1].deal_value()
    if r.complete:
        assert r.projected == r.score.score   # perfect play from the last card is the play
    for seat in SEATS:
        mine = [c for c in analysis.cards if c.seat == seat]
        assert (analysis.seats[seat].cost, analysis.seats[seat].mistakes) == \
            (sum(c.cost for c in mine), sum(c.cost > 0 for c in mine))
    points = analyze(obj, Solver(SMALL))
    assert [c.loses_capot for c in points.cards] == [c.loses_capot for c in analysis.cards]
    assert (points.result.dd_points, points.result.dd_score, points.result.dd_capot) == \
        (r.dd_points, r.dd_score, r.dd_capot)


class TestDealScoreObjective:
    def test_a_card_that_throws_away_a_capot_costs_it(self) -> None:
        """Points see E's 8H as optimal (N-S's trick of it is worth 0), the deal score sees E-W's 60
        become 30; the flag shows it under both objectives."""
        points, score = (analyze(capot_thrown(), Solver(SMALL), objective=o) for o in ("points", "score"))
        first = points.cards[0]
        assert (first.card, first.cost, "8H" in first.best, first.loses_capot) == ("8H", 0, True, True)
        assert points.seats["E"].mistakes == 0 and points.result.projected == (0, 60)
        first = score.cards[0]
        assert (first.before, first.after, first.cost, "8H" in first.best, first.loses_capot) == \
            (60, 30, 30, False, True)
        assert set(first.best) == {"10S", "AD", "KD", "QD", "9C"}
        assert (score.seats["E"].cost, score.seats["E"].mistakes) == (30, 1)
        assert score.result.projected == (0, 30)
        for analysis in (points, score):
            assert analysis.result.dd_capot and analysis.result.dd_score == (0, 60)
            assert [c.loses_capot for c in analysis.cards] == [True, False, False, False]
        out = score.to_json()
        assert out["objective"] == "score" and points.to_json()["objective"] == "points"
        assert out["cards"][0]["loses_capot"] is True and "loses_capot" not in out["cards"][1]
        assert out["cards"][0]["deal"] == {"N-S": 0, "E-W": 30}

    def test_a_card_that_lets_the_rivals_take_every_trick_loses_a_capot(self) -> None:
        """At no-trump, two tricks from the end, N-S have no point and no trick. W leads 9C, which
        nobody else can follow; N holds QS and 8D and W's last card is 7D. Keeping 8D, N takes the
        last trick, worth no point: E-W score (60 - 30) x 2 = 60. Throwing 8D, N lets E-W take every
        trick, a capot: 120. Points see no cost; the flag shows it under both objectives."""
        obj = {"game": "manille", "trump": "NT", "leader": "N",
               "hands": {"N": "9D 10C QS 8D 8S 8C QD AS", "E": "9H 10S AH 10H QC 8H JC AC",
                         "S": "9S AD JD KS 7H 7S 7C JH", "W": "KD JS KC 9C QH 10D 7D KH"},
               "play": ["QD", "AC", "AD", "10D", "KD", "9D", "JC", "JD", "KH", "10C", "10H", "JH", "9H", "7H",
                        "QH", "8S", "JS", "AS", "10S", "KS", "QC", "7C", "KC", "8C", "9C", "8D"]}
        points, score = (analyze(obj, Solver(SMALL), objective=o) for o in ("points", "score"))
        last = score.cards[-1]
        assert (last.seat, last.card, last.before, last.after, last.best, last.loses_capot) == \
            ("N", "8D", -60, -120, ("QS",), True)
        last = points.cards[-1]
        assert (last.card, last.before, last.after, last.loses_capot) == ("8D", 0, 0, True)

    @settings(max_examples=12, deadline=None)
    @given(game=st.sampled_from(["manille", "malilla"]), seed=st.integers(0, 10 ** 6),
           cards=st.none() | st.integers(1, 20), pending=st.booleans())
    def test_every_card_matches_a_fresh_deal_score_solve(self, game: str, seed: int, cards: int | None,
                                                         pending: bool) -> None:
        extra = {"pending_doubling": True} if pending and game == "manille" else {}
        check_against_fresh_score_solves(played_deal(game, seed, cards, **extra))

    def test_the_capot_thrown_away_matches_fresh_deal_score_solves(self) -> None:
        check_against_fresh_score_solves(capot_thrown())

    def test_nothing_played_projects_the_double_dummy_match_points(self) -> None:
        r = analyze(played_deal("manille", 6, cards=0), Solver(SMALL), objective="score").result
        assert r.projected == r.dd_score

    def test_the_summary_says_its_unit_and_takes_one_objective(self) -> None:
        solver = Solver(SMALL)
        score = [analyze(played_deal("manille", s), solver, objective="score") for s in (0, 1)]
        assert format_summary(score).splitlines()[0] == "2 deals analysed in match points"
        totals = SummaryTotals()
        with pytest.raises(ValueError, match=r"^objective: an analysis in match points among totals in points$"):
            totals.add(score[0])


# ------------------------------------------------------------------ illegal cards and partial deals


class TestIllegalCards:
    @pytest.mark.parametrize("game,seed", [("malilla", 10), ("manille", 10)])
    def test_an_illegal_card_stops_the_analysis_with_its_rule(self, game: str, seed: int) -> None:
        obj, index, rule = illegal_at(game, seed)
        analysis = analyze(obj, Solver())
        assert len(analysis.cards) == index
        ill = analysis.illegal
        assert (ill.index, ill.card, ill.rule) == (index, obj["play"][index], rule)
        position = start_of(obj)
        for card in obj["play"][:index]:
            position = position.play(card)
        assert ill.seat == SEATS[position.to_move]
        assert "may not play" in ill.rule
        out = analysis.to_json()
        assert out["illegal"] == {"index": index, "card": ill.card, "seat": ill.seat, "rule": rule}
        assert not analysis.result.complete

    def test_malilla_strict_profile_loses_the_match(self) -> None:
        obj, index, _ = illegal_at("malilla", 20)
        analysis = analyze(obj, Solver())
        result = analysis.result
        side = SEATS.index(analysis.illegal.seat) % 2
        assert result.penalty["side"] == ("N-S", "E-W")[side]
        assert result.penalty["winner"] == ("N-S", "E-W")[1 - side]
        assert "loses the match" in result.penalty["text"]

    def test_manille_has_no_match_penalty(self) -> None:
        obj, _, _ = illegal_at("manille", 20)
        result = analyze(obj, Solver()).result
        assert result.penalty is None
        assert any("no match penalty" in n for n in result.notes)

    def test_must_beat_rule_is_named(self) -> None:
        """RULES.md's seed example: holding 7H over a rival's AH, a low heart is illegal."""
        obj = {"game": "malilla", "trump": "S", "leader": "N", "trick": [], "led_suits": "",
               "hands": {"N": "AH 2S 3S 4S 5S 6S JS QS KS AS", "W": "7H 2H 2D 3D 4D 5D 6D JD QD KD",
                         "S": "KH 3H 4H 5H 6H JH QH 2C 3C 4C", "E": "AD 7D 5C 6C JC QC KC AC 7C 7S"},
               "play": ["AH", "2H"]}
        analysis = analyze(obj, Solver())
        assert [c.card for c in analysis.cards] == ["AH"]
        assert analysis.illegal.seat == "W"
        assert analysis.illegal.rule == "W may not play 2H: must beat AH with 7H"

    @pytest.mark.parametrize("index", [0, 9])
    def test_a_card_its_player_does_not_hold_is_bad_input_not_an_illegal_play(self, index: int) -> None:
        """No player can play another's card: the record is wrong, and no side is penalised for it."""
        obj = played_deal("manille", 3)
        position = start_of(obj)
        for card in obj["play"][:index]:
            position = position.play(card)
        holder = (position.to_move + 1) % 4
        other = position.hand(holder)[0]
        with pytest.raises(PositionError) as err:
            analyze({**obj, "play": obj["play"][:index] + [other]}, Solver())
        assert (err.value.field, err.value.problem) == (
            f"play[{index}]", f"{SEATS[position.to_move]} plays {other}, which {SEATS[holder]} holds")
        assert not isinstance(err.value, IllegalPlay)

    def test_a_card_played_twice_is_bad_input(self) -> None:
        obj = played_deal("malilla", 2)
        play = obj["play"][:8] + [obj["play"][3]]
        with pytest.raises(PositionError) as err:
            analyze({**obj, "play": play}, Solver())
        assert (err.value.field, err.value.problem) == ("play[8]", f"{play[3]} appears twice (also in play[3])")


class TestPartialDeals:
    @pytest.mark.parametrize("game,cards", [("malilla", 13), ("manille", 8), ("malilla", 0)])
    def test_partial_play(self, game: str, cards: int) -> None:
        obj = played_deal(game, 4, cards)
        assert len(obj["play"]) == cards
        analysis = analyze(obj, Solver())
        r = analysis.result
        assert len(analysis.cards) == cards and not r.complete and r.score is None
        start = start_of(obj)
        total = start.profile.total_points
        fresh = Solver(SMALL).solve(start, mode="all").value
        assert r.dd_points[SEATS.index(obj["leader"]) % 2] == fresh
        # what the completed tricks gave
        position = start
        for c in obj["play"]:
            position = position.play(c)
        assert r.points == position.points_won() and r.tricks == position.tricks_won()
        assert len(analysis.tricks) == -(-cards // 4)
        if cards:
            assert r.projected == analysis.cards[-1].deal_value()
            rest = Solver(SMALL).solve(position, mode="all").value
            mover = position.to_move % 2
            assert r.projected[mover] == position.points_won()[mover] + rest
        else:
            assert r.projected == r.dd_points
        assert sum(r.projected) == total
        out = analysis.to_json()["result"]
        assert out["complete"] is False and "match_points" not in out["actual"]
        assert any("partial deal" in n for n in r.notes)

    @pytest.mark.parametrize("game, cards", [("malilla", 14), ("manille", 11)])
    def test_an_unfinished_trick_counts_its_cards_points_only(self, game: str, cards: int) -> None:
        """A completed trick is worth its cards' points and the trick's point (Malilla); the trick
        the play stops in has no winner yet and only its cards' points so far."""
        worth = {"7": 5, "A": 4, "K": 3, "Q": 2, "J": 1} if game == "malilla" else \
            {"10": 5, "A": 4, "K": 3, "Q": 2, "J": 1}
        bonus = 1 if game == "malilla" else 0
        analysis = analyze(played_deal(game, 9, cards), Solver(SMALL))
        *complete, unfinished = analysis.tricks
        for trick in complete:
            assert trick.winner is not None
            assert trick.points == sum(worth.get(c[:-1], 0) for c in trick.cards) + bonus
        assert len(unfinished.cards) == cards % 4 and unfinished.winner is None
        assert unfinished.points == sum(worth.get(c[:-1], 0) for c in unfinished.cards)


# ------------------------------------------------------------------ the result


class TestResult:
    @pytest.mark.parametrize("obj, objective", [
        (played_deal("manille", 3), "points"), (played_deal("manille", 3), "score"),
        (capot_thrown(), "points"), (capot_thrown(), "score"), (played_deal("malilla", 2, 12), "points")])
    def test_nodes_count_every_search_of_the_analysis(self, obj: dict, objective: str) -> None:
        solver = CountingSolver(SMALL)
        analysis = analyze(obj, solver, objective=objective)
        assert analysis.nodes == solver.searched > 0

    def test_complete_malilla_deal_is_scored(self) -> None:
        obj = played_deal("malilla", 6)
        analysis = analyze(obj, Solver())
        r = analysis.result
        assert r.complete and analysis.illegal is None
        assert r.score == score_deal(MALILLA, r.points, r.tricks, obj["trump"])
        assert r.projected == r.points
        assert sum(t.points for t in analysis.tricks) == 70
        assert [t.winner for t in analysis.tricks].count(None) == 0
        for side in (0, 1):
            won = sum(t.points for t in analysis.tricks if SEATS.index(t.winner) % 2 == side)
            assert won == r.points[side]
        ns = side_score(MALILLA, r.dd_points[0], r.dd_points[0] == 70, obj["trump"])
        assert r.dd_score == ((ns, 0) if ns > 0 else (0, -ns))
        out = analysis.to_json()["result"]
        assert out["actual"]["match_points"] == {"N-S": r.score.score[0], "E-W": r.score.score[1]}
        assert out["dealer"] == SEATS[6 % 4]

    def test_dealer_bonus_from_the_shown_card(self) -> None:
        obj = played_deal("malilla", 1)
        r = analyze(obj, Solver()).result
        shown = parse_card(obj["shown"], MALILLA)
        assert r.dealer_bonus["card"] == obj["shown"]
        assert r.dealer_bonus["points"] == card_points(shown, MALILLA)
        assert r.dealer_bonus["side"] == ("N-S", "E-W")[SEATS.index(obj["dealer"]) % 2]
        del obj["shown"]
        r = analyze(obj, Solver()).result
        assert r.dealer_bonus is None
        assert any("dealer's bonus is left out" in n for n in r.notes)
        assert analyze(obj, Solver()).to_json()["result"]["dealer_bonus"] is None

    def test_manille_double_dummy_score_uses_the_deal_score_objective(self) -> None:
        for seed in range(6):
            obj = played_deal("manille", seed, 4)
            r = analyze(obj, Solver()).result
            start = start_of(obj)
            signed = Solver(SMALL).solve(start, mode="best", objective="score").value
            if start.to_move % 2:
                signed = -signed
            assert r.dd_score == ((signed, 0) if signed > 0 else (0, -signed))
            doubled = analyze({**obj, "pending_doubling": True}, Solver()).result
            assert doubled.dd_score == (2 * r.dd_score[0], 2 * r.dd_score[1])

    @settings(max_examples=30, deadline=None)
    @given(seed=st.integers(0, 10 ** 6), trump=st.sampled_from(["S", "H", "D", "C", "NT"]), pending=st.booleans())
    def test_manille_points_short_of_a_capot_give_the_deal_score_without_its_search(
            self, seed: int, trump: str, pending: bool) -> None:
        """A capot takes every point: the points strictly between none and all score as the deal-score
        search does, and only points that leave a capot possible ask it."""
        obj = dealt(MANILLE, seed, trump=trump).to_position_json()
        start = Position.from_json({**obj, "pending_doubling": pending})
        value = Solver(SMALL).solve(start, mode="best").value
        ns = value if start.to_move % 2 == 0 else MANILLE.total_points - value
        signed = Solver(SMALL).solve(start, mode="best", objective="score").value
        if start.to_move % 2:
            signed = -signed
        solver = CountingSolver(SMALL)
        score, capot, _ = perfect_score(solver, start, ns)
        assert score == ((signed, 0) if signed > 0 else (0, -signed))
        assert capot == (abs(signed) > plain_most(start))
        assert solver.objectives == ([] if 0 < ns < MANILLE.total_points else ["score"])

    @pytest.mark.parametrize("pending, signed", [(False, 30), (True, 60)])
    def test_every_point_without_every_trick_is_no_capot(self, pending: bool, signed: int) -> None:
        """After the first trick of `capot_thrown`, N-S's trick of 7s, 8s and 9s, E-W can take every
        point, 60, but not every trick: a plain win of 60 - 30 = 30, doubled by a pending doubling."""
        obj = capot_thrown()
        position = start_of({**obj, "pending_doubling": True} if pending else obj)
        for card in obj["play"]:
            position = position.play(card)
        assert perfect_score(Solver(SMALL), position)[:2] == ((0, signed), False)

    def test_manille_pending_doubling_doubles_the_actual_score(self) -> None:
        obj = played_deal("manille", 2, pending_doubling=True)
        r = analyze(obj, Solver()).result
        assert r.score == score_deal(MANILLE, r.points, r.tricks, obj["trump"], True)
        assert analyze(obj, Solver()).to_json()["result"]["pending_doubling"] is True

    def test_without_a_trick_bonus_a_capot_is_every_trick_not_every_point(self) -> None:
        """Where tricks score nothing, a side can take every point and lose a trick of worthless
        cards. Deals that give N-S nearly every card with points: where a side takes every point,
        the capot is whether it can force every trick, which the same deal tells in a game that
        scores a point a trick and nothing for cards."""
        tricks_only = replace(MALILLA, name="malilla-tricks", points=(0,) * 10, trick_bonus=1)
        capots = []
        for seed in range(200):
            obj = _rich_north_south(seed)
            start = Position.from_json(obj, profile=NO_BONUS)
            value = Solver(SMALL).solve(start, mode="best").value
            points_ns = value if start.to_move % 2 == 0 else NO_BONUS.total_points - value
            if 0 < points_ns < NO_BONUS.total_points:
                continue
            tricks = Solver(SMALL).solve(Position.from_json({**obj, "game": tricks_only.name}, profile=tricks_only),
                                         mode="best").value
            tricks_ns = tricks if start.to_move % 2 == 0 else NO_BONUS.tricks - tricks
            _, capot, _ = perfect_score(Solver(SMALL), start, points_ns)
            assert capot == (tricks_ns in (0, NO_BONUS.tricks)), seed
            capots.append(capot)
        assert True in capots and False in capots

    def test_a_capot_counts_the_tricks_of_the_history(self) -> None:
        """Part-way through such deals (N-S's line, or random play), a side takes every trick of
        the deal when it took every trick so far and forces every one left, as the rules engine
        played out card by card finds; without the history, it cannot be told."""
        def sweeps(position: Position, side: int) -> bool:
            if position.won_flags >> (side ^ 1) & 1:
                return False
            if position.is_over:
                return True
            kept = (sweeps(position.play(c), side) for c in position.legal_moves())
            return any(kept) if position.to_move % 2 == side else all(kept)

        seen = set()
        for seed in range(40):
            start = Position.from_json(_rich_north_south(seed), profile=NO_BONUS)
            line = Solver(SMALL).solve(start, mode="best").line
            rng = random.Random(seed)
            position = start
            for i in range(28 + seed % 4):
                position = position.play(line[i] if seed % 3 else rng.choice(position.legal_moves()))
            swept, _ = _forces_every_trick(Solver(SMALL), position, None)
            assert swept == (sweeps(position, 0) or sweeps(position, 1)), seed
            seen.add((swept, position.won_flags))
        assert {(True, 1), (False, 1), (False, 3)} <= seen
        with pytest.raises(PositionError, match="^history: whether a side takes every trick needs"):
            _forces_every_trick(Solver(SMALL), replace(position, history=None), None)


# ------------------------------------------------------------------ output and input


class TestJson:
    def test_card_lines_have_the_issue_keys(self) -> None:
        analysis = analyze(played_deal("manille", 1), Solver())
        out = json.loads(json.dumps(analysis.to_json()))
        assert {"cards", "seats", "result"} <= set(out)
        assert set(out["seats"]) == set(SEATS)
        for c, card in zip(out["cards"], analysis.cards):
            assert {"card", "seat", "before", "after", "cost", "best"} <= set(c)
            assert c["cost"] == c["before"] - c["after"]
            assert c["best"] == list(card.best) and c["card"] in c["values"]
        assert out["seats"]["N"] == {"cards": 8, "cost": analysis.seats["N"].cost,
                                     "mistakes": analysis.seats["N"].mistakes}

    def test_summary_table(self) -> None:
        analyses = [analyze(played_deal("manille", s), Solver()) for s in (0, 1)]
        text = format_summary(analyses)
        assert text.splitlines()[0] == "2 deals analysed"
        row = next(line for line in text.splitlines() if line.startswith("E "))
        cost = sum(a.seats["E"].cost for a in analyses)
        assert row.split()[:4] == ["E", "16", str(sum(a.seats["E"].mistakes for a in analyses)), str(cost)]
        totals = SummaryTotals()
        totals.errors = 1
        assert "1 line answered with an error" in totals.format()


class TestPlayedDealInput:
    def base(self) -> dict:
        return played_deal("malilla", 3, 6)

    def test_round_trip(self) -> None:
        deal_ = PlayedDeal.from_json(json.dumps(self.base()))
        again = PlayedDeal.from_json(deal_.to_json())
        assert again == deal_
        assert PlayedDeal.from_json({**self.base(), "play": " ".join(self.base()["play"]).lower()}).play == \
            deal_.play

    @pytest.mark.parametrize("change,field,words", [
        ({"play": None}, "play", "missing"),
        ({"play": 7}, "play", "expected"),
        ({"play": ["7S", "11S"]}, "play[1]", "not in the malilla deck"),
        ({"play": ["2S"] * 41}, "play", "41 cards"),
        ({"dealer": "Q"}, "dealer", "not a seat"),
        ({"shown": "7Q"}, "shown", "not a suit"),
        ({"pending_doubling": True}, "pending_doubling", "no doubling"),
        ({"trick": ["2S"]}, "trick[0]", ""),
    ])
    def test_bad_input_names_the_field(self, change: dict, field: str, words: str) -> None:
        obj = {**self.base(), **change}
        with pytest.raises(PositionError) as err:
            PlayedDeal.from_json(obj)
        assert err.value.field == field and words in err.value.problem

    def test_a_card_already_played_is_named_by_its_field(self) -> None:
        obj = self.base()
        started = start_of(obj).play(obj["play"][0]).to_json()
        with pytest.raises(PositionError) as err:
            PlayedDeal.from_json({**started, "play": obj["play"][1:]})
        assert (err.value.field, err.value.problem) == ("trick", "a played deal starts from four full hands and "
                                                                 "no card played")

    def test_dealer_must_sit_before_the_leader(self) -> None:
        obj = self.base()
        wrong = SEATS[(SEATS.index(obj["dealer"]) + 1) % 4]
        with pytest.raises(PositionError, match="dealer: .* leads the first trick"):
            PlayedDeal.from_json({**obj, "dealer": wrong})
        inferred = {k: v for k, v in obj.items() if k not in ("dealer",)}
        assert SEATS[PlayedDeal.from_json(inferred).dealer] == obj["dealer"]

    def test_shown_card_belongs_to_the_dealer_and_fixes_trump(self) -> None:
        obj = self.base()
        start = start_of(obj)
        dealer = SEATS.index(obj["dealer"])
        other = start.hand((dealer + 1) % 4)[0]
        with pytest.raises(PositionError, match="not in the dealer"):
            PlayedDeal.from_json({**obj, "shown": other})
        off = next((c for c in start.hand(dealer) if c[-1] != obj["trump"]), None)
        assert off is not None
        with pytest.raises(PositionError, match="would make"):
            PlayedDeal.from_json({**obj, "shown": off})

    def test_a_dealer_with_no_bonus_still_shows_the_card_that_fixes_trump(self) -> None:
        """Its deal JSON, `shown` included, reads back as a position and as a played deal."""
        variant = replace(MALILLA, name="malilla-no-bonus", dealer_bonus=False)
        obj = dealt(variant, 1).to_deal_json()
        assert obj["shown"][-1] == obj["trump"]
        assert Position.from_json(obj, profile=variant).trump == obj["trump"]
        played = PlayedDeal.from_json({**obj, "play": []}, profile=variant)
        assert played.shown == obj["shown"]
        assert analyze(played, Solver(SMALL)).result.dealer_bonus is None

    def test_manille_has_no_shown_card_and_a_played_deal_starts_full(self) -> None:
        obj = played_deal("manille", 3, 4)
        with pytest.raises(PositionError, match="no dealer's bonus"):
            PlayedDeal.from_json({**obj, "shown": "10S"})
        later = start_of(obj)
        for c in obj["play"]:
            later = later.play(c)
        with pytest.raises(PositionError, match="full hands"):
            PlayedDeal.from_json({**later.to_json(), "play": []})

    def test_a_start_built_by_hand_without_a_history_is_analysed_as_read(self) -> None:
        read = PlayedDeal.from_json(played_deal("malilla", 3, 9))
        s = read.start
        by_hand = PlayedDeal(Position(s.profile, s.trump, s.hands, s.leader), read.play, read.dealer, read.shown)
        assert by_hand.start.history == ()   # the whole deck is in the hands: no trick completed
        assert analyze(by_hand, Solver(SMALL)).to_json() == analyze(read, Solver(SMALL)).to_json()
        later = read.start.play(read.play[0])
        with pytest.raises(PositionError, match="full hands"):
            analyze(PlayedDeal(replace(later, history=None), read.play[1:], read.dealer), Solver(SMALL))


def test_a_malilla_capot_with_perfect_play_is_noted_for_the_side_that_makes_it():
    """N (the dealer) holds every trump, so N-S take every trick with perfect play, which wins a Malilla match."""
    obj = {"game": "malilla", "trump": "S", "leader": "W", "dealer": "N", "shown": "7S", "play": [],
           "hands": {"N": "7S AS KS QS JS 6S 5S 4S 3S 2S", "S": "7H AH KH QH JH 6H 5H 4H 3H 2H",
                     "E": "7D AD KD QD JD 6D 5D 4D 3D 2D", "W": "7C AC KC QC JC 6C 5C 4C 3C 2C"}}
    result = analyze(obj, Solver(SMALL)).result
    assert (result.dd_capot, result.dd_points) == (True, (70, 0))
    assert result.notes[-1] == "with perfect play N-S take every trick, which wins the match at once"


def test_one_single_dummy_sample_gives_verdicts():
    """single_dummy=1 is one sampled layout a card, not none: each card with a choice gets its verdict."""
    analysis = analyze(played_deal("manille", 3), Solver(SMALL), single_dummy=1)
    assert analysis.cards[0].single_dummy is not None and analysis.cards[0].single_dummy["samples"] == 1
    assert sum(c.single_dummy is not None for c in analysis.cards) == 19


def test_a_seed_without_single_dummy_samples_is_refused():
    """It would change nothing: the command line and the service refuse it too."""
    with pytest.raises(ValueError, match=r"^seed: 5 has no effect with single_dummy 0 \(the default\)$"):
        analyze(played_deal("manille", 3), Solver(1 << 20), seed=5)
    assert analyze(played_deal("manille", 3), Solver(1 << 20), seed=0).cards[0].single_dummy is None


def test_single_dummy_samples_cannot_be_negative():
    with pytest.raises(ValueError, match=r"^single_dummy: -1 must be at least 0$"):
        analyze(played_deal("manille", 3), Solver(1 << 20), single_dummy=-1)


@pytest.fixture(scope="module")
def deal() -> PlayedDeal:
    return PlayedDeal.from_json(played_deal("malilla", 2))


class TestPlayedDealBuiltByHand:
    """A PlayedDeal made field by field gets the checks of `PlayedDeal.from_json` before it is analysed."""

    def test_a_deal_read_from_json_reads_back_the_same(self, deal) -> None:
        assert deal.checked() == deal

    @pytest.mark.parametrize("change, field", [
        (lambda d: dict(shown="7S" if d.shown != "7S" else "6S"), "shown"),
        (lambda d: dict(dealer=d.start.profile.seat_after(d.start.leader)), "dealer"),
        (lambda d: dict(dealer=7), "dealer"),
        (lambda d: dict(dealer="N"), "dealer"),
        (lambda d: dict(play=(d.play[0], d.play[0])), "play[1]"),
        (lambda d: dict(play=list(d.play)), "play"),
        (lambda d: dict(start=replace(d.start, leader=9)), "leader"),
        (lambda d: dict(start=d.start.play(d.start.legal_moves()[0])), "trick"),
    ])
    def test_bad_fields_are_named(self, deal, change, field) -> None:
        with pytest.raises(PositionError) as err:
            analyze(replace(deal, **change(deal)), Solver(1 << 22))
        assert err.value.field == field


def test_a_play_string_is_split_no_further_than_the_deck():
    obj = {**played_deal("malilla", 3), "play": "ZZ " * 10 ** 6}
    with pytest.raises(PositionError) as err:
        PlayedDeal.from_json(obj)
    assert (err.value.field, err.value.problem) == ("play", "more than 40 cards; the malilla deck has 40")



def test_a_malilla_trump_the_dealer_holds_none_of_is_refused_as_the_table_refuses_it():
    """The dealer's shown card fixes trump and goes back to the dealer's hand."""
    start = dealt("malilla", 68, dealer=0).to_position_json()
    assert not any(card.endswith("H") for card in start["hands"]["N"].split())
    with pytest.raises(PositionError) as err:
        PlayedDeal.from_json({**start, "trump": "H", "play": []})
    assert err.value.field == "trump" and err.value.problem.startswith("H, but the dealer N holds none")
