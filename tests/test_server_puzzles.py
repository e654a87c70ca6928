"""GeneratePuzzles, in process on a free loopback port: the stream against the library's own
puzzles for the seed, the progress items, bad options naming the field, and cancellation."""
from __future__ import annotations

import gc
import json
import logging
import re
import subprocess
import sys
import threading
import weakref

import grpc
import pytest

from server import convert, jobs
from server._proto import pb
from server.client import Client
from server.tasks import MAX_ATTEMPTS
from conftest import PROJECT
from server_fixtures import cli_and_client, module_fixtures, violations, wait_until
from solver import get_profile
from solver.puzzles import generate
from solver.solve import SearchStopped, Solver

server, stub, client = module_fixtures(workers=2, max_concurrent=8)


def request(**fields) -> pb.GeneratePuzzlesRequest:
    return pb.GeneratePuzzlesRequest(**{"game": "malilla", "count": 3, "seed": 5, **fields})


@pytest.mark.parametrize("game", ["malilla", "manille", "Manille"])   # a game in any case, as everywhere
def test_the_stream_is_the_library_puzzles(stub, game):
    items = list(stub.GeneratePuzzles(request(game=game, count=4, seed=21, progress_every=50), timeout=60))
    puzzles = [convert.puzzle_json(i.puzzle) for i in items if i.WhichOneof("item") == "puzzle"]
    assert puzzles == [p.to_json() for p in generate(get_profile(game), 4, seed=21)]
    progress = [i.progress for i in items if i.WhichOneof("item") == "progress"]
    assert progress, "progress items come with the puzzles"
    assert all(p.count == 4 for p in progress)
    attempts = [p.attempts for p in progress]
    assert attempts == sorted(attempts)
    assert progress[-1].found == 4
    # a progress item follows each puzzle, and one every 50 attempts
    assert sum(1 for p in progress if p.attempts % 50 == 0) >= progress[-1].attempts // 50
    kinds = [i.WhichOneof("item") for i in items]
    assert all(kinds[k + 1] == "progress" for k, kind in enumerate(kinds) if kind == "puzzle")


def test_options_reach_the_library(stub):
    items = list(stub.GeneratePuzzles(request(game="manille", count=2, seed=8, min_tricks=4, max_tricks=4,
                                              margin=5), timeout=60))
    puzzles = [convert.puzzle_json(i.puzzle) for i in items if i.HasField("puzzle")]
    assert puzzles == [p.to_json() for p in generate(get_profile("manille"), 2, seed=8, min_tricks=4,
                                                     max_tricks=4, margin=5)]
    assert all(min(p["alternatives"].values()) >= 5 and len(p["line"]) == 16 for p in puzzles)


def test_the_client_yields_the_library_puzzles(client):
    got = list(client.generate_puzzles("manille", 2, seed=8, min_tricks=4, max_tricks=4, margin=5, max_attempts=4000))
    assert got == [p.to_json() for p in generate(get_profile("manille"), 2, seed=8, min_tricks=4, max_tricks=4,
                                                 margin=5)]


def test_a_puzzle_comes_back_as_the_library_writes_it():
    """A map's order is not kept on the wire: the alternatives come back in the library's order."""
    for puzzle in generate(get_profile("manille"), 10, seed=3):
        msg = pb.Puzzle.FromString(convert.puzzle_message(puzzle).SerializeToString())
        assert json.dumps(convert.puzzle_json(msg)) == json.dumps(puzzle.to_json())


def test_the_client_reports_the_progress(client):
    seen = []
    got = list(client.generate_puzzles("malilla", 1000, seed=5, max_attempts=30,
                                       progress=lambda attempts, found: seen.append((attempts, found))))
    assert seen[-1] == (30, len(got)) and [a for a, _ in seen] == sorted(a for a, _ in seen)


def test_the_client_command_writes_the_lines_of_malilla_dd_puzzles(server):
    args = ["puzzles", "--game", "manille", "--count", "4", "--seed", "8", "--min-tricks", "3", "--max-tricks", "5",
            "--margin", "4", "--max-attempts", "4000"]
    cli, client = cli_and_client(server, *args)
    assert (client.returncode, client.stdout, client.stderr) == (0, cli.stdout, ""), cli.stderr
    assert len(client.stdout.splitlines()) == 4
    cli, client = cli_and_client(server, "puzzles", "--count", "5", "--seed", "2", "--max-attempts", "12")
    assert (client.returncode, client.stdout) == (0, cli.stdout)
    assert client.stderr == cli.stderr.replace("malilla-dd puzzles:", "python -m server.client:")
    assert "puzzles found in 12 attempts (the limit)" in client.stderr


@pytest.mark.parametrize("args, message", [
    (["--min-tricks", "0"], "--min-tricks: 0 must be at least 1"),
    (["--game", "manille", "--max-tricks", "9"], "--max-tricks: 9 is more than the 8 tricks of a manille deal"),
    (["--samples", "5"], "--samples: no effect with puzzles"),
])
def test_the_client_command_refuses_a_bad_option(server, args, message):
    _, client = cli_and_client(server, "puzzles", *args)
    assert (client.returncode, client.stdout) == (2, "")
    assert client.stderr.splitlines()[-1] == f"python -m server.client: error: {message}"


@pytest.mark.parametrize("args, message", [
    (["--count", "5000000000"], "--count: 5000000000 is beyond the 32-bit whole numbers the service takes"),
    (["--seed", str(1 << 64)], f"--seed: {1 << 64} is beyond the 64-bit whole numbers the service takes"),
])
def test_the_client_command_refuses_a_number_its_request_cannot_carry(args, message):
    proc = subprocess.run([sys.executable, "-m", "server.client", "puzzles", *args, "--address", "127.0.0.1:1"],
                          capture_output=True, text=True, timeout=120, cwd=PROJECT)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.splitlines()[-1] == f"python -m server.client: error: {message}"


def test_the_client_command_needs_no_standard_input(server):
    proc = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh", sys.executable, "-m", "server.client", "puzzles",
                           "--count", "1", "--address", f"127.0.0.1:{server.port}"],
                          capture_output=True, text=True, timeout=120, cwd=PROJECT)
    assert (proc.returncode, len(proc.stdout.splitlines())) == (0, 1), proc.stderr


def test_the_attempt_limit_ends_the_stream(stub):
    items = list(stub.GeneratePuzzles(request(count=1000, max_attempts=30, progress_every=10), timeout=60))
    progress = [i.progress for i in items if i.HasField("progress")]
    assert progress[-1].attempts == 30 and progress[-1].found < 1000


@pytest.mark.parametrize("fields, field", [
    ({"game": "bridge"}, "game"),
    ({"count": 0}, "count"),
    ({"min_tricks": 0}, "min_tricks"),
    ({"game": "manille", "max_tricks": 9}, "max_tricks"),
    ({"min_tricks": 8}, "min_tricks"),   # beyond the default max_tricks, as `malilla-dd puzzles` names it
    ({"min_tricks": 5, "max_tricks": 4}, "min_tricks"),
    ({"margin": 0}, "margin"),
    ({"margin": 1000}, "margin"),   # more than the tricks hold
    ({"progress_every": 0}, "progress_every"),
    ({"max_attempts": 0}, "max_attempts"),
    ({"max_attempts": MAX_ATTEMPTS + 1}, "max_attempts"),
    ({"game": ""}, "game"),   # unset
])
def test_bad_options_name_the_field(stub, fields, field):
    with pytest.raises(grpc.RpcError) as e:
        list(stub.GeneratePuzzles(request(**fields), timeout=10))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in violations(e.value)] == [field]


def test_the_attempts_asked_for_are_capped(stub):
    for attempts in (MAX_ATTEMPTS + 1, 2 ** 31 - 1):
        with pytest.raises(grpc.RpcError) as e:
            list(stub.GeneratePuzzles(request(max_attempts=attempts), timeout=10))
        assert violations(e.value) == [("max_attempts", f"{attempts} is not between 1 and {MAX_ATTEMPTS}")]
    items = list(stub.GeneratePuzzles(request(count=1, max_attempts=MAX_ATTEMPTS), timeout=60))
    assert items[-1].progress.found == 1


def test_every_bad_option_is_named(stub):
    with pytest.raises(grpc.RpcError) as e:
        list(stub.GeneratePuzzles(request(game="", min_tricks=0, margin=0), timeout=10))
    assert violations(e.value) == [("game", "missing (malilla or manille)"), ("min_tricks", "0 must be at least 1"),
                                   ("margin", "0 must be at least 1")]


def test_a_margin_past_the_tricks_points_is_refused_with_the_request(stub):
    with pytest.raises(grpc.RpcError) as e:
        list(stub.GeneratePuzzles(request(game="manille", max_tricks=3, margin=1000), timeout=10))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in violations(e.value)] == ["margin"]
    assert "no card falls short by it" in violations(e.value)[0][1]


@pytest.mark.parametrize("options, message", [
    ({"seed": 1 << 63}, "seed: 9223372036854775808 is beyond the 64-bit whole numbers the service takes"),
    ({"seed": -(1 << 63) - 1}, "seed: -9223372036854775809 is beyond the 64-bit whole numbers the service takes"),
    ({"count": 1 << 31}, "count: 2147483648 is beyond the 32-bit whole numbers the service takes"),
    ({"margin": 2.5}, "margin: 2.5 is not a whole number"),
])
def test_the_client_names_a_number_the_request_cannot_carry(options, message):
    """Refused before any call (nothing listens at the address)."""
    with Client("127.0.0.1:1") as unreachable:
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            list(unreachable.generate_puzzles("malilla", **{"count": 1, **options}))
        if "seed" in options:
            with pytest.raises(ValueError, match="^seed: "):
                list(unreachable.advise({}, seed=options["seed"]))


def test_a_cancelled_stream_frees_the_server(stub, caplog):
    caplog.set_level(logging.INFO, logger="malilla_dd.access")
    stream = stub.GeneratePuzzles(request(count=1000, seed=3), timeout=60)
    first = next(stream)
    assert first.WhichOneof("item") in ("puzzle", "progress")
    stream.cancel()
    items = list(stub.GeneratePuzzles(request(count=1, seed=3), timeout=30))
    assert sum(1 for i in items if i.HasField("puzzle")) == 1
    # the access log has the cancelled call as CANCELLED, not UNKNOWN

    def statuses() -> list[str]:
        return sorted(r.getMessage().split()[1] for r in caplog.records if "GeneratePuzzles status=" in r.getMessage())

    assert wait_until(lambda: len(statuses()) == 2)
    assert statuses() == ["status=CANCELLED", "status=OK"]


def test_a_deadline_ends_the_stream(stub):
    with pytest.raises(grpc.RpcError) as e:
        list(stub.GeneratePuzzles(request(count=1000, seed=3), timeout=0.5))
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED


def test_an_ended_stream_frees_its_node_solver_at_once(stub, monkeypatch):
    """Cancelled or past its deadline, a call lets go of the 16 MiB solver that counts its
    puzzles' nodes as it ends: nothing but a garbage collection, disabled here, would free a cycle."""
    made: list[weakref.ref] = []

    class Tracked(Solver):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(weakref.ref(self))

    monkeypatch.setattr(jobs, "Solver", Tracked)
    gc.disable()
    try:
        for seed in range(3):
            stream = stub.GeneratePuzzles(request(count=1000, seed=seed, progress_every=1), timeout=60)
            next(item for item in stream if item.HasField("puzzle"))   # its nodes are counted
            stream.cancel()
        with pytest.raises(grpc.RpcError) as e:
            for _ in stub.GeneratePuzzles(request(count=1000, seed=3, progress_every=1), timeout=1):
                pass
        assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert len(made) >= 3   # one a call that has counted a puzzle's nodes
        assert wait_until(lambda: all(ref() is None for ref in made), timeout=30)
    finally:
        gc.enable()


class Counted(Solver):
    """The service's node counter, which keeps what each of its searches was given."""
    timeouts: list[float | None] = []

    def solve(self, *args, **kwargs):
        self.timeouts.append(kwargs.get("timeout"))
        return super().solve(*args, **kwargs)


def test_the_node_counts_keep_the_calls_deadline(stub, monkeypatch):
    """A puzzle's rating counts its nodes with a search of its own, which stops at the call's
    deadline as every other search of the call does; the puzzles are the library's."""
    monkeypatch.setattr(jobs, "Solver", Counted)
    monkeypatch.setattr(Counted, "timeouts", [])
    items = list(stub.GeneratePuzzles(request(count=2, seed=9), timeout=30))
    got = [convert.puzzle_message(p).SerializeToString() for p in generate("malilla", 2, 9)]
    assert [i.puzzle.SerializeToString() for i in items if i.HasField("puzzle")] == got
    assert len(Counted.timeouts) == 2
    # the call's 30 s, less the answer's margin (gRPC rounds a deadline up by some milliseconds)
    assert all(t is not None and 25 < t < 31 for t in Counted.timeouts), Counted.timeouts


def test_a_cancel_stops_a_node_count(stub, monkeypatch):
    """A cancel that comes while a puzzle's nodes are counted stops that search, as it stops
    the others: the count is the call's search while it runs."""
    started, cancelled = threading.Event(), threading.Event()
    outcome: list[str] = []

    class Held(Solver):
        def cancel(self) -> None:
            cancelled.set()
            super().cancel()

        def solve(self, *args, **kwargs):
            started.set()
            cancelled.wait(30)   # the count begins once the cancel has come: it must stop at once
            try:
                return super().solve(*args, **kwargs)
            except SearchStopped:
                outcome.append("stopped")
                raise

    monkeypatch.setattr(jobs, "Solver", Held)
    stream = stub.GeneratePuzzles(request(count=1, seed=9), timeout=60)
    assert started.wait(30)
    stream.cancel()
    assert cancelled.wait(30)
    assert wait_until(lambda: outcome == ["stopped"])
    items = list(stub.GeneratePuzzles(request(count=1, seed=3), timeout=30))
    assert sum(1 for i in items if i.HasField("puzzle")) == 1
