"""The gRPC service, in process on a free loopback port: every RPC against the
library's own answers, and every way a request can be wrong."""
from __future__ import annotations

import dataclasses
import itertools
import json
import os
import queue
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import PROJECT, interrupted, load_vectors, played_deal
from server import convert, service, tasks
from server._proto import SERVICE_NAME, pb, pb_grpc
from server.client import Client, InvalidRequest, RemoteError, StreamError
from server.client import main as client_main
from server_fixtures import (assert_field_error, channel_to, cli_and_client, easy_position, full_deal,
                             hard_request_args, module_fixtures, solve_request, strip, vector_positions, violations)
from solver import Position, PositionError
from solver.solve import Solver
from solver.view import view_of


server, stub, client = module_fixtures(workers=2, max_concurrent=16)


def library(position: dict, mode: str = "all", objective: str = "points", target: int | None = None):
    return Solver(1 << 20).solve(Position.from_json(position), mode, objective, target)


def assert_same(msg: pb.Solution, expected) -> None:
    """A Solution message carries exactly the library's answer."""
    assert (msg.value if msg.HasField("value") else None) == expected.value
    assert msg.side == expected.side
    assert [(c.card, c.value, c.margin) for c in msg.cards] == \
        [(c.card, c.value, c.margin) for c in expected.cards]
    assert list(msg.best) == expected.best
    assert [tuple(g.cards) for g in msg.groups] == list(expected.groups)
    # the line is one optimal line; which one may depend on the worker's table
    assert len(msg.line) == len(expected.line) and msg.line[0] in expected.best
    assert msg.nodes > 0
    assert convert.mode_name(msg.mode) == expected.mode
    assert convert.objective_name(msg.objective) == expected.objective


POSITIONS = [strip(o) for o in vector_positions("endgames3", 12) + vector_positions("endgames6", 6)]
MANILLE_FULL = [strip(o) for o in load_vectors("full") if o["game"] == "manille"][:2]


class TestSolve:
    @pytest.mark.parametrize("index", range(len(POSITIONS)))
    def test_endgames_match_the_library_and_the_vectors(self, stub, index):
        position = POSITIONS[index]
        response = stub.Solve(solve_request(position, request_id=f"p{index}"), timeout=30)
        assert response.id == f"p{index}"
        assert response.WhichOneof("result") == "solution"
        assert_same(response.solution, library(position))
        expected = {k: v for k, v in vector_positions("endgames3", 12)[index].items()} \
            if index < 12 else vector_positions("endgames6", 6)[index - 12]
        assert {c.card: c.value for c in response.solution.cards} == expected["values"]
        assert response.solution.to_move == Position.from_json(position).to_json()["to_move"]

    def test_full_manille_deals(self, stub):
        assert MANILLE_FULL, "the shared vectors have no whole Manille deal"
        vectors = [o for o in load_vectors("full") if o["game"] == "manille"]
        for position, vector in zip(MANILLE_FULL, vectors):
            response = stub.Solve(solve_request(position), timeout=60)
            assert {c.card: c.value for c in response.solution.cards} == vector["values"]

    @pytest.mark.parametrize("mode", ["optimal", "best"])
    def test_modes(self, stub, mode):
        position = POSITIONS[13]
        response = stub.Solve(solve_request(position, convert.MODES[mode]), timeout=30)
        expected = library(position, mode)
        assert response.solution.value == expected.value
        values = library(position).values
        assert set(response.solution.best) <= {c for c, v in values.items() if v == expected.value}
        if mode == "optimal":
            assert set(response.solution.best) == {c for c, v in values.items() if v == expected.value}
        else:
            assert len(response.solution.best) == 1

    def test_target_mode(self, stub):
        position = POSITIONS[13]
        value = library(position).value
        yes = stub.Solve(solve_request(position, pb.MODE_TARGET, target=value), timeout=30).solution
        no = stub.Solve(solve_request(position, pb.MODE_TARGET, target=value + 1), timeout=30).solution
        assert yes.reached is True and yes.target == value and len(yes.cards) == 1
        assert not yes.HasField("value")
        assert no.HasField("reached") and no.reached is False and list(no.cards) == []

    @pytest.mark.parametrize("objective", ["points", "score"])
    def test_targets_mode(self, stub, client, objective):
        """Every card that reaches the target, as the library lists it, at each card's value and
        above them all; the client gives back the library's Solution."""
        start = Position.from_json(full_deal("manille", seed=11))
        position = start.play(start.legal_moves()[0]).to_json() if objective == "score" else POSITIONS[13]
        values = library(position, objective=objective).values
        for target in sorted(set(values.values())) + [max(values.values()) + 1]:
            request = solve_request(position, pb.MODE_TARGETS, convert.OBJECTIVES[objective], target=target)
            msg = stub.Solve(request, timeout=60).solution
            expected = library(position, "targets", objective, target)
            assert set(expected.best) == {c for c, v in values.items() if v >= target}
            assert list(msg.best) == [c.card for c in msg.cards] == expected.best
            assert (msg.reached, msg.target, msg.mode) == (bool(expected.best), target, pb.MODE_TARGETS)
            assert not msg.HasField("value") and list(msg.line) == []
            assert convert.solution_from_message(msg) == expected
            assert client.solve(position, "targets", objective, target) == expected

    def test_score_objective_at_the_start_of_a_deal(self, stub):
        position = full_deal("manille", seed=7)
        response = stub.Solve(solve_request(position, pb.MODE_BEST, pb.OBJECTIVE_SCORE), timeout=60)
        expected = library(position, "best", "score")
        assert response.solution.value == expected.value
        assert response.solution.objective == pb.OBJECTIVE_SCORE

    def test_a_pending_doubling_doubles_the_deal_score(self, stub, client):
        position = {**full_deal("manille", seed=7), "pending_doubling": True}
        response = stub.Solve(solve_request(position, pb.MODE_BEST, pb.OBJECTIVE_SCORE), timeout=60)
        expected = library(position, "best", "score")
        assert response.solution.value == expected.value == 2 * library(full_deal("manille", seed=7), "best",
                                                                          "score").value
        assert client.solve(position, mode="best", objective="score").value == expected.value

    def test_history_is_read(self, stub):
        """A position part-way through a deal, with its history, solved for the deal score."""
        start = Position.from_json(full_deal("manille", seed=11))
        p = start
        for _ in range(5):
            p = p.play(p.legal_moves()[0])
        obj = p.to_json()
        assert obj["history"] and obj["trick"]
        response = stub.Solve(solve_request(obj, pb.MODE_ALL, pb.OBJECTIVE_SCORE), timeout=60)
        assert_same(response.solution, library(obj, "all", "score"))

    def test_unspecified_mode_and_objective_mean_all_and_points(self, stub):
        position = POSITIONS[0]
        response = stub.Solve(pb.SolveRequest(position=convert.position_message(position)), timeout=30)
        assert_same(response.solution, library(position))

    def test_client_returns_library_solutions(self, client):
        """The client takes a Position, the position JSON or its text, and gives back the
        library's own Solution."""
        for position in (Position.from_json(POSITIONS[3]), POSITIONS[4], json.dumps(POSITIONS[5])):
            got = client.solve(position)
            expected = library(position.to_json() if isinstance(position, Position) else
                               json.loads(position) if isinstance(position, str) else position)
            assert got == dataclasses.replace(expected, nodes=got.nodes, line=got.line)
            assert got.nodes > 0 and got.line[0] in expected.best

    def test_client_drops_a_byte_order_mark(self, client):
        text = json.dumps(POSITIONS[5])
        assert client.solve("\ufeff" + text).values == client.solve(text).values


class TestLegalMoves:
    @pytest.mark.parametrize("name", ["legal", "rules"])
    def test_vectors(self, stub, name):
        for obj in load_vectors(name)[:40]:
            response = stub.LegalMoves(pb.LegalMovesRequest(position=convert.position_message(strip(obj)),
                                                            lenient=True), timeout=10)
            assert list(response.legal) == obj["legal"], obj
            assert response.to_move == obj["to_move"]

    def test_strict_by_default(self, stub):
        uneven = bad(MALILLA_MID, hand_W="KC 5C 3C")   # W holds one card too many
        strict = pb.LegalMovesRequest(position=convert.position_message(uneven))
        with pytest.raises(grpc.RpcError) as info:
            stub.LegalMoves(strict, timeout=10)
        assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert violations(info.value)[0][0] == "position.hands"
        lenient = pb.LegalMovesRequest(position=convert.position_message(uneven), lenient=True)
        assert list(stub.LegalMoves(lenient, timeout=10).legal) == ["KS"]

    def test_client(self, client):
        obj = load_vectors("rules")[0]
        assert client.legal_moves(strip(obj), lenient=True) == obj["legal"]


def perft_request(position: dict, depth: int, lenient: bool = False) -> pb.PerftRequest:
    return pb.PerftRequest(position=convert.position_message(position), depth=depth, lenient=lenient)


class TestPerft:
    def test_counts_match_the_library(self, stub):
        for obj, depth in ((load_vectors("full")[0], 8), (MANILLE_FULL[0], 7), (POSITIONS[14], 5)):
            expected = Solver(1 << 20).perft(Position.from_json(strip(obj)), depth)
            response = stub.Perft(perft_request(strip(obj), depth), timeout=30)
            assert (response.depth, response.total) == (depth, expected.total)
            assert [(cc.card, cc.count) for cc in response.cards] == list(expected.cards.items())

    def test_strict_by_default(self, stub):
        uneven = bad(MALILLA_MID, hand_W="KC 5C 3C")   # W holds one card too many
        with pytest.raises(grpc.RpcError) as info:
            stub.Perft(perft_request(uneven, 2), timeout=10)
        assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert violations(info.value)[0][0] == "position.hands"
        response = stub.Perft(perft_request(uneven, 2, lenient=True), timeout=10)
        assert convert.perft_from_message(response) == Solver(1 << 20).perft(uneven, 2, strict=False)

    @pytest.mark.parametrize("depth, problem", [
        (0, "0 must be at least 1"),
        (-5, "-5 must be at least 1"),
        (10, "10 is more than the 9 cards left to play"),
    ])
    def test_a_depth_outside_the_cards_left_is_refused_by_name(self, stub, depth, problem):
        with pytest.raises(grpc.RpcError) as info:
            stub.Perft(perft_request(MALILLA_MID, depth), timeout=10)
        assert_field_error(info.value, "depth", problem)

    def test_a_bad_or_missing_position_is_refused_by_name(self, stub):
        with pytest.raises(grpc.RpcError) as info:
            stub.Perft(perft_request(bad(MALILLA_MID, leader="Q"), 2), timeout=10)
        assert_field_error(info.value, "position.leader", "'Q' is not a seat")
        with pytest.raises(grpc.RpcError) as info:
            stub.Perft(pb.PerftRequest(depth=0), timeout=10)
        assert violations(info.value) == [("position", "missing"), ("depth", "0 must be at least 1")]

    def test_client(self, client):
        obj = strip(load_vectors("full")[1])
        assert client.perft(obj, 6) == Solver(1 << 20).perft(Position.from_json(obj), 6)
        with pytest.raises(ValueError, match="^depth: 41 is more than the 40 cards left to play$"):
            client.perft(obj, 41)   # refused before the call
        uneven = bad(MALILLA_MID, hand_W="KC 5C 3C")
        assert client.perft(uneven, 3, lenient=True) == Solver(1 << 20).perft(uneven, 3, strict=False)

    def test_the_client_takes_a_timeout_where_the_library_does(self, client):
        """The third argument is the timeout in both; the hand-size switch is a keyword only."""
        obj = strip(load_vectors("full")[1])
        assert client.perft(obj, 4, 30.0) == Solver(1 << 20).perft(Position.from_json(obj), 4, 30.0)
        assert client.legal_moves(obj, 30.0) == Position.from_json(obj).legal_moves()
        with pytest.raises(TypeError):
            client.perft(obj, 4, None, True)


class TestSolveStream:
    def test_in_order_with_ids(self, stub):
        requests = [solve_request(p, request_id=f"id-{i}") for i, p in enumerate(POSITIONS)]
        responses = list(stub.SolveStream(iter(requests), timeout=60))
        assert [r.id for r in responses] == [f"id-{i}" for i in range(len(POSITIONS))]
        for position, response in zip(POSITIONS, responses):
            assert_same(response.solution, library(position))

    def test_a_bad_item_is_answered_and_the_stream_goes_on(self, stub):
        bad = dict(POSITIONS[1], trump="X")
        requests = [solve_request(POSITIONS[0], request_id="a"), solve_request(bad, request_id="b"),
                    pb.SolveRequest(id="c"), solve_request(POSITIONS[2], request_id="d")]
        responses = list(stub.SolveStream(iter(requests), timeout=30))
        assert [r.id for r in responses] == ["a", "b", "c", "d"]
        assert [r.WhichOneof("result") for r in responses] == ["solution", "error", "error", "solution"]
        assert responses[1].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert [(v.field, v.description) for v in responses[1].error.field_violations] == \
            [("position.trump", "'X' is not a trump (S H D C)")]
        assert responses[2].error.field_violations[0].field == "position"
        assert_same(responses[3].solution, library(POSITIONS[2]))

    def test_an_id_too_long_to_echo_is_refused_in_its_place(self, stub):
        """The answer echoes the id, so one over tasks.MAX_ID would make the answer itself
        too large for a server with a small message limit."""
        longest = "x" * tasks.MAX_ID
        requests = [solve_request(POSITIONS[0], request_id=longest + "y"),
                    solve_request(POSITIONS[0], request_id=longest)]
        responses = list(stub.SolveStream(iter(requests), timeout=30))
        assert [r.id for r in responses] == ["", longest]
        assert [(v.field, v.description) for v in responses[0].error.field_violations] == \
            [("id", f"{tasks.MAX_ID + 1} characters, more than {tasks.MAX_ID}")]
        assert_same(responses[1].solution, library(POSITIONS[0]))
        with pytest.raises(grpc.RpcError) as info:
            stub.Solve(requests[0], timeout=10)
        assert_field_error(info.value, "id", f"more than {tasks.MAX_ID}")

    def test_an_item_refused_by_the_solver_is_answered_and_the_stream_goes_on(self, stub):
        """The deal score of a position without its history is refused when it is solved,
        not when it is read; that item still gets its own error."""
        requests = [solve_request(MALILLA_MID, objective=pb.OBJECTIVE_SCORE, request_id="a"),
                    solve_request(POSITIONS[0], request_id="b")]
        responses = list(stub.SolveStream(iter(requests), timeout=30))
        assert [r.id for r in responses] == ["a", "b"]
        assert [(v.field, v.description) for v in responses[0].error.field_violations] == \
            [("position.history", "the deal-score objective needs the completed tricks "
                                  "(or a position at the start of the deal)")]
        assert_same(responses[1].solution, library(POSITIONS[0]))

    def test_many_items_good_and_bad_in_order(self, stub):
        requests = []
        for i in range(60):
            if i % 3 == 1:
                requests.append(pb.SolveRequest(id=f"bad-{i}", position=convert.position_message(
                    bad(MALILLA_MID, leader="X"))))
            else:
                requests.append(solve_request(POSITIONS[i % len(POSITIONS)], request_id=f"ok-{i}"))
        responses = list(stub.SolveStream(iter(requests), timeout=60))
        assert [r.id for r in responses] == [r.id for r in requests]
        for i, response in enumerate(responses):
            if i % 3 == 1:
                assert response.error.field_violations[0].field == "position.leader"
            else:
                assert {c.card: c.value for c in response.solution.cards} == \
                    library(POSITIONS[i % len(POSITIONS)]).values

    def test_empty_stream(self, stub):
        assert list(stub.SolveStream(iter([]), timeout=10)) == []

    def test_ping_pong(self, stub):
        """A client that waits for each answer before sending the next request is served."""
        outbox: queue.Queue = queue.Queue()
        done = object()

        def requests():
            while (item := outbox.get()) is not done:
                yield item

        responses = stub.SolveStream(requests(), timeout=30)
        for i, position in enumerate(POSITIONS[:5]):
            outbox.put(solve_request(position, request_id=str(i)))
            response = next(responses)
            assert response.id == str(i)
            assert_same(response.solution, library(position))
        outbox.put(done)
        assert list(responses) == []

    def test_client_solve_many(self, client):
        items = [("x", POSITIONS[6]), ("y", {"game": "malilla"}), ("z", POSITIONS[7])]
        out = list(client.solve_many(items))
        assert [i for i, _ in out] == ["x", "y", "z"]
        assert out[0][1].values == library(POSITIONS[6]).values
        assert isinstance(out[1][1], StreamError) and out[1][1].violations[0][0] == "position.trump"
        assert out[2][1].values == library(POSITIONS[7]).values

    def test_client_solve_many_answers_text_that_is_not_json_in_its_place(self, client):
        good = json.dumps(POSITIONS[6])
        items = [("a", "not json"), ("b", good), ("c", '{"game": "mal\\ud800"}'), ("d", "[1"), ("e", good)]
        out = list(client.solve_many(items))
        assert [i for i, _ in out] == ["a", "b", "c", "d", "e"]
        for i in (0, 2, 3):
            assert isinstance(out[i][1], StreamError) and out[i][1].violations[0][0] == "position"
        assert "lone surrogate" in out[2][1].message
        assert out[1][1].values == out[4][1].values == library(POSITIONS[6]).values

    def test_client_solve_many_checks_the_fields_the_request_has_none_for(self, client):
        """The request has no field for `dealer`, `shown` or `play`, and a bool for `pending_doubling`:
        the client checks each item as `solve` does, answering a bad one in its place."""
        items = [("a", {**POSITIONS[6], "dealer": "X"}), ("b", POSITIONS[6]), ("c", {**POSITIONS[6], "shown": "ZZ"}),
                 ("d", {**POSITIONS[6], "pending_doubling": "yes"}), ("e", {**POSITIONS[6], "play": []})]
        out = list(client.solve_many(items))
        assert [(i, type(a)) for i, a in out] == [("a", StreamError), ("b", type(library(POSITIONS[6]))),
                                                   ("c", StreamError), ("d", StreamError), ("e", StreamError)]
        assert out[0][1].violations == [("position.dealer", "'X' is not a seat (N E S W)")]
        assert [a.violations[0][0] for _, a in out[2:]] == ["position.shown", "position.pending_doubling",
                                                           "position.play"]


def bad(position: dict, **changes) -> dict:
    out = {**position, "hands": dict(position["hands"])}
    for key, value in changes.items():
        if key.startswith("hand_"):
            out["hands"][key[5:]] = value
        elif value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


MALILLA_MID = {"game": "malilla", "trump": "D", "hands": {"N": "KS AH 2D", "W": "KC 5C", "S": "2S 4H",
                                                          "E": "7D QC"},
               "leader": "W", "trick": ["JS", "6S", "4D"], "led_suits": "SHC"}


class TestBadRequests:
    CASES = [
        # (position changes, field, words in the problem)
        (dict(game="whist"), "position.game", "unknown game 'whist'"),
        (dict(trump="Z"), "position.trump", "'Z' is not a trump"),
        (dict(trump=None), "position.trump", "missing (S H D C)"),   # unset: proto3 reads it as ""
        (dict(game=None), "position.game", "missing (malilla or manille)"),
        (dict(leader=None), "position.leader", "missing: the seat that leads"),
        (dict(hand_E="7D QC KS"), "position.hands.e", "KS appears twice"),
        (dict(hand_N="KS AH 2D 9D"), "position.hands.n", "'9D' is not in the malilla deck"),
        (dict(leader="X"), "position.leader", "'X' is not a seat"),
        (dict(hand_E="7D 3S"), "position.trick[2]", "E may not play 4D"),
        (dict(led_suits="SS"), "position.led_suits", "S is listed twice"),
        (dict(to_move="E"), "position.to_move", "is E"),
        (dict(hand_W="KC 5C 3C"), "position.hands", "do not fit"),
        (dict(history=[["AS", "KS"]]), "position.history.tricks[0]", "2 cards; a completed trick has 4"),
        (dict(history=[[]] * 10 ** 5), "position.history", "100000 tricks; a malilla deal has 10"),
        (dict(trick=["AS"] * 10 ** 5), "position.trick", "100000 cards; a trick in progress has at most 3"),
    ]

    @pytest.mark.parametrize("changes,field,words", CASES, ids=[c[1] for c in CASES])
    def test_position_errors_name_the_field(self, stub, changes, field, words):
        assert Position.from_json(MALILLA_MID).legal_moves() == ["KS"]   # the base is valid
        request = solve_request(bad(MALILLA_MID, **changes))
        with pytest.raises(grpc.RpcError) as info:
            stub.Solve(request, timeout=10)
        assert_field_error(info.value, field, words)

    @pytest.mark.parametrize("game, tricks, words", [("manille", 9, "9 tricks; a manille deal has 8"),
                                                     ("whist", 11, "11 tricks; a malilla deal has 10")])
    def test_a_history_too_long_is_refused_for_its_own_game(self, stub, game, tricks, words):
        """By the deal of the game the message names, or of the game with the longest deals."""
        request = solve_request(bad(MALILLA_MID, history=[[]] * tricks))
        request.position.game = game
        with pytest.raises(grpc.RpcError) as info:
            stub.Solve(request, timeout=10)
        assert_field_error(info.value, "position.history", words)

    def test_history_card_path(self, stub):
        """An illegal card in the history is named by its trick and place."""
        p = Position.from_json(full_deal("manille", seed=3))
        for _ in range(8):
            p = p.play(p.legal_moves()[0])
        good = p.to_json()
        cards = [(i, j) for i in range(2) for j in range(4)]
        for a, b in itertools.combinations(cards, 2):
            obj = json.loads(json.dumps(good))
            h = obj["history"]
            h[a[0]][a[1]], h[b[0]][b[1]] = h[b[0]][b[1]], h[a[0]][a[1]]
            try:
                Position.from_json(obj)
            except PositionError as e:
                error = e
                if re.fullmatch(r"history\[\d+\]\[\d+\]", e.field):
                    break
        else:
            pytest.fail("no swap of two history cards makes an illegal play")
        expected = convert.field_path(error.field)
        assert re.fullmatch(r"position\.history\.tricks\[\d+\]\.cards\[\d+\]", expected)
        with pytest.raises(grpc.RpcError) as info:
            stub.Solve(solve_request(obj), timeout=10)
        assert violations(info.value) == [(expected, error.problem)]

    @pytest.mark.parametrize("request_,fields", [
        (pb.SolveRequest(), ["position"]),
        (solve_request(MALILLA_MID, mode=pb.MODE_TARGET), ["target"]),
        (solve_request(MALILLA_MID, mode=pb.MODE_TARGETS), ["target"]),
        (solve_request(MALILLA_MID, target=5), ["target"]),
        (pb.SolveRequest(position=convert.position_message(MALILLA_MID), mode=42), ["mode"]),
        (pb.SolveRequest(position=convert.position_message(MALILLA_MID), objective=9, mode=pb.MODE_TARGET),
         ["objective", "target"]),
        (solve_request(MALILLA_MID, objective=pb.OBJECTIVE_SCORE), ["position.history"]),
    ], ids=["no-position", "target-missing", "targets-target-missing", "target-without-mode", "mode",
            "objective+target", "score"])
    def test_option_errors(self, stub, request_, fields):
        with pytest.raises(grpc.RpcError) as info:
            stub.Solve(request_, timeout=10)
        assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert [f for f, _ in violations(info.value)] == fields

    def test_deal_already_over_is_refused(self, stub):
        empty = {"game": "manille", "trump": "H", "hands": {"N": "", "E": "", "S": "", "W": ""},
                 "leader": "N", "trick": []}
        with pytest.raises(grpc.RpcError) as info:
            stub.Solve(solve_request(empty), timeout=10)
        assert violations(info.value) == [("position.hands", "every hand is empty: nothing is left to play")]

    def test_legal_moves_errors(self, stub):
        with pytest.raises(grpc.RpcError) as info:
            stub.LegalMoves(pb.LegalMovesRequest(), timeout=10)
        assert violations(info.value) == [("position", "missing")]
        with pytest.raises(grpc.RpcError) as info:
            stub.LegalMoves(pb.LegalMovesRequest(position=convert.position_message(bad(MALILLA_MID, leader="Q"))),
                            timeout=10)
        assert violations(info.value)[0][0] == "position.leader"

    def test_client_refuses_a_bad_position_before_the_call(self, client):
        """With the library's own words, as `malilla-dd solve` prints them."""
        with pytest.raises(PositionError) as info:
            client.solve(bad(MALILLA_MID, trump="Z"))
        assert (info.value.field, info.value.problem) == ("trump", "'Z' is not a trump (S H D C)")

    @pytest.mark.parametrize("mode, target", [("target", None), ("targets", None), ("best", 5), ("all", 0)])
    def test_client_refuses_a_target_outside_the_target_modes_before_the_call(self, client, mode, target):
        """In the library's words, as for the other options (the service words it as the proto's modes)."""
        with pytest.raises(ValueError, match=r"^target: give a target exactly when mode is 'target' or 'targets'$"):
            client.solve(MALILLA_MID, mode=mode, target=target)

    def test_client_raises_invalid_request(self, client):
        """A request the library cannot check before the call (the service's own limit)."""
        obj = played_deal("malilla", 3)
        with pytest.raises(InvalidRequest) as info:
            list(client.advise(view_of(obj, obj["play"][:5]), samples=100000))
        assert isinstance(info.value, ValueError)
        assert info.value.violations == [("samples", "100000 is not between 1 and 10000")]

    @pytest.mark.parametrize("field, value, words", [
        ("game", 5, "unknown game '5'"),
        ("trick", [1, 2], "'1' is not a card"),
        ("hands", {"N": 5, "E": "", "S": "", "W": ""}, "'5' is not a card"),
    ])
    def test_values_of_another_type_are_sent_as_text_and_refused_by_name(self, stub, field, value, words):
        """The message's string fields take a value's JSON text: the server then names the field."""
        with pytest.raises(grpc.RpcError) as info:
            stub.Solve(solve_request(bad(MALILLA_MID, **{field: value})), timeout=10)
        [(path, problem)] = violations(info.value)
        assert path.startswith(f"position.{field}") and words in problem

    def test_client_refuses_a_misspelt_key_before_the_call(self, client):
        """The message has no field for it: sent, the key would be dropped without a word."""
        with pytest.raises(ValueError, match=r"^position: unknown key 'led_suit' \(did you mean led_suits\?\)$"):
            client.solve({**MALILLA_MID, "led_suit": "S"})

    @pytest.mark.parametrize("reader,call", [
        ("read_solve_request", lambda stub: stub.Solve(solve_request(easy_position()), timeout=10)),
        ("read_table_request", lambda stub: stub.Table(pb.TableRequest(), timeout=10)),
        ("read_advise_request", lambda stub: list(stub.Advise(pb.AdviseRequest(), timeout=10))),
        ("read_perft_request", lambda stub: stub.Perft(perft_request(easy_position(), 2), timeout=10)),
    ])
    def test_an_unexpected_failure_is_internal_and_the_server_goes_on(self, stub, monkeypatch, reader, call):
        def fail(request):
            raise RuntimeError("unexpected")
        monkeypatch.setattr(service, reader, fail)
        with pytest.raises(grpc.RpcError) as info:
            call(stub)
        assert info.value.code() is grpc.StatusCode.INTERNAL
        assert "the server goes on" in info.value.details()
        monkeypatch.undo()
        assert stub.Solve(solve_request(easy_position()), timeout=10).solution.value == 6

    @pytest.mark.parametrize("method, kind", [("Solve", "unary_unary"), ("LegalMoves", "unary_unary"),
                                              ("Perft", "unary_unary"), ("AnalyzePlay", "unary_unary"),
                                              ("Table", "unary_unary"), ("Advise", "unary_stream"),
                                              ("GeneratePuzzles", "unary_stream")])
    def test_bytes_that_are_not_a_request_are_invalid_argument(self, server, stub, method, kind):
        """Bad UTF-8 in a string field, a truncated message, garbage."""
        channel = channel_to(server)
        raw = getattr(channel, kind)(f"/{SERVICE_NAME}/{method}", request_serializer=None,
                                     response_deserializer=None)
        for payload in (b"\x0a\x05\x0a\x03\xff\xfe\xfd", b"\x0a\x05\x0a", b"\xff\xff\xff\xff"):
            with pytest.raises(grpc.RpcError) as info:
                answer = raw(payload, timeout=10)
                if kind == "unary_stream":
                    list(answer)
            assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT, (payload, info.value)
            article = "an" if method[0] in "AEIOU" else "a"
            assert info.value.details().startswith(f"not {article} {method}Request message")
            assert [field for field, _ in violations(info.value)] == [""]
        channel.close()

    def test_a_stream_item_that_is_not_a_request_is_answered_in_its_place(self, server):
        channel = channel_to(server)
        raw = channel.stream_stream(f"/{SERVICE_NAME}/SolveStream", request_serializer=None,
                                    response_deserializer=pb.SolveResponse.FromString)
        good = solve_request(easy_position(), request_id="a").SerializeToString()
        other = solve_request(easy_position(), request_id="b").SerializeToString()
        answers = list(raw(iter([good, b"\x0a\x05\x0a", other]), timeout=30))
        assert [a.id for a in answers] == ["a", "", "b"]
        assert answers[0].solution.value == answers[2].solution.value == 6
        assert answers[1].error.message.startswith("not a SolveRequest message")
        channel.close()

    def test_bytes_that_are_not_a_request_end_another_service_stream(self, server, stub):
        """Reflection's request stream: INVALID_ARGUMENT, not a handler failing on the item, nor
        gRPC's INTERNAL, after which the server would not finish stopping."""
        channel = channel_to(server)
        raw = channel.stream_stream("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                                    request_serializer=None, response_deserializer=None)
        with pytest.raises(grpc.RpcError) as info:
            list(raw(iter([b"\x0a\x05\x0a"]), timeout=10))
        assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert info.value.details().startswith("not a ServerReflectionRequest message")
        channel.close()
        assert stub.Solve(solve_request(easy_position()), timeout=10).solution.value == 6

    def test_garbage_bytes_do_not_hurt_the_server(self, server, stub):
        channel = channel_to(server)
        unknown = channel.unary_unary(f"/{SERVICE_NAME}/Nope")
        with pytest.raises(grpc.RpcError) as info:
            unknown(b"", timeout=10)
        assert info.value.code() is grpc.StatusCode.UNIMPLEMENTED
        channel.close()
        assert stub.Solve(solve_request(easy_position()), timeout=10).solution.value == 6

    def test_a_huge_string_in_any_field_is_named_in_a_short_error(self, stub):
        """Every string field of a good request of each call, set in turn to 20000 characters, is
        refused by name (all but the echoed request id): the problem quotes the value cut short, so
        that the rich status fits the call's metadata and reaches the client."""
        huge = "Q" * 20000
        played = played_deal("malilla", 3, 14)
        good = {
            "Solve": solve_request(easy_position(), request_id="a"),
            "LegalMoves": pb.LegalMovesRequest(position=convert.position_message(easy_position())),
            "Perft": perft_request(easy_position(), 2),
            "AnalyzePlay": pb.AnalyzePlayRequest(deal=convert.played_deal_message(played)),
            "Table": pb.TableRequest(deal=convert.deal_message(full_deal("manille", 5))),
            "Advise": pb.AdviseRequest(view=convert.view_message(view_of(played, played["play"])), samples=2),
            "GeneratePuzzles": pb.GeneratePuzzlesRequest(game="manille", count=1, seed=1),
        }
        tried = set()
        for name, request in good.items():
            call = getattr(stub, name)
            for path in string_fields(request):
                changed = type(request)()
                changed.CopyFrom(request)
                set_string(changed, path, huge)
                tried.add((name, ".".join(map(str, path))))
                try:
                    answer = call(changed, timeout=30)
                    list(answer) if name in ("Advise", "GeneratePuzzles") else answer
                except grpc.RpcError as e:
                    assert e.code() is grpc.StatusCode.INVALID_ARGUMENT, (name, path, e.details()[:80])
                    [(field, problem)] = violations(e)
                    assert re.split(r"[.\[]", field)[0] == path[0] and len(problem) < 150, (name, path, field, problem)
                else:
                    assert path == ("id",), (name, path)
        assert {("Solve", "position.hands.n"), ("Perft", "position.trick"), ("AnalyzePlay", "deal.play"), ("Advise", "view.shown"),
                ("GeneratePuzzles", "game"), ("Table", "deal.trump"), ("Table", "deal.shown"),
                ("Table", "trumps")} <= tried
        assert stub.Solve(solve_request(easy_position()), timeout=10).solution.value == 6


def string_fields(message, prefix: tuple = ()) -> Iterator[tuple]:
    """The paths of a message's string fields, through its sub-messages (a repeated one: its items)."""
    for f in message.DESCRIPTOR.fields:
        value = getattr(message, f.name)
        if f.type == FieldDescriptor.TYPE_STRING:
            yield prefix + (f.name,)
        elif f.type == FieldDescriptor.TYPE_MESSAGE and isinstance(value, Message):
            yield from string_fields(value, prefix + (f.name,))
        elif f.type == FieldDescriptor.TYPE_MESSAGE:
            for i, item in enumerate(value):
                yield from string_fields(item, prefix + (f.name, i))


def set_string(message, path: tuple, text: str) -> None:
    """Set the string field at `path` (a repeated one: its first item) to `text`."""
    for step in path[:-1]:
        message = message[step] if isinstance(step, int) else getattr(message, step)
    field = getattr(message, path[-1])
    if isinstance(field, str):
        setattr(message, path[-1], text)
    elif len(field):
        field[0] = text
    else:
        field.append(text)


CARD = st.sampled_from(["7S", "AS", "10H", "QD", "2C", "KH", "JS", "9D", "XX", "", "1S", "AH"])


@st.composite
def scrambled(draw):
    """A real position with a few fields replaced by plausible or absurd values."""
    base = draw(st.sampled_from(POSITIONS + [MALILLA_MID]))
    msg = convert.position_message(base)
    for _ in range(draw(st.integers(1, 3))):
        which = draw(st.sampled_from(["game", "trump", "leader", "trick", "hand", "led", "to_move", "history"]))
        if which == "game":
            msg.game = draw(st.sampled_from(["malilla", "manille", "MANILLE", "", "bridge"]))
        elif which == "trump":
            msg.trump = draw(st.sampled_from(["S", "NT", "♥", "", "T"]))
        elif which == "leader":
            msg.leader = draw(st.sampled_from(["N", "e", "", "Z"]))
        elif which == "trick":
            del msg.trick[:]
            msg.trick.extend(draw(st.lists(CARD, max_size=5)))
        elif which == "hand":
            seat = draw(st.sampled_from("nesw"))
            setattr(msg.hands, seat, " ".join(draw(st.lists(CARD, max_size=12))))
        elif which == "led":
            msg.led_suits = draw(st.text(alphabet="SHDCX ♠", max_size=5))
        elif which == "to_move":
            msg.to_move = draw(st.sampled_from(["N", "E", "S", "W", "?"]))
        else:
            msg.history.tricks.add(cards=draw(st.lists(CARD, max_size=5)))
    return msg


class TestNoRequestHurtsTheServer:
    @settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
    @given(position=scrambled(), mode=st.sampled_from([pb.MODE_ALL, pb.MODE_BEST, pb.MODE_TARGET, pb.MODE_TARGETS, 7]),
           target=st.one_of(st.none(), st.integers(-5, 80)))
    def test_scrambled_positions(self, stub, position, mode, target):
        request = pb.SolveRequest(position=position, mode=mode)
        if target is not None:
            request.target = target
        try:
            response = stub.Solve(request, timeout=5)
            assert response.solution.nodes >= 0
        except grpc.RpcError as e:
            assert e.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.DEADLINE_EXCEEDED), e
            if e.code() is grpc.StatusCode.INVALID_ARGUMENT:
                assert violations(e)
        try:
            stub.LegalMoves(pb.LegalMovesRequest(position=position, lenient=True), timeout=5)
        except grpc.RpcError as e:
            assert e.code() is grpc.StatusCode.INVALID_ARGUMENT, e

    def test_still_serving_afterwards(self, stub, client):
        assert client.health() == "SERVING"
        assert stub.Solve(solve_request(easy_position()), timeout=10).solution.value == 6


def test_remote_error_for_other_codes(server, stub):
    position, mode, objective = hard_request_args()
    with Client(f"127.0.0.1:{server.port}") as c:
        with pytest.raises(RemoteError) as info:
            c.solve(position, mode=convert.mode_name(mode), objective=convert.objective_name(objective),
                    timeout=0.05)
    assert info.value.code is grpc.StatusCode.DEADLINE_EXCEEDED
    assert not isinstance(info.value, InvalidRequest)


def test_client_solve_many_refuses_a_stream_that_ends_before_its_answers():
    """A server (not this one) whose SolveStream ends OK with an item sent but unanswered: the
    client raises a RemoteError naming it, rather than yielding the item with None."""
    class Short(pb_grpc.DoubleDummyServicer):
        def SolveStream(self, request_iterator, context):
            for request in request_iterator:
                if request.id == "a":
                    yield pb.SolveResponse(id="a", error=pb.Error(code=3, message="refused"))

    other = grpc.server(ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_DoubleDummyServicer_to_server(Short(), other)
    port = other.add_insecure_port("127.0.0.1:0")
    other.start()
    try:
        with Client(f"127.0.0.1:{port}", timeout=10) as c:
            answers = c.solve_many([("a", easy_position()), ("b", easy_position()), ("c", "not json")])
            request_id, answer = next(answers)
            assert request_id == "a" and isinstance(answer, StreamError) and answer.message == "refused"
            with pytest.raises(RemoteError) as info:
                next(answers)
    finally:
        other.stop(0)
    assert info.value.code is grpc.StatusCode.INTERNAL
    assert "'b'" in info.value.details


@pytest.mark.parametrize("timeout", [0, -1.0, float("nan"), float("inf")])
def test_the_client_refuses_a_timeout_that_is_no_deadline(server, timeout):
    """Not a call that fails at once with DEADLINE_EXCEEDED (or never ends): a ValueError naming it."""
    with pytest.raises(ValueError, match="^timeout: .* is not a positive number of seconds$"):
        Client(f"127.0.0.1:{server.port}", timeout=timeout)
    with Client(f"127.0.0.1:{server.port}", timeout=10) as c:
        with pytest.raises(ValueError, match="^timeout: "):
            c.solve(easy_position(), timeout=timeout)
        with pytest.raises(ValueError, match="^timeout: "):
            list(c.solve_many([("a", easy_position())], timeout=timeout))
        assert c.solve(easy_position()).value == 6


@pytest.mark.parametrize("timeout", [1e9, 1e12, 1e300])
def test_a_timeout_of_centuries_is_no_deadline(server, timeout):
    """gRPC's clock in nanoseconds would overflow: such a call used to fail at once."""
    with Client(f"127.0.0.1:{server.port}", timeout=timeout) as c:
        assert c.solve(easy_position()).value == 6
    with Client(f"127.0.0.1:{server.port}") as c:
        assert c.solve(easy_position(), timeout=timeout).value == 6


class TestClientCommand:
    """`python -m server.client`, the README's way to query the service from the shell."""

    def run(self, server, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "server.client", *args, "--address", f"127.0.0.1:{server.port}"],
                              input=stdin, capture_output=True, text=True, timeout=60, cwd=PROJECT,
                              env={**os.environ, "PYTHONPATH": str(PROJECT)})

    def test_health_to_an_output_that_cannot_be_written_is_one_line_and_exit_1(self, server):
        with open("/dev/full", "w") as full:
            proc = subprocess.run([sys.executable, "-m", "server.client", "health", "--address",
                                   f"127.0.0.1:{server.port}"], stdout=full, stderr=subprocess.PIPE, text=True,
                                  timeout=60, cwd=PROJECT)
        assert (proc.returncode, proc.stderr) == \
            (1, "python -m server.client: standard output: No space left on device\n")

    def test_solve_and_legal(self, server):
        lines = [json.dumps(POSITIONS[0]), "", json.dumps(bad(MALILLA_MID, trump="Z")), "not json",
                 json.dumps(POSITIONS[14])]
        proc = self.run(server, "solve", "--mode", "optimal", stdin="\n".join(lines) + "\n")
        assert proc.returncode == 0, proc.stderr
        out = [json.loads(line) for line in proc.stdout.splitlines()]
        assert len(out) == 4
        for got, position in ((out[0], POSITIONS[0]), (out[3], POSITIONS[14])):
            expected = library(position, "optimal").to_json()
            assert {k: v for k, v in got.items() if k not in ("nodes", "line")} == \
                {k: v for k, v in expected.items() if k not in ("nodes", "line")}
            assert got["line"][0] in expected["best"]
        assert out[1] == {"error": "trump: 'Z' is not a trump (S H D C)"}   # refused before the call
        assert "error" in out[2] and "code" not in out[2]
        proc = self.run(server, "legal", stdin=json.dumps(MALILLA_MID) + "\n")
        assert json.loads(proc.stdout) == {"legal": ["KS"]}

    def test_perft_lines_are_those_of_malilla_dd(self, server):
        lines = [json.dumps(strip(load_vectors("full")[0])), json.dumps(MALILLA_MID),
                 json.dumps(bad(MALILLA_MID, trump="Z"))]
        cli, remote = cli_and_client(server, "perft", "--depth", "3", stdin="\n".join(lines) + "\n")
        assert cli.returncode == remote.returncode == 0, remote.stderr
        assert remote.stdout == cli.stdout and len(cli.stdout.splitlines()) == 3
        proc = self.run(server, "perft", "--depth", "10", stdin=json.dumps(MALILLA_MID) + "\n")
        assert json.loads(proc.stdout) == {"error": "depth: 10 is more than the 9 cards left to play"}
        for tool in cli_and_client(server, "perft", "--depth", "41", stdin=lines[0] + "\n"):
            # beyond every deal: refused before any input, as malilla-dd refuses it
            assert tool.returncode == 2 and tool.stdout == ""
            assert tool.stderr.splitlines()[-1].endswith(
                "error: --depth: 41 is more than the 40 cards of a malilla deal, the longest")

    @pytest.mark.parametrize("address", ["{server}", ""])
    def test_the_address_from_the_environment_and_an_empty_one_as_unset(self, server, address):
        env = {**os.environ, "PYTHONPATH": str(PROJECT), "MALILLA_DD_TOKEN": "",
               "MALILLA_DD_ADDRESS": address.format(server=f"127.0.0.1:{server.port}")}
        proc = subprocess.run([sys.executable, "-m", "server.client", "health", "--timeout", "5"],
                              capture_output=True, text=True, timeout=60, cwd=PROJECT, env=env)
        if address:
            assert (proc.returncode, proc.stdout) == (0, "SERVING\n"), proc.stderr
        else:   # the default address, where nothing listens
            assert proc.returncode == 1 and "127.0.0.1:50051" in proc.stderr, proc.stderr

    @pytest.mark.parametrize("args, message", [
        (["--timeout", "0"], "--timeout: 0.0 is not a positive number of seconds"),
        (["--mode", "target"], "give --target exactly with --mode target or targets"),
        (["--mode", "targets"], "give --target exactly with --mode target or targets"),
        (["--target", "3"], "give --target exactly with --mode target or targets"),
        (["--ca", "missing.pem"], "argument --ca: can't open 'missing.pem'"),
        (["--ca", "README.md"], "--ca: README.md holds no PEM certificate"),
        (["--ca", "/dev/null"], "--ca: /dev/null holds no PEM certificate"),
        (["--token", "line\nbreak"], "--token: must be printable ASCII without spaces, and not empty"),
        (["--lenient"], "--lenient: no effect with solve"),
        (["--depth", "3"], "--depth: no effect with solve"),
    ])
    def test_bad_options_are_usage_errors(self, server, args, message):
        proc = self.run(server, "solve", *args, stdin=json.dumps(POSITIONS[0]) + "\n")
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.splitlines()[-1].startswith(f"python -m server.client: error: {message}")

    def test_ctrl_c_stops_with_the_answers_so_far_and_no_traceback(self, server, tmp_path):
        positions, out = tmp_path / "positions.jsonl", tmp_path / "out.jsonl"
        positions.write_text((json.dumps(POSITIONS[0]) + "\n") * 5000)
        code, err = interrupted("server.client", ["solve", "--address", f"127.0.0.1:{server.port}"],
                                lambda: out.exists() and out.read_text().count("\n") >= 2, stdin=positions, stdout=out)
        assert (code, err) == (130, "python -m server.client: interrupted\n")
        answered = [json.loads(line) for line in out.read_text().splitlines()]
        assert 2 <= len(answered) < 5000 and all("value" in a for a in answered)

    def test_targets_lines_are_those_of_malilla_dd(self, server):
        lines = "".join(json.dumps(p) + "\n" for p in POSITIONS[:12])
        proc = self.run(server, "solve", "--mode", "targets", "--target", "12", stdin=lines)
        assert proc.returncode == 0, proc.stderr
        out = [json.loads(line) for line in proc.stdout.splitlines()]
        expected = [library(p, "targets", target=12).to_json() for p in POSITIONS[:12]]
        assert [{**a, "nodes": 0} for a in out] == [{**e, "nodes": 0} for e in expected]
        assert {len(a["cards"]) > 0 for a in out} == {True, False}

    def test_a_target_beyond_32_bits_is_answered(self, server):
        """As `malilla-dd solve` answers it: no side reaches it, every side reaches its negative."""
        line = json.dumps(POSITIONS[0]) + "\n"
        for target, reached in ((3_000_000_000, False), (-3_000_000_000, True)):
            proc = self.run(server, "solve", "--mode", "target", "--target", str(target), stdin=line)
            assert proc.returncode == 0, proc.stderr
            assert json.loads(proc.stdout) == library(POSITIONS[0], "target", target=target).to_json()
            assert json.loads(proc.stdout)["reached"] is reached
        with Client(server.address, timeout=30) as client:   # the target asked is the target answered
            assert client.solve(POSITIONS[0], "target", target=10 ** 12).target == 10 ** 12
            [(_, solution)] = client.solve_many([("a", POSITIONS[0])], "target", target=-10 ** 12)
            assert solution == library(POSITIONS[0], "target", target=-10 ** 12)

    def test_an_output_that_cannot_be_written_is_one_line_and_exit_1(self, server):
        with open("/dev/full", "w") as full:
            proc = subprocess.run([sys.executable, "-m", "server.client", "solve", "--address",
                                   f"127.0.0.1:{server.port}"], input=json.dumps(POSITIONS[0]) + "\n", stdout=full,
                                  stderr=subprocess.PIPE, text=True, cwd=PROJECT, timeout=60)
        assert (proc.returncode, proc.stderr) == \
            (1, "python -m server.client: standard output: No space left on device\n")

    def test_health(self, server):
        proc = self.run(server, "health")
        assert proc.returncode == 0 and proc.stdout.strip() == "SERVING"

    @pytest.mark.parametrize("timeout, deadline", [("7.5", 7.5), ("1e9", None)])
    def test_health_takes_the_timeout(self, server, monkeypatch, capsys, timeout, deadline):
        asked = []
        check = Client.health

        def health(self, service: str = "", timeout: float | None = 5.0) -> str:
            asked.append(timeout)
            return check(self, service, timeout)

        monkeypatch.setattr(Client, "health", health)
        assert client_main(["health", "--timeout", timeout, "--address", f"127.0.0.1:{server.port}"]) == 0
        assert (asked, capsys.readouterr().out) == ([deadline], "SERVING\n")


def test_a_refused_stream_item_echoes_an_id_of_the_longest_length(stub):
    """An id of exactly tasks.MAX_ID characters is echoed in its item's error too, not only in a solution."""
    longest = "x" * tasks.MAX_ID
    requests = [solve_request(bad(MALILLA_MID, trump="Z"), request_id=longest)]
    responses = list(stub.SolveStream(iter(requests), timeout=30))
    assert [(r.id, r.WhichOneof("result")) for r in responses] == [(longest, "error")]
    assert responses[0].error.field_violations[0].field == "position.trump"


def test_a_target_outside_the_target_modes_is_refused_in_the_service_words(stub):
    """Refused when read, naming the proto's modes, before any work."""
    with pytest.raises(grpc.RpcError) as info:
        stub.Solve(solve_request(MALILLA_MID, mode=pb.MODE_BEST, target=5), timeout=10)
    assert violations(info.value) == [("target", "a target goes with MODE_TARGET or MODE_TARGETS only")]
