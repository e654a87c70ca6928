"""The gRPC service under load, faults and shutdown: deadlines, cancellation, the
concurrency limit, message size, health, reflection, the token, TLS, the access
log, the flags, and SIGTERM/SIGINT on a real process."""
from __future__ import annotations

import argparse
import datetime
import logging
import math
import os
import pickle
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future

import grpc
import pytest
from google.protobuf import descriptor_pool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from conftest import PROJECT, helpers_running, load_vectors, played_deal
from server import convert, jobs
from server._proto import SERVICE_NAME, pb
from server.client import Client, InvalidRequest, RemoteError, holds_certificates
from server.config import Config, add_arguments, config_from_args
from server.jobs import ANSWER_MARGIN
from server.main import OPEN_STREAMS, start
from server.service import DoubleDummyService
from solver import Position, __version__
from solver.solve import Solver
from server_fixtures import (HARD_SECONDS, channel_to, easy_position, full_deal, hard_request, hard_request_args,
                             running_server, solve_request, stub_of, wait_until)


def busy(server) -> bool:
    """Is a worker running a search?"""
    return server.service.admission.active > 0


def long_count() -> pb.PerftRequest:
    """A count of 30 cards of a whole Malilla deal: far more than any test waits for."""
    position = {k: v for k, v in load_vectors("full")[0].items() if k != "values"}
    return pb.PerftRequest(position=convert.position_message(position), depth=30)


@pytest.fixture(scope="module")
def one_worker():
    """A server with a single worker, so a freed worker shows as the next call being answered."""
    with running_server(workers=1, max_concurrent=4) as s:
        channel = channel_to(s)
        stub = stub_of(channel)
        stub.Solve(solve_request(easy_position()), timeout=10)   # warm
        yield s, stub
        channel.close()


def reflection_info(channel: grpc.Channel) -> Callable:
    """The reflection service's stream, called with the requests it is to read."""
    return channel.stream_stream("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                                 request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                                 response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)


class TestDeadlines:
    def test_deadline_stops_the_search_and_frees_the_worker(self, one_worker):
        server, stub = one_worker
        reactions = []
        for _ in range(3):
            request = hard_request()
            start = time.monotonic()
            hard = stub.Solve.future(request, timeout=0.15)
            time.sleep(0.03)
            queued = stub.Solve.future(solve_request(easy_position()), timeout=10)   # waits for the worker
            with pytest.raises(grpc.RpcError) as info:
                hard.result()
            assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
            assert queued.result().solution.value == 6
            reactions.append(time.monotonic() - (start + 0.15 - ANSWER_MARGIN))
        # the queued call needed the only worker: it was answered a few ms after the search's stop
        print(f"deadline reaction (search stop -> next call answered on the freed worker): "
              f"{[round(r * 1000, 1) for r in reactions]} ms")
        assert min(reactions) < 0.05, reactions

    def test_deadline_inside_the_search(self, one_worker):
        """The search itself gets the remaining time, less the margin that lets the server's
        DEADLINE_EXCEEDED arrive before the client's own deadline (no client cancellation needed)."""
        server, stub = one_worker
        job_stop = []
        original = server.service._run

        def spy(job):
            try:
                return original(job)
            finally:
                job_stop.append(time.monotonic())

        server.service._run = spy
        request = hard_request()
        try:
            start = time.monotonic()
            with pytest.raises(grpc.RpcError) as info:
                stub.Solve(request, timeout=0.2)
            answered = time.monotonic() - start
            assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
            # the server's own answer, before the client's deadline ended the call
            assert info.value.details() == "the deadline passed before the search finished"
            assert answered < 0.2, answered
            assert wait_until(lambda: job_stop)
        finally:
            server.service._run = original
        lag = job_stop[0] - (start + 0.2 - ANSWER_MARGIN)
        print(f"search stopped {lag * 1000:.1f} ms after its time ran out")
        assert -0.01 < lag < 0.05

    def test_deadline_stops_a_count_and_frees_the_worker(self, one_worker):
        server, stub = one_worker
        start = time.monotonic()
        with pytest.raises(grpc.RpcError) as info:
            stub.Perft(long_count(), timeout=0.3)
        assert (info.value.code(), info.value.details()) == \
            (grpc.StatusCode.DEADLINE_EXCEEDED, "the deadline passed before the count finished")
        assert time.monotonic() - start < 0.3
        assert wait_until(lambda: not busy(server), 1.0)
        start = time.monotonic()
        assert stub.Solve(solve_request(easy_position()), timeout=10).solution.value == 6
        assert time.monotonic() - start < 0.2

    def test_deadline_passed_while_queued(self, one_worker):
        server, stub = one_worker
        hard = stub.Solve.future(hard_request(), timeout=0.25)   # below HARD_SECONDS: it runs out
        # the one worker has taken the hard search, soon enough for the easy one's deadline to pass first
        assert wait_until(lambda: busy(server), 0.1)
        start = time.monotonic()
        with pytest.raises(grpc.RpcError) as info:
            stub.Solve(solve_request(easy_position()), timeout=0.1)   # behind the hard one
        assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        assert time.monotonic() - start < 0.3
        with pytest.raises(grpc.RpcError):
            hard.result()
        assert stub.Solve(solve_request(easy_position()), timeout=10).solution.value == 6

    def test_stream_deadline(self, one_worker):
        server, stub = one_worker
        requests = [solve_request(easy_position(), request_id="easy"), hard_request("hard"),
                    solve_request(easy_position(), request_id="after")]
        responses = stub.SolveStream(iter(requests), timeout=0.25)
        first = next(responses)
        assert first.id == "easy" and first.solution.value == 6
        with pytest.raises(grpc.RpcError) as info:
            next(responses)
        assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        assert wait_until(lambda: not busy(server), 1.0)
        assert stub.Solve(solve_request(easy_position()), timeout=10).solution.value == 6


class TestCallLimit:
    """--max-call-seconds: a call of no deadline of its own ends with DEADLINE_EXCEEDED once it has
    run that long, so that neither an idle stream nor a runaway call keeps its place for ever."""

    LIMIT = "the call ran for 0.25 s, the server's limit (--max-call-seconds)"

    @staticmethod
    def ended(call: grpc.Future) -> grpc.RpcError:
        """The error that ends `call`, which has no deadline: cancelled after a minute, as a failure."""
        watchdog = threading.Timer(60, call.cancel)
        watchdog.start()
        try:
            with pytest.raises(grpc.RpcError) as info:
                for _ in call:
                    pass
        finally:
            watchdog.cancel()
        return info.value

    def test_an_idle_stream_and_a_runaway_call_end_at_the_limit(self, caplog):
        caplog.set_level(logging.INFO, logger="malilla_dd.access")
        hold = threading.Event()

        def idle() -> Iterator[pb.SolveRequest]:
            yield solve_request(easy_position(), request_id="a")
            hold.wait(120)

        with running_server(workers=1, max_concurrent=2, max_call_seconds=0.25) as server:   # < HARD_SECONDS
            channel = channel_to(server)
            stub = stub_of(channel)
            stream = stub.SolveStream(idle())
            assert next(stream).id == "a"
            puzzles = stub.GeneratePuzzles(pb.GeneratePuzzlesRequest(game="malilla", count=1000, seed=1,
                                                                     max_attempts=2_000_000))
            for call in (stream, puzzles):
                error = self.ended(call)
                assert (error.code(), error.details()) == (grpc.StatusCode.DEADLINE_EXCEEDED, self.LIMIT)
            hold.set()
            assert wait_until(lambda: server.service.admission.active == 0)
            with pytest.raises(grpc.RpcError) as info:
                stub.Solve(hard_request())
            assert (info.value.code(), info.value.details()) == (grpc.StatusCode.DEADLINE_EXCEEDED, self.LIMIT)
            assert stub.Solve(solve_request(easy_position())).solution.value == 6
            channel.close()
        statuses = [r.getMessage().split(" latency")[0].rsplit("/", 1)[1] for r in caplog.records
                    if r.name == "malilla_dd.access"]
        assert sorted(statuses) == ["GeneratePuzzles status=DEADLINE_EXCEEDED", "Solve status=DEADLINE_EXCEEDED",
                                    "Solve status=OK", "SolveStream status=DEADLINE_EXCEEDED"]

    def test_a_stream_whose_time_runs_out_between_answers_is_not_ended_ok(self, monkeypatch, caplog):
        """Both requests are in and the stream closed, but the limit passes while the first
        answer is being sent: the second is not answered, so the call ends at the limit."""
        caplog.set_level(logging.INFO, logger="malilla_dd.access")
        solution_message = convert.solution_message

        def slow_to_send(*args):
            time.sleep(0.35)   # past the 0.25 s limit
            return solution_message(*args)

        monkeypatch.setattr(convert, "solution_message", slow_to_send)
        requests = [solve_request(easy_position(), request_id=i) for i in "ab"]
        with running_server(workers=1, max_call_seconds=0.25) as server:
            channel = channel_to(server)
            stream = stub_of(channel).SolveStream(iter(requests))
            assert next(stream).id == "a"
            error = self.ended(stream)
            assert (error.code(), error.details()) == (grpc.StatusCode.DEADLINE_EXCEEDED, self.LIMIT)
            channel.close()
        assert [r.getMessage().split(" latency")[0].rsplit("/", 1)[1] for r in caplog.records
                if r.name == "malilla_dd.access"] == ["SolveStream status=DEADLINE_EXCEEDED"]

    def test_a_count_ends_at_the_limit(self):
        with running_server(workers=1, max_call_seconds=0.25) as server:
            channel = channel_to(server)
            stub = stub_of(channel)
            with pytest.raises(grpc.RpcError) as info:
                stub.Perft(long_count())
            assert (info.value.code(), info.value.details()) == (grpc.StatusCode.DEADLINE_EXCEEDED, self.LIMIT)
            assert stub.Solve(solve_request(easy_position())).solution.value == 6
            channel.close()

    def test_0_is_no_limit(self):
        with running_server(workers=1, max_call_seconds=0) as server:
            channel = channel_to(server)
            assert stub_of(channel).Solve(hard_request(), timeout=60).HasField("solution")
            channel.close()


class TestCancellation:
    @pytest.mark.parametrize("work", ["search", "count"])
    def test_client_cancel_stops_the_work(self, one_worker, work):
        server, stub = one_worker
        delays = []
        for _ in range(3):
            # no deadline at all
            hard = stub.Solve.future(hard_request()) if work == "search" else stub.Perft.future(long_count())
            time.sleep(0.1)
            assert busy(server)
            queued = stub.Solve.future(solve_request(easy_position()), timeout=10)
            cancelled_at = time.monotonic()
            hard.cancel()
            assert queued.result().solution.value == 6
            delays.append(time.monotonic() - cancelled_at)
            assert hard.cancelled()
        print(f"cancel -> next call answered: {[round(d * 1000, 1) for d in delays]} ms")
        assert min(delays) < 0.05, delays

    def test_cancel_right_after_the_call_starts(self, one_worker):
        """Cancels that land while the search is starting still stop it."""
        server, stub = one_worker
        for pause in (0.0, 0.0005, 0.001, 0.002, 0.005, 0.01):
            hard = stub.Solve.future(hard_request())
            time.sleep(pause)
            hard.cancel()
        assert wait_until(lambda: not busy(server), 2.0)
        start = time.monotonic()
        assert stub.Solve(solve_request(easy_position()), timeout=10).solution.value == 6
        assert time.monotonic() - start < 0.2

    def test_stream_cancel(self, one_worker, caplog):
        server, stub = one_worker
        caplog.set_level(logging.INFO, logger="malilla_dd.access")
        responses = stub.SolveStream(iter([hard_request("h1"), hard_request("h2")]))
        assert wait_until(lambda: busy(server))
        time.sleep(0.05)
        responses.cancel()
        assert wait_until(lambda: not busy(server), 1.0)
        assert wait_until(lambda: any("SolveStream status=" in r.getMessage() for r in caplog.records), 2.0)
        [line] = [r.getMessage() for r in caplog.records if "SolveStream status=" in r.getMessage()]
        assert "status=CANCELLED" in line, line
        start = time.monotonic()
        assert stub.Solve(solve_request(easy_position()), timeout=10).solution.value == 6
        assert time.monotonic() - start < 0.2


class TestLimits:
    def test_calls_past_the_limit_are_refused(self):
        with running_server(workers=1, max_concurrent=2) as server:
            channel = channel_to(server)
            stub = stub_of(channel)
            calls = [stub.Solve.future(hard_request(), timeout=5) for _ in range(2)]
            assert wait_until(lambda: server.service.admission.active == 2)
            for _ in range(3):
                with pytest.raises(grpc.RpcError) as info:
                    stub.Solve(solve_request(easy_position()), timeout=5)
                assert info.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
                assert "--max-concurrent" in info.value.details()
            with pytest.raises(grpc.RpcError) as info:
                list(stub.SolveStream(iter([solve_request(easy_position())]), timeout=5))
            assert info.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            # health checks are not counted
            health = health_pb2_grpc.HealthStub(channel)
            assert health.Check(health_pb2.HealthCheckRequest(), timeout=5).status == \
                health_pb2.HealthCheckResponse.SERVING
            for call in calls:
                call.cancel()
            assert wait_until(lambda: server.service.admission.active == 0)
            assert stub.Solve(solve_request(easy_position()), timeout=5).solution.value == 6
            channel.close()

    def test_health_checks_are_answered_while_many_calls_past_the_limit_are_refused(self, caplog):
        """gRPC's own limit on calls, which would refuse health checks too, is far above the
        service's: here 40 calls are held in their access log lines at once, with a limit of 1,
        and a health check still gets its answer."""
        caplog.set_level(logging.INFO, logger="malilla_dd.access")
        release = threading.Event()
        held = threading.Semaphore(0)

        def hold(record: logging.LogRecord) -> bool:   # a filter: no handler's lock makes the calls take turns
            if "DoubleDummy" in record.getMessage():
                held.release()
                release.wait(60)
            return True

        access = logging.getLogger("malilla_dd.access")
        access.addFilter(hold)
        calls = 40
        try:
            with running_server(workers=1, max_concurrent=1) as server:
                channel = channel_to(server)
                futures = [stub_of(channel).Solve.future(solve_request(easy_position()), timeout=60)
                           for _ in range(calls)]
                for _ in range(calls):   # every call is in flight, held in its access log line
                    assert held.acquire(timeout=60)
                health = health_pb2_grpc.HealthStub(channel)
                assert health.Check(health_pb2.HealthCheckRequest(), timeout=30).status == \
                    health_pb2.HealthCheckResponse.SERVING
                release.set()
                # each answered, or refused by the service (the place it took is free before its log line)
                assert all(f.exception() is None or "--max-concurrent" in f.exception().details() for f in futures)
                channel.close()
        finally:
            release.set()
            access.removeFilter(hold)

    def test_open_health_watches_are_limited_and_leave_the_calls_their_places(self):
        """Watches need no token and stay open: past OPEN_STREAMS they are refused, and those
        open take none of the places of the service's calls or of health checks."""
        with running_server(workers=1, max_concurrent=1, token="t") as server:
            channel = channel_to(server)
            health = health_pb2_grpc.HealthStub(channel)
            request = health_pb2.HealthCheckRequest()
            watches = [health.Watch(request, timeout=30) for _ in range(OPEN_STREAMS)]
            assert all(next(w).status == health_pb2.HealthCheckResponse.SERVING for w in watches)
            for _ in range(3):
                with pytest.raises(grpc.RpcError) as info:
                    next(health.Watch(request, timeout=5))
                assert info.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert health.Check(request, timeout=5).status == health_pb2.HealthCheckResponse.SERVING
            stub = stub_of(channel)
            answer = stub.Solve(solve_request(easy_position()), timeout=5, metadata=(("authorization", "Bearer t"),))
            assert answer.solution.value == 6
            watches[0].cancel()

            def a_watch_opens() -> bool:
                try:
                    watches.append(health.Watch(request, timeout=30))
                    return next(watches[-1]).status == health_pb2.HealthCheckResponse.SERVING
                except grpc.RpcError:
                    return False

            assert wait_until(a_watch_opens)   # the place of the one closed
            for w in watches:
                w.cancel()
            channel.close()

    def test_open_reflection_streams_share_the_limit_of_long_streams(self):
        """Reflection streams, like watches, stay open for as long as their client likes: past
        OPEN_STREAMS of them together the next is refused, and the service and health checks
        keep their places."""
        with running_server(workers=1, max_concurrent=1) as server:
            channel = channel_to(server)
            info = reflection_info(channel)
            hold = threading.Event()

            def listing() -> Iterator[reflection_pb2.ServerReflectionRequest]:
                yield reflection_pb2.ServerReflectionRequest(list_services="")
                hold.wait(30)

            streams = [info(listing(), timeout=30) for _ in range(OPEN_STREAMS)]
            assert all(next(s).list_services_response.service for s in streams)
            with pytest.raises(grpc.RpcError) as refused:
                next(info(listing(), timeout=5))
            assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            health = health_pb2_grpc.HealthStub(channel)
            request = health_pb2.HealthCheckRequest()
            with pytest.raises(grpc.RpcError) as refused:
                next(health.Watch(request, timeout=5))
            assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert health.Check(request, timeout=5).status == health_pb2.HealthCheckResponse.SERVING
            assert stub_of(channel).Solve(solve_request(easy_position()), timeout=5).solution.value == 6
            hold.set()
            for s in streams:
                s.cancel()
            channel.close()

    def test_message_size_limit(self):
        with running_server(max_message=1024) as server:
            channel = channel_to(server)
            stub = stub_of(channel)
            with pytest.raises(grpc.RpcError) as info:
                stub.Solve(solve_request(easy_position(), request_id="x" * 4000), timeout=5)
            assert info.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert stub.Solve(solve_request(easy_position(), request_id="small"), timeout=5).id == "small"
            channel.close()

    def test_reflection_answers_whatever_the_message_limit(self):
        """The limit on answers is the service's: reflection's answers, a few KiB, go out under 1 KiB."""
        with running_server(max_message=1024) as server:
            channel = channel_to(server)
            pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
            assert len(pool.FindServiceByName(SERVICE_NAME).methods) == 8
            assert "play" in pool.FindMessageTypeByName("malilla.dd.v1.PlayedDeal").fields_by_name
            channel.close()

    def test_an_answer_over_the_message_limit_is_refused_and_logged_so(self, caplog):
        """The analysis of a whole deal is far over 1 KiB: the call ends with RESOURCE_EXHAUSTED
        naming the answer's size, the access log says so, and the server goes on."""
        caplog.set_level(logging.INFO, logger="malilla_dd.access")
        request = pb.AnalyzePlayRequest(deal=convert.played_deal_message(played_deal("manille", 3)))
        assert request.ByteSize() < 1024
        with running_server(max_message=1024) as server:
            channel = channel_to(server)
            stub = stub_of(channel)
            with pytest.raises(grpc.RpcError) as info:
                stub.AnalyzePlay(request, timeout=30)
            assert info.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert re.fullmatch(r"the answer is \d+ bytes, over the server's message limit of 1024",
                                info.value.details())
            assert wait_until(lambda: any("AnalyzePlay status=" in r.getMessage() for r in caplog.records))
            [line] = [r.getMessage() for r in caplog.records if "AnalyzePlay status=" in r.getMessage()]
            assert "status=RESOURCE_EXHAUSTED" in line, line
            assert stub.Solve(solve_request(easy_position()), timeout=5).solution.value == 6
            channel.close()

    def test_a_stream_cut_for_an_item_over_the_limit_is_not_logged_ok(self, caplog):
        """gRPC ends the stream of requests there, for the handler sometimes as if its client had
        closed it: the access log has the call as CANCELLED, as a stream that failed, never OK."""
        caplog.set_level(logging.INFO, logger="malilla_dd.access")
        # a long item, which gRPC reads in many frames before it cuts the stream, is what shows it
        items = [solve_request(easy_position(), request_id="a"),
                 solve_request(easy_position(), request_id="x" * (4 << 20))]
        calls = 20
        with running_server(max_message=1 << 20) as server:
            channel = channel_to(server, options=[("grpc.max_send_message_length", -1)])
            stream = stub_of(channel).SolveStream
            for _ in range(calls):
                with pytest.raises(grpc.RpcError) as info:
                    list(stream(iter(items), timeout=30))
                assert info.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED

            def logged() -> list[str]:
                return [r.getMessage().split()[1] for r in caplog.records if "SolveStream status=" in r.getMessage()]

            assert wait_until(lambda: len(logged()) == calls)
            assert set(logged()) == {"status=CANCELLED"}
            channel.close()

    def test_concurrent_callers_all_answered(self):
        """More callers than workers (within the limit): every call answered correctly."""
        positions = [full_deal("manille", seed=s) for s in range(12)]
        with running_server(workers=2, max_concurrent=12) as server, \
                Client(f"127.0.0.1:{server.port}", timeout=30) as client:
            results: dict[int, object] = {}

            def call(i):
                results[i] = client.solve(positions[i], mode="best")

            threads = [threading.Thread(target=call, args=(i,)) for i in range(12)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            solver = Solver(1 << 22)
            for i, position in enumerate(positions):
                assert results[i].value == solver.solve(Position.from_json(position), mode="best").value


class TestThreads:
    def test_a_worker_searches_on_its_threads(self):
        """`threads`: each call's search runs on that many threads (a whole deal's search is long
        enough for the helper to join), with one thread's answers."""
        position = full_deal("malilla", 11875)   # about 0.9 s on the TEST_MEMORY table and two threads
        with running_server(workers=1, threads=2) as server, \
                Client(f"127.0.0.1:{server.port}", timeout=30) as client:
            answers = []
            call = threading.Thread(target=lambda: answers.append(client.solve(position)))
            call.start()
            most = 0
            while call.is_alive():
                most = max(most, helpers_running())
            call.join()
        assert most == 1
        assert answers[0].values == Solver().solve(Position.from_json(position)).values


class TestHealthAndReflection:
    def test_health(self, one_worker):
        server, _ = one_worker
        with Client(f"127.0.0.1:{server.port}") as client:
            assert client.health() == "SERVING"
            assert client.health(SERVICE_NAME) == "SERVING"
            with pytest.raises(RemoteError) as info:
                client.health("no.such.Service")
            assert info.value.code is grpc.StatusCode.NOT_FOUND

    def test_reflection_describes_the_api(self, one_worker):
        server, _ = one_worker
        channel = channel_to(server)
        database = ProtoReflectionDescriptorDatabase(channel)
        services = set(database.get_services())
        assert {SERVICE_NAME, "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"} <= services
        pool = descriptor_pool.DescriptorPool(database)
        service = pool.FindServiceByName(SERVICE_NAME)
        methods = {m.name: (m.input_type.full_name, m.output_type.full_name) for m in service.methods}
        assert methods == {"Solve": ("malilla.dd.v1.SolveRequest", "malilla.dd.v1.SolveResponse"),
                           "SolveStream": ("malilla.dd.v1.SolveRequest", "malilla.dd.v1.SolveResponse"),
                           "LegalMoves": ("malilla.dd.v1.LegalMovesRequest", "malilla.dd.v1.LegalMovesResponse"),
                           "Perft": ("malilla.dd.v1.PerftRequest", "malilla.dd.v1.PerftResponse"),
                           "AnalyzePlay": ("malilla.dd.v1.AnalyzePlayRequest", "malilla.dd.v1.AnalyzePlayResponse"),
                           "Table": ("malilla.dd.v1.TableRequest", "malilla.dd.v1.TableResponse"),
                           "GeneratePuzzles": ("malilla.dd.v1.GeneratePuzzlesRequest",
                                               "malilla.dd.v1.GeneratePuzzlesResponse"),
                           "Advise": ("malilla.dd.v1.AdviseRequest", "malilla.dd.v1.AdviseResponse")}
        position = pool.FindMessageTypeByName("malilla.dd.v1.Position")
        assert [f.name for f in position.fields] == ["game", "trump", "hands", "leader", "trick", "led_suits",
                                                     "to_move", "history", "pending_doubling"]
        played = pool.FindMessageTypeByName("malilla.dd.v1.PlayedDeal")
        assert [f.name for f in played.fields] == ["game", "trump", "hands", "leader", "dealer", "shown",
                                                   "pending_doubling", "play"]
        channel.close()


class TestShutdown:
    def test_graceful_stop(self):
        with running_server(workers=1, grace=5) as server:
            slow_run = server.service._run

            def run_slowly(job):   # a call that is surely still in flight when the stop begins
                time.sleep(0.3)
                return slow_run(job)

            server.service._run = run_slowly
            channel = channel_to(server)
            stub = stub_of(channel)
            health = health_pb2_grpc.HealthStub(channel)
            watch = health.Watch(health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=10)
            assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
            in_flight = stub.Solve.future(solve_request(easy_position()), timeout=10)
            assert wait_until(lambda: busy(server))
            stopper = threading.Thread(target=server.stop)
            start = time.monotonic()
            stopper.start()
            assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING
            assert not in_flight.done()
            assert in_flight.result().solution.value == 6   # finished within the grace period
            stopper.join(5)
            assert not stopper.is_alive() and server.wait(0)
            # no need to wait out the 5 s grace: the watch ended after its NOT_SERVING
            assert time.monotonic() - start < 2
            assert list(watch) == []
            with pytest.raises(grpc.RpcError) as info:
                stub.Solve(solve_request(easy_position()), timeout=2)
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE
            channel.close()

    def test_open_long_streams_end_when_the_stop_begins(self):
        """A watch of a service the server does not know sees NOT_SERVING too and ends, and an
        idle reflection stream is cancelled: neither holds the stop for its grace."""
        with running_server(workers=1, grace=60) as server:
            channel = channel_to(server)
            watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service="no.such.Service"),
                                                              timeout=120)
            assert next(watch).status == health_pb2.HealthCheckResponse.SERVICE_UNKNOWN
            info = reflection_info(channel)
            hold = threading.Event()

            def listing() -> Iterator[reflection_pb2.ServerReflectionRequest]:
                yield reflection_pb2.ServerReflectionRequest(list_services="")
                hold.wait(120)

            reflection = info(listing(), timeout=120)
            assert next(reflection).list_services_response.service
            stopper = threading.Thread(target=server.stop)
            stopper.start()
            assert [answer.status for answer in watch] == [health_pb2.HealthCheckResponse.NOT_SERVING]
            try:   # cancelled, or ended after its answer if the stop began as it was sent
                assert list(reflection) == []
            except grpc.RpcError as cancelled:
                assert cancelled.code() is grpc.StatusCode.CANCELLED
            stopper.join(30)
            assert not stopper.is_alive()   # long before the grace of 60 s
            hold.set()
            channel.close()

    def test_the_drain_serves_calls_with_health_not_serving(self):
        """Through the drain, health checks and new watches see NOT_SERVING (so load balancers
        send no more calls) while calls are still answered, and a reflection stream, which could
        hold the stop, is refused; a second stop ends the drain."""
        with running_server(workers=1, grace=5) as server:
            channel = channel_to(server)
            stub = stub_of(channel)
            health = health_pb2_grpc.HealthStub(channel)
            request = health_pb2.HealthCheckRequest(service=SERVICE_NAME)
            stopper = threading.Thread(target=server.stop, kwargs={"drain": 600})
            stopper.start()
            assert wait_until(lambda: health.Check(request, timeout=30).status ==
                              health_pb2.HealthCheckResponse.NOT_SERVING, 30)
            assert stub.Solve(solve_request(easy_position()), timeout=30).solution.value == 6
            assert [answer.status for answer in health.Watch(request, timeout=30)] == \
                [health_pb2.HealthCheckResponse.NOT_SERVING]
            with pytest.raises(grpc.RpcError) as info:
                ProtoReflectionDescriptorDatabase(channel).get_services()
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE
            assert stopper.is_alive() and not server.wait(0)
            server.stop(0)
            stopper.join(30)
            assert not stopper.is_alive() and server.wait(0)
            with pytest.raises(grpc.RpcError) as info:
                stub.Solve(solve_request(easy_position()), timeout=30)
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE
            channel.close()

    def test_a_slow_access_log_does_not_cost_a_call_its_answer(self):
        """A call whose handler is done is still in flight until its answer is sent."""
        class Slow(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                time.sleep(0.2)

        sink = Slow()
        access = logging.getLogger("malilla_dd.access")
        access.addHandler(sink)
        level = access.level
        access.setLevel(logging.INFO)
        try:
            with running_server(workers=1, grace=5) as server:
                run = server.service._run
                server.service._run = lambda job: time.sleep(0.3) or run(job)   # in flight when the stop begins
                channel = channel_to(server)
                stub = stub_of(channel)
                call = stub.Solve.future(solve_request(easy_position()), timeout=10)
                assert wait_until(lambda: busy(server))
                server.stop()
                assert call.result().solution.value == 6
                channel.close()
        finally:
            access.removeHandler(sink)
            access.setLevel(level)

    @pytest.mark.parametrize("method", ["Solve", "Perft"])
    def test_grace_runs_out(self, caplog, method):
        """The stop waits for the workers: it ends soon after its grace only if the search or
        count stops."""
        caplog.set_level(logging.INFO, logger="malilla_dd.access")
        with running_server(workers=1, grace=0.2) as server:
            channel = channel_to(server)
            stub = stub_of(channel)
            hard = getattr(stub, method).future(hard_request() if method == "Solve" else long_count(), timeout=30)
            assert wait_until(lambda: busy(server))
            start = time.monotonic()
            server.stop()
            took = time.monotonic() - start
            with pytest.raises(grpc.RpcError) as info:
                hard.result()
            assert info.value.code() in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE)
            assert 0.15 < took < 1.5, took
            # the log says what gRPC tells the client of a call cut at the end of the grace
            assert self._logged(caplog, method) == [f"{method} status=UNAVAILABLE"]
            channel.close()

    @staticmethod
    def _logged(caplog, method: str) -> list[str]:
        assert wait_until(lambda: any(f"{method} status=" in r.getMessage() for r in caplog.records))
        return [r.getMessage().split(" latency")[0].rsplit("/", 1)[1] for r in caplog.records
                if f"{method} status=" in r.getMessage()]

    def test_a_stalled_stream_cut_at_the_end_of_the_grace_is_logged_as_its_client_sees_it(self, caplog):
        """Its handler waits to send, with no search running, when gRPC cuts the call."""
        caplog.set_level(logging.INFO, logger="malilla_dd.access")
        with running_server(workers=1, grace=0.2) as server:
            channel = channel_to(server, options=[("grpc.http2.bdp_probe", 0)])
            stream = stub_of(channel).SolveStream(iter([solve_request(easy_position())] * 10000), timeout=30)
            next(stream)
            time.sleep(0.5)   # the client's window is full
            server.stop()
            with pytest.raises(grpc.RpcError) as info:
                list(stream)
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE
            assert self._logged(caplog, "SolveStream") == ["SolveStream status=UNAVAILABLE"]
            channel.close()

    def test_a_call_its_client_cancels_within_the_grace_is_logged_cancelled(self, caplog):
        caplog.set_level(logging.INFO, logger="malilla_dd.access")
        with running_server(workers=1, grace=30) as server:
            channel = channel_to(server)
            hard = stub_of(channel).Solve.future(hard_request(), timeout=30)
            assert wait_until(lambda: busy(server))
            stopper = threading.Thread(target=server.stop)
            stopper.start()
            assert wait_until(lambda: server.service.admission.active == 1 and not server.wait(0))
            hard.cancel()
            stopper.join(10)
            assert not stopper.is_alive()   # the stop ended with its last call, long before its grace
            assert self._logged(caplog, "Solve") == ["Solve status=CANCELLED"]
            channel.close()

    def test_a_grace_of_centuries_stops_without_a_thread_failing(self, monkeypatch):
        failures = []
        monkeypatch.setattr(threading, "excepthook", failures.append)
        with running_server(workers=1, grace=1e12) as server:
            server.stop()
            assert server.wait(5)
        assert failures == []


class ServeProcess:
    """`malilla-dd serve` (through solver.cli) on a free port, its stderr lines collected as they come."""

    def __init__(self, *args: str, env: dict | None = None) -> None:
        environment = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT), environment.get("PYTHONPATH")]))
        self.proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "serve", "--port", "0", *args],
                                     cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=environment)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=lambda: self.lines.extend(iter(self.proc.stderr.readline, "")),
                                        daemon=True)
        self._reader.start()
        line = self.proc.stdout.readline()
        if "serving" not in line:
            self.proc.kill()
            self._reader.join(5)
            pytest.fail(f"no start-up line: {line!r} {''.join(self.lines)}")
        self.address = line.rsplit(" ", 1)[-1].strip()

    def count(self, text: str) -> int:
        return sum(text in line for line in list(self.lines))

    def stderr(self) -> str:
        self._reader.join(5)
        return "".join(self.lines)

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


class TestProcess:
    @pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
    def test_signal_lets_calls_finish_and_exits_0(self, signum):
        with ServeProcess("--workers", "1", "--memory", "16M", "--grace", "5", "--log-level", "debug") as server:
            started = "method=/malilla.dd.v1.DoubleDummy/Solve started"
            with Client(server.address, timeout=20) as client:
                assert client.solve(easy_position()).value == 6
                position, mode, objective = hard_request_args()
                deadline = 0.8 * HARD_SECONDS
                outcome = []

                def long_call():
                    start = time.monotonic()
                    try:
                        client.solve(position, convert.mode_name(mode), convert.objective_name(objective),
                                     timeout=deadline)
                    except RemoteError as e:
                        outcome.append((e.code, time.monotonic() - start))
                    else:
                        outcome.append(("answered", time.monotonic() - start))

                call = threading.Thread(target=long_call)
                call.start()
                assert wait_until(lambda: server.count(started) == 2)   # the long call is in the server
                server.proc.send_signal(signum)
                call.join(10)
                # the call in flight ran on to its own deadline: the signal did not cut it off
                assert outcome and outcome[0][0] is grpc.StatusCode.DEADLINE_EXCEEDED, outcome
                assert outcome[0][1] > 0.9 * deadline, outcome
            assert server.proc.wait(10) == 0
            err = server.stderr()
        assert "method=/malilla.dd.v1.DoubleDummy/Solve status=OK latency_ms=" in err
        assert "method=/malilla.dd.v1.DoubleDummy/Solve status=DEADLINE_EXCEEDED latency_ms=" in err
        assert f"{signal.Signals(signum).name} received" in err
        assert err.rstrip().endswith("stopped")

    def test_a_signal_drains_then_a_second_one_stops(self):
        with ServeProcess("--workers", "1", "--memory", "16M", env={"MALILLA_DD_DRAIN": "600"}) as server:
            with Client(server.address, timeout=30) as client:
                assert client.health() == "SERVING"
                server.proc.send_signal(signal.SIGTERM)
                assert wait_until(lambda: server.count("draining: health NOT_SERVING, calls still served for 600.0 s"),
                                  30)
                assert client.health() == "NOT_SERVING"
                assert client.solve(easy_position()).value == 6
            server.proc.send_signal(signal.SIGTERM)
            assert server.proc.wait(30) == 0
            err = server.stderr()
        assert "SIGTERM again: cancelling the calls in flight" in err
        assert err.rstrip().endswith("stopped")

    def test_environment_configures_it(self):
        with ServeProcess(env={"MALILLA_DD_WORKERS": "1", "MALILLA_DD_MEMORY": "8M", "MALILLA_DD_TOKEN": "s3cret",
                               "MALILLA_DD_MAX_CONCURRENT": "3", "MALILLA_DD_LOG_LEVEL": "info",
                               "MALILLA_DD_THREADS": "2"}) as server:
            with Client(server.address, timeout=10) as anonymous:
                with pytest.raises(RemoteError) as info:
                    anonymous.solve(easy_position())
                assert info.value.code is grpc.StatusCode.UNAUTHENTICATED
            with Client(server.address, timeout=10, token="s3cret") as client:
                assert client.solve(easy_position()).value == 6
            server.proc.send_signal(signal.SIGTERM)
            assert server.proc.wait(10) == 0
            err = server.stderr()
        assert f"malilla-dd {__version__} serving malilla.dd.v1.DoubleDummy on " in err
        assert "1 worker of 2 threads, 8 MiB table each, at most 3 calls at once" in err
        assert "TLS off, token on" in err
        assert "method=/malilla.dd.v1.DoubleDummy/Solve status=UNAUTHENTICATED" in err

    def test_bad_flag_value(self):
        proc = subprocess.run([sys.executable, "-m", "solver.cli", "serve", "--workers", "zero"], cwd=PROJECT,
                              capture_output=True, text=True, timeout=30,
                              env={**os.environ, "PYTHONPATH": str(PROJECT)})
        assert proc.returncode == 2
        assert "--workers: 'zero' is not a valid workers" in proc.stderr

    def test_busy_port(self):
        with running_server() as server:
            proc = subprocess.run([sys.executable, "-m", "server", "--port", str(server.port)], cwd=PROJECT,
                                  capture_output=True, text=True, timeout=30,
                                  env={**os.environ, "PYTHONPATH": str(PROJECT)})
        assert proc.returncode == 1
        assert f"cannot listen on 127.0.0.1:{server.port}" in proc.stderr


class TestToken:
    def test_bearer_token(self):
        with running_server(token="tok-123") as server:
            target = f"127.0.0.1:{server.port}"
            for token in (None, "wrong", "tok-1234", "tok-12"):
                with Client(target, token=token, timeout=5) as client:
                    with pytest.raises(RemoteError) as info:
                        client.solve(easy_position())
                    assert info.value.code is grpc.StatusCode.UNAUTHENTICATED
                    with pytest.raises(RemoteError) as info:
                        list(client.solve_many([("a", easy_position())]))
                    assert info.value.code is grpc.StatusCode.UNAUTHENTICATED
                    with pytest.raises(RemoteError) as info:
                        client.legal_moves(easy_position())
                    assert info.value.code is grpc.StatusCode.UNAUTHENTICATED
                    assert client.health() == "SERVING"   # health checks stay open
            with Client(target, token="tok-123", timeout=5) as client:
                assert client.solve(easy_position()).value == 6
                assert [i for i, _ in client.solve_many([("a", easy_position())])] == ["a"]
                assert client.legal_moves(easy_position()) == ["QC", "QH", "QS"]
            channel = channel_to(server)
            for value, ok in (("bearer tok-123", True), ("BEARER tok-123", True), ("Basic tok-123", False),
                              ("Bearer TOK-123", False), ("Bearertok-123", False), ("tok-123", False)):
                call = stub_of(channel).Solve.with_call
                if ok:
                    call(solve_request(easy_position()), timeout=5, metadata=(("authorization", value),))
                else:
                    with pytest.raises(grpc.RpcError) as error:
                        call(solve_request(easy_position()), timeout=5, metadata=(("authorization", value),))
                    assert error.value.code() is grpc.StatusCode.UNAUTHENTICATED, value
            channel.close()


def self_signed(tmp_path) -> tuple[str, str, bytes]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    import ipaddress

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    pem = cert.public_bytes(serialization.Encoding.PEM)
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(pem)
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_file), str(key_file), pem


class TestTLS:
    def test_tls(self, tmp_path):
        cert, key, pem = self_signed(tmp_path)
        with running_server(tls_cert=cert, tls_key=key, token="t") as server:
            with Client(f"localhost:{server.port}", root_certificates=pem, token="t", timeout=10) as client:
                assert client.solve(easy_position()).value == 6
            with Client(f"127.0.0.1:{server.port}", timeout=3, token="t") as plaintext:
                with pytest.raises(RemoteError) as info:
                    plaintext.solve(easy_position())
                assert info.value.code is grpc.StatusCode.UNAVAILABLE
            _, _, other = self_signed(tmp_path / ".." )
            with Client(f"localhost:{server.port}", root_certificates=other, token="t", timeout=3) as wrong_ca:
                with pytest.raises(RemoteError) as info:
                    wrong_ca.solve(easy_position())
                assert info.value.code is grpc.StatusCode.UNAVAILABLE

    def test_the_client_command_takes_a_pem_ca_and_refuses_other_files(self, tmp_path):
        cert, key, pem = self_signed(tmp_path)
        assert holds_certificates(pem)
        assert holds_certificates("# Zertifikat für localhost\n".encode() + pem.replace(b"\n", b"\r\n"))
        assert holds_certificates(pem.replace(b"BEGIN CERTIFICATE", b"BEGIN TRUSTED CERTIFICATE"))
        key_pem = open(key, "rb").read()   # a PEM file, but of a key
        assert not any(holds_certificates(data) for data in (b"", b"hello", key_pem, b"\xff" + pem))
        with running_server(tls_cert=cert, tls_key=key) as server:
            proc = subprocess.run([sys.executable, "-m", "server.client", "health", "--address",
                                   f"localhost:{server.port}", "--ca", cert], capture_output=True, text=True,
                                  timeout=60, cwd=PROJECT)
            assert (proc.returncode, proc.stdout) == (0, "SERVING\n"), proc.stderr

    def test_cert_without_key_is_refused(self, tmp_path):
        with pytest.raises(ValueError, match="both"):
            Config(tls_cert=str(tmp_path / "cert.pem"))

    def test_an_empty_file_name_is_refused(self, tmp_path):
        """Not taken for no certificate, which would serve plaintext though a key was given."""
        parser = argparse.ArgumentParser()
        add_arguments(parser)
        args = parser.parse_args(["--tls-cert", "", "--tls-key", str(tmp_path / "key.pem")])
        with pytest.raises(ValueError) as info:
            config_from_args(args, {})
        assert str(info.value) == "--tls-cert: empty, where a file name is wanted"

    def test_unusable_files_are_refused_by_name_before_anything_starts(self, tmp_path):
        cert, key, _ = self_signed(tmp_path)
        (tmp_path / "other").mkdir()
        _, other_key, _ = self_signed(tmp_path / "other")
        junk = tmp_path / "junk.pem"
        junk.write_text("not a certificate\n")
        missing = tmp_path / "missing.pem"
        threads = threading.active_count()
        for cert_file, key_file, message in [
            (cert, str(missing), f"tls: cannot read {missing}: No such file or directory"),
            (str(junk), key, f"tls: {junk} and {key} are not a PEM certificate chain and its private key"),
            (cert, other_key, f"tls: the key {other_key} does not belong to the certificate {cert}"),
        ]:
            with pytest.raises(OSError) as info:
                start(Config(port=0, tls_cert=cert_file, tls_key=key_file))
            assert str(info.value) == message
        assert threading.active_count() == threads   # no workers were started


class TestAccessLog:
    def test_one_line_per_call(self, one_worker, caplog):
        server, stub = one_worker
        caplog.set_level(logging.INFO, logger="malilla_dd.access")
        stub.Solve(solve_request(easy_position()), timeout=10)
        with pytest.raises(grpc.RpcError):
            stub.Solve(pb.SolveRequest(), timeout=10)
        list(stub.SolveStream(iter([solve_request(easy_position())]), timeout=10))
        stub.LegalMoves(pb.LegalMovesRequest(position=solve_request(easy_position()).position), timeout=10)
        assert wait_until(lambda: len(caplog.records) >= 4)
        lines = [r.getMessage() for r in caplog.records if r.name == "malilla_dd.access"]
        assert [line.split(" latency_ms=")[0] for line in lines[:4]] == [
            "method=/malilla.dd.v1.DoubleDummy/Solve status=OK",
            "method=/malilla.dd.v1.DoubleDummy/Solve status=INVALID_ARGUMENT",
            "method=/malilla.dd.v1.DoubleDummy/SolveStream status=OK",
            "method=/malilla.dd.v1.DoubleDummy/LegalMoves status=OK",
        ]
        for line in lines[:4]:
            latency = float(line.split("latency_ms=")[1].split()[0])
            assert 0 <= latency < 5000
            assert "peer=ipv4:127.0.0.1:" in line


class TestConfig:
    def parse(self, argv, env):
        import argparse
        parser = argparse.ArgumentParser()
        add_arguments(parser)
        return config_from_args(parser.parse_args(argv), env)

    def test_defaults(self):
        config = self.parse([], {})
        assert (config.host, config.port, config.max_message, config.grace, config.max_call_seconds, config.drain) == \
            ("127.0.0.1", 50051, 4 << 20, 10.0, 600.0, 0.0)
        assert config.workers >= 1 and config.concurrency == 8 * config.workers and config.threads == 1
        assert config.memory == 256 << 20 and config.token is None and config.tls_cert is None

    def test_environment_then_flags(self):
        env = {"MALILLA_DD_PORT": "6000", "MALILLA_DD_WORKERS": "3", "MALILLA_DD_MEMORY": "64M",
               "MALILLA_DD_MAX_CONCURRENT": "5", "MALILLA_DD_MAX_MESSAGE": "1MiB", "MALILLA_DD_GRACE": "2.5",
               "MALILLA_DD_TOKEN": "abc", "MALILLA_DD_HOST": "0.0.0.0", "MALILLA_DD_THREADS": "4",
               "MALILLA_DD_MAX_CALL_SECONDS": "0", "MALILLA_DD_DRAIN": "7"}
        config = self.parse([], env)
        assert (config.port, config.workers, config.memory, config.concurrency, config.max_message, config.grace,
                config.token, config.host, config.threads, config.max_call_seconds, config.drain) == \
            (6000, 3, 64 << 20, 5, 1 << 20, 2.5, "abc", "0.0.0.0", 4, 0.0, 7.0)
        config = self.parse(["--port", "7000", "--workers", "1", "--memory", "1G", "--threads", "2",
                             "--max-call-seconds", "30", "--drain", "0.5"], env)
        assert (config.port, config.workers, config.memory, config.concurrency, config.threads,
                config.max_call_seconds, config.drain) == (7000, 1, 1 << 30, 5, 2, 30.0, 0.5)

    @pytest.mark.parametrize("argv,env,words", [
        (["--port", "70000"], {}, "--port: 70000"),
        ([], {"MALILLA_DD_PORT": "70000"}, "MALILLA_DD_PORT: 70000 is not a TCP port"),
        ([], {"MALILLA_DD_WORKERS": "0"}, "MALILLA_DD_WORKERS: 0 must be at least 1"),
        ([], {"MALILLA_DD_TOKEN": "a b"}, "MALILLA_DD_TOKEN: must be printable ASCII"),
        (["--max-message", "2G"], {}, "--max-message: 2147483648 bytes (at least 1K, under 2G: gRPC's limit)"),
        ([], {"MALILLA_DD_MAX_MESSAGE": "3G"}, "MALILLA_DD_MAX_MESSAGE: 3221225472 bytes"),
        ([], {"MALILLA_DD_PORT": "http"}, "MALILLA_DD_PORT: 'http'"),
        (["--memory", "12 parsecs"], {}, "--memory: '12 parsecs'"),
        (["--memory", "1K"], {}, "too small"),
        (["--workers", "0"], {}, "--workers: 0 must be at least 1"),
        (["--max-concurrent", "0"], {}, "--max-concurrent: 0 must be at least 1"),
        (["--threads", "0"], {}, "--threads: 0 must be at least 1"),
        (["--threads", "17"], {}, "--threads: 17 is more than the 16 a search can use"),
        (["--threads", "two"], {}, "--threads: 'two' is not a valid threads"),
        ([], {"MALILLA_DD_THREADS": "-1"}, "MALILLA_DD_THREADS: -1 must be at least 1"),
        (["--grace", "-1"], {}, "grace"),
        (["--grace", "nan"], {}, "grace: nan seconds (0 or more, finite)"),
        (["--grace", "inf"], {}, "grace: inf seconds (0 or more, finite)"),
        (["--drain", "-2"], {}, "--drain: -2.0 seconds (0 or more, finite)"),
        ([], {"MALILLA_DD_DRAIN": "nan"}, "MALILLA_DD_DRAIN: nan seconds (0 or more, finite)"),
        (["--max-call-seconds", "-1"], {}, "--max-call-seconds: -1.0 seconds (0 for no limit, or more, finite)"),
        ([], {"MALILLA_DD_MAX_CALL_SECONDS": "inf"}, "MALILLA_DD_MAX_CALL_SECONDS: inf seconds"),
        ([], {"MALILLA_DD_MAX_CALL_SECONDS": "ten"}, "MALILLA_DD_MAX_CALL_SECONDS: 'ten' is not a valid max call"),
        (["--token", ""], {}, "token: must be printable ASCII without spaces, and not empty"),
        (["--token", "two words"], {}, "token: must be"),
        ([], {"MALILLA_DD_TOKEN": "line\nbreak"}, "MALILLA_DD_TOKEN: must be"),
        (["--memory", "1T"], {}, "--memory: '1T'"),
        (["--memory", str(1 << 62), "--workers", "1"], {}, f"memory: {1 << 62} bytes is more than this machine's"),
        (["--workers", "100000"], {}, f"memory: 100000 tables of {256 << 20} bytes is more than this machine's"),
        (["--log-level", "loud"], {}, "--log-level: 'LOUD' is not DEBUG"),
        (["--tls-key", "k.pem"], {}, "--tls-key: needs the certificate chain file too (TLS takes both, or neither)"),
        ([], {"MALILLA_DD_TLS_CERT": "c.pem"}, "MALILLA_DD_TLS_CERT: needs the private key file too"),
        (["--host", ""], {}, "--host: empty, where an address to listen on is wanted"),
    ])
    def test_bad_values(self, argv, env, words):
        with pytest.raises(ValueError, match=re.escape(words)):
            self.parse(argv, env)


class TestServiceOptions:
    """The service's own options, for a program that serves it on a server of its own."""

    @pytest.mark.parametrize("seconds", [-1, math.nan, math.inf])
    def test_a_call_limit_that_is_no_limit_of_time_is_refused(self, seconds):
        with pytest.raises(ValueError, match=re.escape(f"max_call_seconds: {seconds} seconds (0 for no limit")):
            DoubleDummyService(memory=1 << 20, max_call_seconds=seconds)

    def test_the_calls_at_once_are_eight_a_worker_by_default_as_serve_allows(self):
        for workers in (1, 3):
            service = DoubleDummyService(workers=workers, memory=1 << 20)
            assert service.admission.limit == Config(workers=workers).concurrency == 8 * workers
            service.close()


@pytest.mark.parametrize("error", [RemoteError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down"),
                                   InvalidRequest(grpc.StatusCode.INVALID_ARGUMENT, "bad", [("position", "missing")])])
def test_a_client_error_pickles_whole(error):
    """A client's error crosses to and from worker processes (a batch's, a pool's)."""
    twin = pickle.loads(pickle.dumps(error))
    assert (type(twin), str(twin), twin.code, twin.details, twin.violations) == \
        (type(error), str(error), error.code, error.details, error.violations)


def test_a_cancel_that_comes_as_a_search_starts_keeps_it_from_running():
    """The job's cancel can come as the search's timeout is worked out, before its solver is
    the job's: the search must not start then, or nothing would stop it."""
    class CancelledMeanwhile:
        def time_remaining(self):
            job.cancel()   # as if the client went away at this moment
            return None

    job = jobs.Job(None, CancelledMeanwhile())
    with pytest.raises(jobs.Stopped):
        jobs.Budget(job, Solver(1 << 20)).solve(Position.from_json(easy_position()))
    assert job.solver is None


def test_a_cancel_while_queued_keeps_the_job_from_ever_running():
    """A job still waiting for a worker has its future cancelled, so the pool never runs it."""
    job = jobs.Job(None, None)
    job.future = Future()   # submitted, not yet taken by a worker
    job.cancel()
    assert job.cancelled and job.future.cancelled()
