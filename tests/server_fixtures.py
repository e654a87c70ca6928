"""Helpers of the gRPC service tests: in-process servers on free loopback ports,
stubs, hard positions, played deals, rich-status decoding and the client command beside `malilla-dd`."""
from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from conftest import PROJECT, load_vectors, played_deal, start_of
from server import convert
from server._proto import pb, pb_grpc
from server.client import Client
from server.config import Config
from server.main import Running, start
from solver import IllegalPlay, Position, get_profile
from solver.cards import SUITS
from solver.deal import deal
from solver.solve import MIN_MEMORY, SearchStopped, Solver

TEST_MEMORY = MIN_MEMORY
"""The test servers' table per worker: the least a table may be (64 KiB), so that the hard requests
(`hard_variant`) take their searches several times HARD_SECONDS, on a fast machine too."""


@contextlib.contextmanager
def running_server(**overrides) -> Iterator[Running]:
    """An in-process server on a free loopback port, stopped at the end."""
    settings = dict(host="127.0.0.1", port=0, workers=2, memory=TEST_MEMORY, grace=1.0)
    settings.update(overrides)
    server = start(Config(**settings))
    try:
        yield server
    finally:
        server.stop(0)


def channel_to(server: Running, **kwargs) -> grpc.Channel:
    return grpc.insecure_channel(f"127.0.0.1:{server.port}", **kwargs)


def stub_of(channel: grpc.Channel) -> pb_grpc.DoubleDummyStub:
    return pb_grpc.DoubleDummyStub(channel)


def solve_request(position, mode: int = pb.MODE_ALL, objective: int = pb.OBJECTIVE_POINTS,
                  target: int | None = None, request_id: str = "") -> pb.SolveRequest:
    request = pb.SolveRequest(position=convert.position_message(position), mode=mode, objective=objective,
                              id=request_id)
    if target is not None:
        request.target = target
    return request


def violations(error: grpc.RpcError) -> list[tuple[str, str]]:
    """The google.rpc.BadRequest field violations of a failed call (decoded here, not by server.client)."""
    status = rpc_status.from_call(error)
    assert status is not None, "no rich status in the trailers"
    assert status.code == error.code().value[0]
    out = []
    for detail in status.details:
        assert detail.Is(error_details_pb2.BadRequest.DESCRIPTOR)
        bad = error_details_pb2.BadRequest()
        detail.Unpack(bad)
        out += [(v.field, v.description) for v in bad.field_violations]
    return out


def assert_field_error(error: grpc.RpcError, field: str, words: str) -> None:
    """The call failed with INVALID_ARGUMENT and one field violation: `field`,
    with a problem containing `words`, also given as the details line."""
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    [(got_field, problem)] = violations(error)
    assert got_field == field
    assert words in problem
    assert error.details() == f"{field}: {problem}"


def easy_position() -> dict:
    """A three-trick Manille endgame (solved in microseconds)."""
    return {k: v for k, v in load_vectors("endgames3")[0].items() if k != "values"}


def full_deal(game: str, seed: int, dealer: int = 0) -> dict:
    obj = deal(get_profile(game), seed=seed, dealer=dealer).to_position_json()
    obj.pop("dealer")
    return obj


# the slowest three of Malilla deals 0-14999 (dealer 0, every card, score): 0.86-1.3 s each on a
# TEST_MEMORY table, in every suit rotation, on the 2-core development machine at 25 M nodes/s
HARD_CANDIDATES = [("malilla", 11875, 0, "all", "score"), ("malilla", 13060, 0, "all", "score"),
                   ("malilla", 8124, 0, "all", "score")]
HARD_SECONDS = 0.3   # the least a hard request takes the library; tests' deadlines for it stay below
_hard_calls = itertools.count()


def rotate_suits(position: dict, k: int) -> dict:
    """The same deal with every suit, trump included, moved k places along S H D C."""
    def card(c: str) -> str:
        return c[:-1] + SUITS[(SUITS.index(c[-1]) + k) % 4]
    return {**position, "trump": SUITS[(SUITS.index(position["trump"]) + k) % 4],
            "hands": {seat: " ".join(card(c) for c in cards.split()) for seat, cards in position["hands"].items()}}


def hard_variant(solver: Solver, k: int) -> tuple[dict, int, int]:
    """A whole Malilla deal, its suits rotated k places, and a mode that the library needs
    more than HARD_SECONDS for (checked here, so that a faster search makes this fail
    loudly, not pass wrongly)."""
    for game, seed, dealer, mode, objective in HARD_CANDIDATES:
        position = rotate_suits(full_deal(game, seed, dealer), k)
        solver.clear()
        try:
            solver.solve(Position.from_json(position), mode=mode, objective=objective, timeout=HARD_SECONDS)
        except SearchStopped:
            return position, convert.MODES[mode], convert.OBJECTIVES[objective]
    pytest.fail(f"no candidate position takes the search more than {HARD_SECONDS} s: pick harder ones")


@functools.lru_cache(maxsize=1)
def hard_variants() -> list[tuple[dict, int, int]]:
    solver = Solver(TEST_MEMORY)
    return [hard_variant(solver, k) for k in range(len(SUITS))]


def hard_request_args() -> tuple[dict, int, int]:
    """A hard request whose trump differs from the last one's: a server worker keeps
    its table for one trump, so no hard request finds the last one's work there."""
    variants = hard_variants()
    return variants[next(_hard_calls) % len(variants)]


def hard_request(request_id: str = "") -> pb.SolveRequest:
    position, mode, objective = hard_request_args()
    return solve_request(position, mode, objective, request_id=request_id)


def vector_positions(name: str, count: int) -> list[dict]:
    lines = load_vectors(name)[:count]
    assert len(lines) == count, f"{name} has fewer than {count} lines"
    return lines


def strip(obj: dict) -> dict:
    """The position JSON without the vectors' answers."""
    return {k: v for k, v in obj.items() if k not in ("values", "legal", "rule")}


def as_json(obj) -> str:
    return json.dumps(obj)


def illegal_play(game: str, seed: int) -> tuple[dict, int, str]:
    """A played deal with a card the mover holds but may not play, and cards after it: the deal, the card's
    index and the rule it breaks (as the rules engine words it)."""
    for s in range(seed, seed + 50):
        obj = played_deal(game, s)
        position = start_of(obj)
        for i, card in enumerate(obj["play"]):
            wrong = sorted(set(position.hand(position.to_move)) - set(position.legal_moves()))
            if wrong and i >= 5:
                try:
                    position.play(wrong[0])
                except IllegalPlay as e:
                    play = list(obj["play"])
                    j = play.index(wrong[0])   # later: swapped with the card played, so no card is played twice
                    play[i], play[j] = play[j], play[i]
                    return {**obj, "play": play}, i, e.problem
                raise AssertionError(f"{wrong[0]} is not among the legal cards but could be played")
            position = position.play(card)
    pytest.fail(f"no illegal chance in 50 {game} deals")


def hard_deal() -> dict:
    """The whole Malilla deal of `hard_request_args` (a first search of more than HARD_SECONDS)."""
    position, _, _ = hard_request_args()
    return {k: v for k, v in position.items() if k not in ("to_move", "trick", "led_suits", "history")}


def wait_until(predicate, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.002)
    return predicate()


def module_fixtures(**limits):
    """Module-scoped `server` (started with `limits`), `stub` and `client` fixtures."""

    @pytest.fixture(scope="module")
    def server():
        with running_server(**limits) as s:
            yield s

    @pytest.fixture(scope="module")
    def stub(server):
        channel = channel_to(server)
        yield stub_of(channel)
        channel.close()

    @pytest.fixture(scope="module")
    def client(server):
        with Client(f"127.0.0.1:{server.port}", timeout=30) as c:
            yield c

    return server, stub, client


def cli_and_client(server: Running, *args: str, stdin: str = "") -> tuple[subprocess.CompletedProcess,
                                                                         subprocess.CompletedProcess]:
    """`malilla-dd ARGS` and `python -m server.client ARGS` against `server`, on the same input."""
    def run(*command: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", *command], input=stdin, capture_output=True, text=True,
                              timeout=120, cwd=PROJECT, env={**os.environ, "PYTHONPATH": str(PROJECT)})

    return run("solver", *args), run("server.client", *args, "--address", f"127.0.0.1:{server.port}")
