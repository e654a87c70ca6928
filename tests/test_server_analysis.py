"""AnalyzePlay and Table, the post-game RPCs, in process on a free loopback port:
each answer against the library's own analysis and table, illegal cards, bad
deals, deadlines, cancellation, the call limit, the token and the access log."""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import PROJECT, capot_thrown, start_of
from server import convert, tasks
from server._proto import pb
from server.client import Client, InvalidRequest, RemoteError
from server_fixtures import (assert_field_error, channel_to, cli_and_client, easy_position, full_deal, hard_deal,
                             illegal_play, module_fixtures, played_deal, running_server, solve_request, stub_of,
                             violations, wait_until)
from solver import Position, PositionError, get_profile
from solver.analysis import PlayedDeal, analyze
from solver.cards import SEATS
from solver.deal import deal
from solver.solve import Solver
from solver.table import read_table_input, table_of

SMALL = 1 << 22


server, stub, client = module_fixtures(workers=2, max_concurrent=8)


@pytest.fixture(scope="module")
def one_worker():
    """One worker: a freed worker shows as the next call being answered at once."""
    with running_server(workers=1, max_concurrent=4) as s:
        channel = channel_to(s)
        yield s, stub_of(channel)
        channel.close()


def analyze_request(obj: dict) -> pb.AnalyzePlayRequest:
    return pb.AnalyzePlayRequest(deal=convert.played_deal_message(obj))


def table_request(obj: dict) -> pb.TableRequest:
    return pb.TableRequest(deal=convert.deal_message(obj))


def library_analysis(obj: dict):
    return analyze(obj, Solver(SMALL))


def library_table(obj: dict):
    return table_of(obj, Solver(SMALL))


def assert_library_result(msg: Any, expected: Any, to_message: Callable, to_json: Callable) -> None:
    """The service's message is the library's result converted the same way (nodes aside:
    they depend on the table), and converts back to exactly the library's JSON, key order
    (best first) included."""
    assert msg.nodes > 0
    want = to_message(expected)
    want.nodes = msg.nodes
    assert msg == want
    assert json.dumps(to_json(msg)) == json.dumps(expected.to_json())


def seeded(game: str, seed: int, dealer: int) -> dict:
    """A full deal with its dealer, trump and leader."""
    return deal(get_profile(game), seed=seed, dealer=dealer).to_position_json()


def assert_worker_free(stub) -> None:
    """The (single) worker answers an easy solve at once: no search is left running."""
    start = time.monotonic()
    assert stub.Solve(solve_request(easy_position()), timeout=2).solution.value == 6
    assert time.monotonic() - start < 0.5


# ------------------------------------------------------------------ AnalyzePlay

ANALYSES = {
    "malilla-whole": played_deal("malilla", 1),
    "malilla-no-shown-card": {k: v for k, v in played_deal("malilla", 2).items() if k != "shown"},
    "malilla-partial": played_deal("malilla", 5, cards=9),
    "manille-whole": played_deal("manille", 0),
    "manille-pending-doubling": played_deal("manille", 3, pending_doubling=True),
    "manille-partial": played_deal("manille", 4, cards=13),
    "manille-nothing-played": played_deal("manille", 6, cards=0),
}


class TestAnalyzePlay:
    @pytest.mark.parametrize("name", list(ANALYSES))
    def test_the_library_analysis(self, stub, name):
        obj = ANALYSES[name]
        expected = library_analysis(obj)
        msg = stub.AnalyzePlay(analyze_request(obj), timeout=30).analysis
        assert_library_result(msg, expected, convert.analysis_message, convert.analysis_json)
        # the typed fields read directly against the dataclasses
        assert [c.card for c in msg.cards] == list(obj["play"])
        for got, c in zip(msg.cards, expected.cards):
            assert (got.card, got.seat, got.before, got.after, got.cost) == (c.card, c.seat, c.before, c.after, c.cost)
            assert list(got.best) == list(c.best)
            assert [(v.card, v.value, v.margin) for v in got.values] == \
                [(card, value, c.before - value) for card, value in c.values.items()]
            assert (got.deal.ns, got.deal.ew) == c.deal_value()
        for seat in SEATS:
            summary = getattr(msg.seats, seat.lower())
            assert (summary.cards, summary.cost, summary.mistakes) == \
                (expected.seats[seat].cards, expected.seats[seat].cost, expected.seats[seat].mistakes)
        r, e = msg.result, expected.result
        assert r.complete == e.complete
        assert (r.actual.points.ns, r.actual.points.ew) == e.points
        assert (r.actual.tricks.ns, r.actual.tricks.ew) == e.tricks
        assert (r.double_dummy.points.ns, r.double_dummy.points.ew) == e.dd_points
        assert (r.double_dummy.match_points.ns, r.double_dummy.match_points.ew) == e.dd_score
        assert (r.projected.ns, r.projected.ew) == e.projected
        assert r.actual.HasField("match_points") == (e.score is not None)
        if e.score is not None:
            assert (r.actual.match_points.ns, r.actual.match_points.ew) == e.score.score
            assert r.actual.multiplier == e.score.multiplier
        assert r.dealer == e.dealer and r.pending_doubling == e.pending_doubling
        assert r.bonus_rule == e.bonus_rule and r.HasField("dealer_bonus") == (e.dealer_bonus is not None)
        assert list(r.notes) == list(e.notes)
        assert [(t.leader, list(t.cards), t.winner if t.HasField("winner") else None, t.points)
                for t in msg.tricks] == [(t.leader, list(t.cards), t.winner, t.points) for t in expected.tricks]
        assert not msg.HasField("illegal")

    def test_the_cases_cover_what_they_claim(self):
        """The parametrized deals reach every optional part of the message."""
        results = {name: library_analysis(obj).result for name, obj in ANALYSES.items()}
        assert results["malilla-whole"].complete and results["malilla-whole"].dealer_bonus is not None
        assert results["malilla-no-shown-card"].bonus_rule and results["malilla-no-shown-card"].dealer_bonus is None
        assert not results["malilla-partial"].complete and results["malilla-partial"].notes
        assert results["manille-pending-doubling"].pending_doubling
        assert results["manille-nothing-played"].projected == results["manille-nothing-played"].dd_points

    @pytest.mark.parametrize("game", ["malilla", "manille"])
    def test_an_illegal_card_is_an_answer_and_stops_the_analysis(self, stub, game):
        obj, index, rule = illegal_play(game, 0)
        assert len(obj["play"]) > index + 1   # cards follow the illegal one
        expected = library_analysis(obj)
        msg = stub.AnalyzePlay(analyze_request(obj), timeout=30).analysis
        assert msg.HasField("illegal")
        seat = expected.illegal.seat
        assert (msg.illegal.index, msg.illegal.card, msg.illegal.seat, msg.illegal.rule) == \
            (index, obj["play"][index], seat, rule)
        assert seat in rule
        assert len(msg.cards) == index   # the analysis stopped at the illegal card
        assert json.dumps(convert.analysis_json(msg)) == json.dumps(expected.to_json())
        # strict Malilla: the illegal card loses the match; Manille only notes it
        assert msg.result.HasField("penalty") == (game == "malilla")
        if game == "malilla":
            assert msg.result.penalty.side == expected.result.penalty["side"]
        else:
            assert any("illegally" in note for note in msg.result.notes)

    def test_a_card_the_seat_does_not_hold_is_a_bad_deal(self, stub):
        obj = played_deal("manille", 8)
        start = start_of(obj)
        elsewhere = start.hand(SEATS[(start.to_move + 2) % 4])[0]   # the partner's card
        obj = {**obj, "play": [elsewhere]}
        with pytest.raises(grpc.RpcError) as info:
            stub.AnalyzePlay(analyze_request(obj), timeout=10)
        assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert violations(info.value) == [
            ("deal.play[0]", f"{SEATS[start.to_move]} plays {elsewhere}, which {SEATS[(start.to_move + 2) % 4]} holds")]

    def test_the_client_gives_the_library_json(self, client):
        obj = played_deal("manille", 9)
        expected = library_analysis(obj).to_json()
        assert client.analyze_play(obj) == expected
        assert client.analyze_play(json.dumps(obj)) == expected
        assert client.analyze_play(PlayedDeal.from_json(obj)) == expected
        spaced = {**obj, "play": " ".join(obj["play"])}   # the library's other spelling of play
        assert client.analyze_play(spaced) == expected


SCORE_ANALYSES = {
    "capot-thrown": capot_thrown(),
    "manille-whole": played_deal("manille", 0),
    "manille-nothing-played": played_deal("manille", 6, cards=0),
    "malilla-partial": played_deal("malilla", 5, cards=9),
}
VERDICTS = played_deal("manille", 2, cards=8)   # its unforced cards get single-dummy verdicts


class TestAnalyzePlayOptions:
    @pytest.mark.parametrize("name", list(SCORE_ANALYSES))
    def test_the_deal_score_objective(self, stub, name):
        obj = SCORE_ANALYSES[name]
        expected = analyze(obj, Solver(SMALL), objective="score")
        request = pb.AnalyzePlayRequest(deal=convert.played_deal_message(obj), objective=pb.OBJECTIVE_SCORE)
        msg = stub.AnalyzePlay(request, timeout=30).analysis
        assert_library_result(msg, expected, convert.analysis_message, convert.analysis_json)
        assert msg.objective == pb.OBJECTIVE_SCORE
        assert [(c.cost, c.loses_capot) for c in msg.cards] == [(c.cost, c.loses_capot) for c in expected.cards]

    def test_a_capot_thrown_away_is_flagged_in_points(self, stub):
        msg = stub.AnalyzePlay(analyze_request(capot_thrown()), timeout=30).analysis
        assert msg.objective == pb.OBJECTIVE_POINTS
        assert [(c.cost, c.loses_capot) for c in msg.cards] == [(0, True), (0, False), (0, False), (0, False)]
        assert convert.analysis_json(msg)["cards"][0]["loses_capot"] is True

    def test_single_dummy_verdicts(self, stub):
        expected = analyze(VERDICTS, Solver(SMALL), single_dummy=3, seed=5)
        request = pb.AnalyzePlayRequest(deal=convert.played_deal_message(VERDICTS), single_dummy=3, seed=5)
        msg = stub.AnalyzePlay(request, timeout=60).analysis
        assert_library_result(msg, expected, convert.analysis_message, convert.analysis_json)
        assert [c.HasField("single_dummy") for c in msg.cards] == [c.single_dummy is not None for c in expected.cards]
        assert any(c.HasField("single_dummy") for c in msg.cards)
        request.ClearField("seed")   # unset: seed 0
        unseeded = stub.AnalyzePlay(request, timeout=60).analysis
        assert convert.analysis_json(unseeded) == analyze(VERDICTS, Solver(SMALL), single_dummy=3).to_json()

    BAD_OPTIONS = [
        (dict(objective=7), [("objective", "7 is not an Objective (OBJECTIVE_POINTS or OBJECTIVE_SCORE)")]),
        (dict(single_dummy=-1), [("single_dummy", "-1 is not between 0 and 10000")]),
        (dict(single_dummy=10001), [("single_dummy", "10001 is not between 0 and 10000")]),
        (dict(seed=3), [("seed", "no effect with single_dummy 0 (the default)")]),
        (dict(objective=9, seed=0, trump="Z"), [("objective", "9 is not an Objective (OBJECTIVE_POINTS or "
                                                             "OBJECTIVE_SCORE)"),
                                                ("seed", "no effect with single_dummy 0 (the default)"),
                                                ("deal.trump", "'Z' is not a trump (S H D C or NT)")]),
    ]

    @pytest.mark.parametrize("changes,expected", BAD_OPTIONS, ids=[str(i) for i in range(len(BAD_OPTIONS))])
    def test_bad_options_are_named(self, stub, changes, expected):
        changes = dict(changes)
        obj = bad_deal(MANILLE_PLAYED, trump=changes.pop("trump", MANILLE_PLAYED["trump"]))
        deal_msg = convert.played_deal_message(obj)
        with pytest.raises(grpc.RpcError) as info:
            stub.AnalyzePlay(pb.AnalyzePlayRequest(deal=deal_msg, **changes), timeout=10)
        assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert violations(info.value) == expected

    def test_the_client_passes_the_options(self, client):
        obj = capot_thrown()
        assert client.analyze_play(obj, objective="score") == \
            analyze(obj, Solver(SMALL), objective="score").to_json()
        assert client.analyze_play(VERDICTS, single_dummy=3, seed=5) == \
            analyze(VERDICTS, Solver(SMALL), single_dummy=3, seed=5).to_json()
        with pytest.raises(ValueError, match=r"^objective: 'match' is not one of points, score$"):
            client.analyze_play(obj, objective="match")
        with pytest.raises(InvalidRequest) as info:
            client.analyze_play(obj, seed=3)
        assert info.value.violations == [("seed", "no effect with single_dummy 0 (the default)")]


def bad_deal(obj: dict, **changes) -> dict:
    """`obj` with fields replaced (None: removed); ``hand_E=...`` replaces (or removes) a hand."""
    out = {**obj, "hands": dict(obj["hands"])}
    for key, value in changes.items():
        if key.startswith("hand_"):
            if value is None:
                del out["hands"][key[5:]]
            else:
                out["hands"][key[5:]] = value
        elif value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


MALILLA_PLAYED = played_deal("malilla", 1, cards=8)   # dealer E, shown card in E's hand
MANILLE_PLAYED = played_deal("manille", 1, cards=8)


def short(hand: str) -> str:
    """A hand one card short (its own cards: no card appears twice)."""
    return " ".join(hand.split()[1:])


class TestAnalyzePlayBadRequests:
    CASES = [
        # (base, changes, field, words in the problem)
        ("malilla", dict(play=["AS", "ZZ"]), "deal.play[1]", "'ZZ' is not a card"),
        ("malilla", dict(play=["9S"]), "deal.play[0]", "not in the malilla deck"),
        ("malilla", dict(play=["AS"] * 41), "deal.play", "41 cards; a malilla deal has 40"),
        ("malilla", dict(game="whist"), "deal.game", "unknown game 'whist'"),
        ("manille", dict(trump="Z"), "deal.trump", "'Z' is not a trump"),
        ("manille", dict(leader="X"), "deal.leader", "'X' is not a seat"),
        ("manille", dict(hand_E=short(MANILLE_PLAYED["hands"]["E"])), "deal.hands", "do not fit"),
        ("manille", dict(hand_N=None), "deal.hands", "sizes N=0 E=8"),   # a hand left out is an empty one
        ("malilla", dict(dealer="N"), "deal.dealer", "leads the first trick"),
        ("malilla", dict(shown="QQ"), "deal.shown", "not a card"),
        ("manille", dict(shown="7S"), "deal.shown", "manille has no dealer's bonus"),
        ("malilla", dict(pending_doubling=True), "deal.pending_doubling", "malilla has no doubling after a tie"),
    ]

    @pytest.mark.parametrize("game,changes,field,words", CASES,
                             ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(CASES)])
    def test_deal_errors_name_the_field(self, stub, game, changes, field, words):
        base = MALILLA_PLAYED if game == "malilla" else MANILLE_PLAYED
        obj = bad_deal(base, **changes)
        with pytest.raises(grpc.RpcError) as info:
            stub.AnalyzePlay(analyze_request(obj), timeout=10)
        assert_field_error(info.value, field, words)

    def test_a_card_held_twice(self, stub):
        twice = MANILLE_PLAYED["hands"]["N"].split()[0]
        obj = bad_deal(MANILLE_PLAYED, hand_E=twice + " " + short(MANILLE_PLAYED["hands"]["E"]))
        with pytest.raises(grpc.RpcError) as info:
            stub.AnalyzePlay(analyze_request(obj), timeout=10)
        [(field, problem)] = violations(info.value)
        assert (field, problem) == ("deal.hands.e", f"{twice} appears twice (also in hands.N)")

    def test_the_bases_are_valid(self):
        for obj in (MALILLA_PLAYED, MANILLE_PLAYED):
            assert len(PlayedDeal.from_json(obj).play) == 8

    def test_no_deal(self, stub):
        with pytest.raises(grpc.RpcError) as info:
            stub.AnalyzePlay(pb.AnalyzePlayRequest(), timeout=10)
        assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert violations(info.value) == [("deal", "missing")]

    def test_the_client_refuses_a_bad_deal_before_the_call(self, client):
        with pytest.raises(PositionError) as info:
            client.analyze_play(bad_deal(MANILLE_PLAYED, trump="Z"))
        assert (info.value.field, info.value.problem) == ("trump", "'Z' is not a trump (S H D C or NT)")


# ------------------------------------------------------------------ Table

TABLES = {
    "malilla-dealer": seeded("malilla", 7, 1),
    "manille-dealer": seeded("manille", 5, 1),
    "manille-capot": seeded("manille", 103, 3),
    "manille-leader-only": full_deal("manille", 11),
    "manille-every-dealer": {k: v for k, v in seeded("manille", 12, 0).items()
                             if k in ("game", "hands")},
    "manille-pending-doubling": {**seeded("manille", 13, 2), "pending_doubling": True},
    "malilla-no-trump-given": {k: v for k, v in seeded("malilla", 9, 2).items() if k != "trump"},
    "malilla-shown": deal(get_profile("malilla"), seed=9, dealer=2).to_deal_json(),
}


class TestTable:
    @pytest.mark.parametrize("name", list(TABLES))
    def test_the_library_table(self, stub, name):
        obj = TABLES[name]
        expected = library_table(obj)
        msg = stub.Table(table_request(obj), timeout=30).table
        assert_library_result(msg, expected, convert.table_message, convert.table_json)
        # the typed fields read directly against the dataclass
        assert len(msg.table) == 4 * len(expected.trumps) == len(expected.entries)
        assert [(e.trump, e.leader, e.value, e.ns, e.ew) for e in msg.table] == \
            [(e.trump, e.leader, e.value, e.ns, e.ew) for e in expected.entries]
        assert {row.trump: {s: getattr(row, s.lower()) for s in SEATS} for row in msg.grid} == expected.grid()
        assert (msg.trump if msg.HasField("trump") else None) == expected.trump
        assert (msg.dealer if msg.HasField("dealer") else None) == expected.dealer
        assert len(msg.par) == len(expected.par)
        for got, par in zip(msg.par, expected.par):
            assert (got.dealer, got.side, got.leader, got.names_trump, list(got.best), got.score) == \
                (par.dealer, par.side, par.leader, par.names_trump, list(par.best), par.score)
            assert got.pending_doubling == par.pending_doubling
            assert [(c.trump, (c.points.ns, c.points.ew), (c.match_points.ns, c.match_points.ew), c.capot,
                     c.dealer_score) for c in got.choices] == \
                [(c.trump, c.points, c.score, c.capot, c.dealer_score) for c in par.choices]

    def test_the_cases_cover_what_they_claim(self):
        tables = {name: library_table(obj) for name, obj in TABLES.items()}
        assert tables["malilla-dealer"].trumps == ("S", "H", "D", "C")
        assert not tables["malilla-dealer"].par[0].names_trump
        assert tables["manille-dealer"].trumps == ("S", "H", "D", "C", "NT")
        assert tables["manille-dealer"].par[0].names_trump
        assert any(c.capot for c in tables["manille-capot"].par[0].choices)
        assert tables["manille-leader-only"].dealer is not None
        assert len(tables["manille-every-dealer"].par) == 4 and tables["manille-every-dealer"].trump is None
        assert tables["manille-pending-doubling"].par[0].pending_doubling
        assert tables["malilla-no-trump-given"].trump is None
        assert convert.deal_message(TABLES["malilla-shown"]).HasField("shown")

    def test_the_client_gives_the_library_json(self, client):
        obj = TABLES["manille-dealer"]
        expected = library_table(obj).to_json()
        assert client.table(obj) == expected
        assert client.table(json.dumps(obj)) == expected
        start = {k: v for k, v in obj.items() if k != "dealer"}   # a Position has no dealer: the one before the leader
        assert client.table(Position.from_json(start)) == library_table(start).to_json()

    def test_the_trumps_asked_for(self, stub):
        obj = TABLES["manille-capot"]
        expected = table_of(obj, Solver(SMALL), trumps=["D", "NT"])
        msg = stub.Table(pb.TableRequest(deal=convert.deal_message(obj), trumps=["nt", "d"]), timeout=30).table
        assert_library_result(msg, expected, convert.table_message, convert.table_json)
        assert [row.trump for row in msg.grid] == ["D", "NT"] and len(msg.table) == 8
        assert {c.trump for c in msg.par[0].choices} == {"D", "NT"}

    def test_a_par_with_no_trump_the_dealer_could_show(self, stub, client):
        """Malilla: the dealer N holds no heart, so par has no choice among the hearts asked for."""
        start = deal("malilla", 68, dealer=0).to_deal_json()
        expected = table_of(start, Solver(SMALL), trumps=["H"])
        assert expected.par[0].choices == ()
        msg = stub.Table(pb.TableRequest(deal=convert.deal_message(start), trumps=["H"]), timeout=30).table
        assert_library_result(msg, expected, convert.table_message, convert.table_json)
        assert client.table(start, trumps=["H"])["par"][0]["score"] is None

    @pytest.mark.parametrize("trumps, field, problem", [
        (["D", "X"], "trumps[1]", "'X' is not a trump (S H D C)"),
        (["NT"], "trumps[0]", "malilla has no no-trump deals (S H D C)"),
        (["c", "C"], "trumps[1]", "C is given twice"),
    ])
    def test_a_bad_trump_asked_for_is_named_by_its_place(self, stub, client, trumps, field, problem):
        request = pb.TableRequest(deal=convert.deal_message(TABLES["malilla-dealer"]), trumps=trumps)
        with pytest.raises(grpc.RpcError) as info:
            stub.Table(request, timeout=10)
        assert violations(info.value) == [(field, problem)]
        with pytest.raises(ValueError) as refused:
            client.table(TABLES["malilla-dealer"], trumps=trumps)
        assert str(refused.value) == f"{field}: {problem}"

    def test_the_client_asks_for_the_trumps(self, client):
        obj = TABLES["manille-dealer"]
        assert client.table(obj, trumps=("C",)) == table_of(obj, Solver(SMALL), trumps=["C"]).to_json()

    TABLE_CASES = [
        # (changes, field, words in the problem)
        (dict(game="whist"), "deal.game", "unknown game 'whist'"),
        (dict(trump="NT"), "deal.trump", "malilla has no no-trump deals"),
        (dict(leader="Q"), "deal.leader", "'Q' is not a seat"),
        (dict(dealer="N"), "deal.dealer", "leads the first trick"),
        (dict(dealer="X"), "deal.dealer", "'X' is not a seat"),
        (dict(hand_S=short(TABLES["malilla-dealer"]["hands"]["S"])), "deal.hands", "do not fit"),
        (dict(hand_W="AS 2S 3S 4S 5S 6S 7S JS QS KS AH"), "deal.hands.w", "holds at most 10"),
        (dict(shown="ZZ"), "deal.shown", "'ZZ' is not a card"),
        (dict(shown=TABLES["malilla-dealer"]["hands"]["N"].split()[0]), "deal.shown", "is not in the dealer E's hand"),
        (dict(shown=next(c for c in TABLES["malilla-dealer"]["hands"]["E"].split()
                         if c[-1] != TABLES["malilla-dealer"]["trump"])), "deal.shown", "would make"),
    ]

    @pytest.mark.parametrize("changes,field,words", TABLE_CASES,
                             ids=[f"{c[1]}-{i}" for i, c in enumerate(TABLE_CASES)])
    def test_deal_errors_name_the_field(self, stub, changes, field, words):
        base = TABLES["malilla-dealer"]
        read_table_input(base)   # the base is valid
        with pytest.raises(grpc.RpcError) as info:
            stub.Table(table_request(bad_deal(base, **changes)), timeout=10)
        assert_field_error(info.value, field, words)

    def test_no_deal(self, stub):
        with pytest.raises(grpc.RpcError) as info:
            stub.Table(pb.TableRequest(), timeout=10)
        assert violations(info.value) == [("deal", "missing")]

    def test_the_client_refuses_a_bad_deal_before_the_call(self, client):
        hands = TABLES["malilla-dealer"]["hands"]
        twice = hands["N"].split()[0]
        with pytest.raises(PositionError) as info:
            client.table(bad_deal(TABLES["malilla-dealer"], hand_E=twice + " " + short(hands["E"])))
        assert (info.value.field, info.value.problem) == ("hands.E", f"{twice} appears twice (also in hands.N)")


# ------------------------------------------------------------------ limits, deadlines, cancellation

def hard_played_deal() -> dict:
    """The hard deal with its first card played: the analysis's first search is the long one."""
    obj = hard_deal()
    return {**obj, "play": [Position.from_json(obj).legal_moves()[0]]}


class TestDeadlinesAndCancellation:
    @pytest.mark.parametrize("method", ["AnalyzePlay", "Table"])
    def test_a_deadline_that_passes(self, one_worker, method):
        server, stub = one_worker
        request = analyze_request(hard_played_deal()) if method == "AnalyzePlay" else table_request(hard_deal())
        start = time.monotonic()
        with pytest.raises(grpc.RpcError) as info:
            getattr(stub, method)(request, timeout=0.25)
        elapsed = time.monotonic() - start
        assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        assert elapsed < 0.8
        assert wait_until(lambda: server.service.admission.active == 0, 1.0)
        assert_worker_free(stub)

    def test_the_deadline_bounds_the_whole_table_not_each_search(self, one_worker):
        """A table of the hard deal is 16 searches (each trump, each leader), together about 2.5 s
        on the TEST_MEMORY table: a deadline of 0.4 s stops it within its time."""
        server, stub = one_worker
        request = table_request(hard_deal())
        start = time.monotonic()
        with pytest.raises(grpc.RpcError) as info:
            stub.Table(request, timeout=0.4)
        assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        assert time.monotonic() - start < 0.9
        assert wait_until(lambda: server.service.admission.active == 0, 1.0)
        assert_worker_free(stub)

    @pytest.mark.parametrize("method", ["AnalyzePlay", "Table"])
    def test_a_cancelled_call_frees_its_worker(self, one_worker, method):
        server, stub = one_worker
        request = analyze_request(hard_played_deal()) if method == "AnalyzePlay" else table_request(hard_deal())
        future = getattr(stub, method).future(request, timeout=30)
        assert wait_until(lambda: server.service.admission.active == 1)
        time.sleep(0.05)   # the search is running
        future.cancel()
        assert future.cancelled()
        assert wait_until(lambda: server.service.admission.active == 0, 1.0)
        assert_worker_free(stub)

    def test_the_call_limit_counts_them(self):
        with running_server(workers=1, max_concurrent=1) as server:
            channel = channel_to(server)
            stub = stub_of(channel)
            future = stub.Table.future(table_request(hard_deal()), timeout=30)
            assert wait_until(lambda: server.service.admission.active == 1)
            with pytest.raises(grpc.RpcError) as info:
                stub.AnalyzePlay(analyze_request(MANILLE_PLAYED), timeout=5)
            assert info.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            future.cancel()
            assert wait_until(lambda: server.service.admission.active == 0, 1.0)
            assert stub.AnalyzePlay(analyze_request(MANILLE_PLAYED), timeout=5).analysis.cards
            channel.close()

    def test_remote_error_of_the_client(self, one_worker):
        server, _ = one_worker
        with Client(f"127.0.0.1:{server.port}") as c:
            with pytest.raises(RemoteError) as info:
                c.table(hard_deal(), timeout=0.1)
        assert info.value.code is grpc.StatusCode.DEADLINE_EXCEEDED


def test_token_and_access_log(caplog):
    caplog.set_level(logging.INFO, logger="malilla_dd.access")
    with running_server(workers=1, token="s3cret") as server:
        target = f"127.0.0.1:{server.port}"
        with Client(target, timeout=10) as anonymous:
            for call in (lambda: anonymous.analyze_play(MANILLE_PLAYED),
                         lambda: anonymous.table(TABLES["manille-dealer"])):
                with pytest.raises(RemoteError) as info:
                    call()
                assert info.value.code is grpc.StatusCode.UNAUTHENTICATED
        with Client(target, timeout=10, token="s3cret") as c:
            assert c.analyze_play(MANILLE_PLAYED)["cards"]
            assert c.table(TABLES["manille-dealer"])["table"]
        assert wait_until(lambda: sum(r.name == "malilla_dd.access" for r in caplog.records) >= 4)
    lines = [r.getMessage().split(" latency_ms=")[0] for r in caplog.records if r.name == "malilla_dd.access"]
    assert lines == [
        "method=/malilla.dd.v1.DoubleDummy/AnalyzePlay status=UNAUTHENTICATED",
        "method=/malilla.dd.v1.DoubleDummy/Table status=UNAUTHENTICATED",
        "method=/malilla.dd.v1.DoubleDummy/AnalyzePlay status=OK",
        "method=/malilla.dd.v1.DoubleDummy/Table status=OK",
    ]


def test_client_command(server):
    """`python -m server.client analyze|table`: the JSON lines of `malilla-dd analyze|table` from the service."""
    def run(command: str, lines: list[str]) -> list[dict]:
        proc = subprocess.run([sys.executable, "-m", "server.client", command, "--address", f"127.0.0.1:{server.port}"],
                              input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60, cwd=PROJECT,
                              env={**os.environ, "PYTHONPATH": str(PROJECT)})
        assert proc.returncode == 0, proc.stderr
        return [json.loads(line) for line in proc.stdout.splitlines()]

    good = played_deal("manille", 14, cards=10)
    out = run("analyze", [json.dumps(good), json.dumps(bad_deal(good, trump="Z"))])
    assert out == [library_analysis(good).to_json(), {"error": "trump: 'Z' is not a trump (S H D C or NT)"}]
    deal_json = TABLES["manille-dealer"]
    assert run("table", [json.dumps(deal_json)]) == [library_table(deal_json).to_json()]


def test_client_command_table_trumps(server):
    """`python -m server.client table --trumps`: the lines of `malilla-dd table --trumps`, byte for byte."""
    lines = [json.dumps(TABLES[name]) for name in ("manille-dealer", "malilla-shown", "manille-capot")]
    cli, client = cli_and_client(server, "table", "--trumps", "H,nt", stdin="\n".join(lines) + "\n")
    assert (client.returncode, client.stdout) == (0, cli.stdout), client.stderr
    answers = [json.loads(line) for line in client.stdout.splitlines()]
    assert list(answers[0]["grid"]) == ["H", "NT"] and answers[1] == {"error": "trumps[1]: malilla has no no-trump "
                                                                                "deals (S H D C)"}
    _, client = cli_and_client(server, "solve", "--trumps", "H", stdin=lines[0] + "\n")
    assert (client.returncode, client.stderr.splitlines()[-1]) == \
        (2, "python -m server.client: error: --trumps: no effect with solve")


def test_client_command_takes_the_analysis_options(server):
    """`python -m server.client analyze --objective --single-dummy --seed`: the lines of `malilla-dd analyze`
    with the same options; an option of no effect is a usage error."""
    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "server.client", *args, "--address", f"127.0.0.1:{server.port}"],
                              input=stdin, capture_output=True, text=True, timeout=60, cwd=PROJECT,
                              env={**os.environ, "PYTHONPATH": str(PROJECT)})

    proc = run("analyze", "--objective", "score", "--single-dummy", "2", "--seed", "4",
               stdin=json.dumps(capot_thrown()) + "\n")
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line) for line in proc.stdout.splitlines()] == \
        [analyze(capot_thrown(), Solver(SMALL), objective="score", single_dummy=2, seed=4).to_json()]
    for args, message in ((("analyze", "--seed", "4"), "--seed: no effect with --single-dummy 0 (the default)"),
                          (("solve", "--single-dummy", "2"), "--single-dummy: no effect with solve"),
                          (("table", "--objective", "score"), "--objective: no effect with table"),
                          (("analyze", "--single-dummy", "-1"), "--single-dummy: -1 must be at least 0"),
                          (("analyze", "--single-dummy", "5000000000"),
                           "--single-dummy: 5000000000 is beyond the 32-bit whole numbers the service takes")):
        proc = run(*args)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.splitlines()[-1] == f"python -m server.client: error: {message}"


CARD = st.sampled_from(["7S", "AS", "10H", "QD", "2C", "KH", "JS", "9D", "XX", "", "1S", "AH", "8C"])
SEAT = st.sampled_from(["N", "e", "S", "W", "", "Z"])


@st.composite
def scrambled_deal(draw, table: bool):
    """A valid played deal (or full deal) with a few fields replaced by plausible or absurd values."""
    base = draw(st.sampled_from([MALILLA_PLAYED, MANILLE_PLAYED, played_deal("manille", 20, cards=3)]))
    msg = convert.deal_message(base) if table else convert.played_deal_message(base)
    for _ in range(draw(st.integers(1, 3))):
        which = draw(st.sampled_from(["game", "trump", "leader", "dealer", "hand", "pending", "shown"] +
                                     ([] if table else ["play"])))
        if which == "game":
            msg.game = draw(st.sampled_from(["malilla", "manille", "MANILLE", "", "bridge"]))
        elif which == "trump":
            msg.trump = draw(st.sampled_from(["S", "NT", "\u2665", "", "T"]))
        elif which == "leader":
            msg.leader = draw(SEAT)
        elif which == "dealer":
            msg.dealer = draw(SEAT)
        elif which == "hand":
            setattr(msg.hands, draw(st.sampled_from("nesw")), " ".join(draw(st.lists(CARD, max_size=11))))
        elif which == "pending":
            msg.pending_doubling = not msg.pending_doubling
        elif which == "play":
            del msg.play[:]
            msg.play.extend(draw(st.lists(CARD, max_size=6)))
        else:
            msg.shown = draw(CARD)
    return msg


class TestNoDealHurtsTheServer:
    SETTINGS = settings(max_examples=40, deadline=None,
                        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

    @staticmethod
    def check(call) -> None:
        try:
            call()
        except grpc.RpcError as e:
            assert e.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.DEADLINE_EXCEEDED), e
            if e.code() is grpc.StatusCode.INVALID_ARGUMENT:
                [(field, problem)] = violations(e)
                assert field.startswith("deal") and problem

    @SETTINGS
    @given(deal_msg=scrambled_deal(table=False))
    def test_analyze_play(self, stub, deal_msg):
        self.check(lambda: stub.AnalyzePlay(pb.AnalyzePlayRequest(deal=deal_msg), timeout=5))

    @SETTINGS
    @given(deal_msg=scrambled_deal(table=True))
    def test_table(self, stub, deal_msg):
        self.check(lambda: stub.Table(pb.TableRequest(deal=deal_msg), timeout=5))

    def test_still_serving_afterwards(self, stub):
        assert stub.Table(table_request(TABLES["manille-dealer"]), timeout=10).table.table


def test_the_most_single_dummy_samples_are_accepted():
    """The range of single_dummy is inclusive: tasks.MAX_ADVICE_SAMPLES samples are read, one more is refused."""
    deal_msg = convert.played_deal_message(MANILLE_PLAYED)
    task = tasks.read_analyze_request(pb.AnalyzePlayRequest(deal=deal_msg, single_dummy=tasks.MAX_ADVICE_SAMPLES))
    assert task.single_dummy == tasks.MAX_ADVICE_SAMPLES
    too_many = tasks.MAX_ADVICE_SAMPLES + 1
    with pytest.raises(tasks.BadRequest) as info:
        tasks.read_analyze_request(pb.AnalyzePlayRequest(deal=deal_msg, single_dummy=too_many))
    assert info.value.violations == [("single_dummy", f"{too_many} is not between 0 and {tasks.MAX_ADVICE_SAMPLES}")]
