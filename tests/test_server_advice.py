"""Advise, in process on a free loopback port: the stream of partial answers ends with the library's
advice for the same view and seed; bad fields are named from "view"; cancellation frees the server."""
from __future__ import annotations

import contextlib
import json
import threading
import time

import grpc
import pytest

from conftest import played_deal
from server import convert, jobs
from server._proto import pb
from server_fixtures import (channel_to, cli_and_client, easy_position, module_fixtures, running_server,
                             solve_request, stub_of, violations, wait_until)
from solver.advice import advise, advise_iter
from solver.view import View, view_of

server, stub, client = module_fixtures(workers=2, max_concurrent=8)


def a_view(game: str = "malilla", seed: int = 3, cards: int = 14) -> dict:
    obj = played_deal(game, seed)
    return view_of(obj, obj["play"][:cards])


@pytest.mark.parametrize("game", ["malilla", "manille"])
def test_the_stream_ends_with_the_library_advice(stub, game):
    view = a_view(game)
    request = pb.AdviseRequest(view=convert.view_message(view), samples=9, seed=4, goal=20, progress_every=4)
    items = [convert.advice_json(m) for m in stub.Advise(request, timeout=60)]
    assert [i["samples"] for i in items] == [4, 8, 9]
    assert [i["done"] for i in items] == [False, False, True]
    expected = [a.to_json() for a in advise_iter(view, 9, 4, 20, every=4)]
    assert items == expected
    assert items[-1] == advise(view, samples=9, seed=4, goal=20).to_json()


@pytest.mark.parametrize("change, field", [
    ({"seat": "X"}, "view.seat"),
    ({"hand": ""}, "view.hand"),
    ({"game": "bridge"}, "view.game"),
])
def test_bad_views_name_the_field(stub, change, field):
    request = pb.AdviseRequest(view=convert.view_message({**a_view(), **change}), samples=5)
    with pytest.raises(grpc.RpcError) as e:
        list(stub.Advise(request, timeout=10))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in violations(e.value)] == [field]


@pytest.mark.parametrize("field, words", [("seat", "missing (N E S W)"), ("leader", "missing (N E S W)"),
                                          ("trump", "missing (S H D C)"), ("game", "missing (malilla or manille)")])
def test_an_unset_view_field_is_missing(stub, field, words):
    """proto3 reads an unset string as "", which is no seat, trump or game the client gave."""
    view = convert.view_message(a_view())
    view.ClearField(field)
    with pytest.raises(grpc.RpcError) as e:
        list(stub.Advise(pb.AdviseRequest(view=view, samples=5), timeout=10))
    assert violations(e.value) == [(f"view.{field}", words)]


def test_bad_options_name_the_field(stub):
    with pytest.raises(grpc.RpcError) as e:
        list(stub.Advise(pb.AdviseRequest(view=convert.view_message(a_view()), samples=0, progress_every=0, goal=-1),
                         timeout=10))
    assert violations(e.value) == [("samples", "0 is not between 1 and 10000"),
                                   ("progress_every", "0 must be at least 1"), ("goal", "-1 must be at least 0")]
    with pytest.raises(grpc.RpcError) as e:
        list(stub.Advise(pb.AdviseRequest(samples=3), timeout=10))
    assert [f for f, _ in violations(e.value)] == ["view"]


def test_a_cancelled_stream_frees_the_server(stub):
    view = a_view("malilla", 5, 2)
    stream = stub.Advise(pb.AdviseRequest(view=convert.view_message(view), samples=10000, progress_every=1),
                         timeout=60)
    first = next(stream)
    assert not first.done and first.samples == 1
    stream.cancel()
    items = list(stub.Advise(pb.AdviseRequest(view=convert.view_message(a_view()), samples=2), timeout=30))
    assert items[-1].done


def test_a_deadline_ends_the_stream(stub):
    view = a_view("malilla", 5, 2)
    with pytest.raises(grpc.RpcError) as e:
        list(stub.Advise(pb.AdviseRequest(view=convert.view_message(view), samples=10000), timeout=0.5))
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED


def test_the_client_streams_the_advice(client):
    view = a_view("manille", 2, 9)
    items = list(client.advise(view, samples=5, seed=1, progress_every=2))
    assert [i["samples"] for i in items] == [2, 4, 5]
    assert items[-1] == advise(view, samples=5, seed=1).to_json()
    assert list(client.advise(View.from_json(view), samples=5, seed=1, progress_every=2)) == items


def test_the_client_command_writes_the_lines_of_malilla_dd_advise(server):
    views = [a_view("malilla"), a_view("manille", 2, 9)]
    lines = [json.dumps(views[0]), "", json.dumps({**views[1], "seat": "X"}), "not json", json.dumps(views[1])]
    cli, client = cli_and_client(server, "advise", "--samples", "6", "--seed", "3", "--goal", "25",
                                 stdin="\n".join(lines) + "\n")
    assert (client.returncode, client.stdout) == (0, cli.stdout), client.stderr
    answers = [json.loads(line) for line in client.stdout.splitlines()]
    assert [sorted(a) for a in answers[1:3]] == [["error"], ["error"]]
    assert answers[3] == advise(views[1], samples=6, seed=3, goal=25).to_json()


@pytest.mark.parametrize("args, message", [
    (["--samples", "0"], "--samples: 0 must be at least 1"),
    (["--goal", "-1"], "--goal: -1 must be at least 0"),
    (["--margin", "3"], "--margin: no effect with advise"),
])
def test_the_client_command_refuses_a_bad_option_before_any_line(server, args, message):
    _, client = cli_and_client(server, "advise", *args, stdin=json.dumps(a_view()) + "\n")
    assert (client.returncode, client.stdout) == (2, "")
    assert client.stderr.splitlines()[-1] == f"python -m server.client: error: {message}"


def long_advice(stub, every):
    view = a_view("malilla", 5, 2)
    return stub.Advise(pb.AdviseRequest(view=convert.view_message(view), samples=10000, progress_every=every),
                       timeout=60)


def long_puzzles(stub, every):
    return stub.GeneratePuzzles(pb.GeneratePuzzlesRequest(game="malilla", count=1000, min_tricks=10, max_tricks=10,
                                                          margin=40, progress_every=every), timeout=60)


@pytest.mark.parametrize("every", [1, 10000])
@pytest.mark.parametrize("call", [long_advice, long_puzzles])
def test_other_calls_take_their_turns_between_the_steps_of_a_long_stream(call, every):
    """One worker busy with a long stream: a Solve waits for one step of it, not for all of it,
    even when the stream sends nothing until its end."""
    with running_server(workers=1) as server:
        channel = channel_to(server)
        stub = stub_of(channel)
        stream = call(stub, every)
        def read() -> None:
            with contextlib.suppress(grpc.RpcError):   # cancelled at the end
                for _ in stream:
                    pass

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        assert wait_until(lambda: server.service.admission.active == 1)
        start = time.monotonic()
        assert stub.Solve(solve_request(easy_position()), timeout=10).solution.value == 6
        assert time.monotonic() - start < 1.0
        assert reader.is_alive()   # the Advise goes on
        stream.cancel()
        channel.close()


def test_no_step_is_worked_out_for_a_client_that_stops_reading(monkeypatch):
    """The worker stops once the items sent fill the client's flow-control window (a fixed
    one here: without BDP probing), rather than running on into an unbounded queue: its steps
    stop coming, far short of the 10000 samples asked."""
    steps = [0]
    step = jobs.Steps.run

    def counted(self, budget):
        steps[0] += 1
        return step(self, budget)
    monkeypatch.setattr(jobs.Steps, "run", counted)
    with running_server(workers=1) as server:
        channel = channel_to(server, options=[("grpc.http2.bdp_probe", 0)])
        stub = stub_of(channel)
        view = a_view("manille", 2, 2)
        stream = stub.Advise(pb.AdviseRequest(view=convert.view_message(view), samples=10000, progress_every=1),
                             timeout=60)
        assert [next(stream).samples for _ in range(3)] == [1, 2, 3]
        while True:   # until half a second passes with no step (the stream's timeout bounds it)
            before = steps[0]
            time.sleep(0.5)
            if steps[0] == before:
                break
        assert steps[0] < 2000   # a window's items: nothing is solved for nobody
        assert server.service.admission.active == 1   # while the call is still open
        stream.cancel()
        channel.close()


def test_without_progress_every_a_partial_answer_follows_every_ten_samples(stub):
    """The proto's default for an unset progress_every is 10, as the library's `every`."""
    view = a_view()
    request = pb.AdviseRequest(view=convert.view_message(view), samples=12, seed=2)
    items = [convert.advice_json(m) for m in stub.Advise(request, timeout=60)]
    assert [(i["samples"], i["done"]) for i in items] == [(10, False), (12, True)]
    assert items == [a.to_json() for a in advise_iter(view, 12, 2)]


def test_a_goal_of_zero_is_accepted(stub):
    """Goal 0 is the least allowed (every sample reaches it), not a bad field."""
    view = a_view()
    request = pb.AdviseRequest(view=convert.view_message(view), samples=3, seed=2, goal=0)
    items = [convert.advice_json(m) for m in stub.Advise(request, timeout=60)]
    assert items[-1] == advise(view, samples=3, seed=2, goal=0).to_json()
    assert all(c["goal"] == 1 for c in items[-1]["cards"])
