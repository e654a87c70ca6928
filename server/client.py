"""A small client of the service for Python callers.

>>> from server.client import Client                           # doctest: +SKIP
>>> with Client("127.0.0.1:50051") as dd:                       # doctest: +SKIP
...     solution = dd.solve(position_json, mode="best", timeout=5)
...     solution.value, solution.best, dd.legal_moves(position_json)

Answers are the library's own `solver.Solution` and `solver.perft.Perft`;
`analyze_play` and `table` give the library's JSON of an analysis and a table
(what `Analysis.to_json()` and `DDTable.to_json()` give, as `malilla-dd analyze`
and `malilla-dd table` print it). A position, played deal, full deal or view
is read and checked by the library before the call, so a bad one raises the
library's `PositionError` (a ValueError naming the field, as `malilla-dd`
words it) and is never sent; `solve_many` answers an item that is not a JSON
object itself and sends every other item, and the server answers a bad one in
the stream. A refused call raises `RemoteError`
(`InvalidRequest` for INVALID_ARGUMENT, with the field violations).
"""
from __future__ import annotations

import queue
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import grpc
from google.protobuf.descriptor import FieldDescriptor
from google.rpc import code_pb2, error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from solver.analysis import PlayedDeal
from solver.checks import check_whole
from solver.errors import PositionError
from solver.failures import ArgumentParser, flag_named, os_failure, parse, settle_stdout
from solver.jsonlines import blank_line, input_lines
from solver.perft import Perft, check_depth, check_depth_option
from solver.position import Position
from solver.puzzles import ATTEMPTS_PER_PUZZLE, MARGIN, MAX_TRICKS, MIN_TRICKS, shortfall
from solver.quoting import quoted
from solver.solve import TARGET_MODES, Solution, check_objective, check_question, check_timeout
from solver.table import read_table_input, table_trumps
from solver.view import View

from . import convert
from ._proto import pb, pb_grpc
from .config import check_token

__all__ = ["Client", "RemoteError", "InvalidRequest", "StreamError", "field_violations", "holds_certificates"]

PositionLike = Position | dict[str, Any] | str | bytes
PlayedDealLike = PlayedDeal | dict[str, Any] | str | bytes


def field_violations(error: grpc.RpcError) -> list[tuple[str, str]]:
    """The google.rpc.BadRequest field violations carried by a call's rich status."""
    status = rpc_status.from_call(error) if isinstance(error, grpc.Call) else None
    if status is None:
        return []
    out: list[tuple[str, str]] = []
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            out += [(v.field, v.description) for v in bad.field_violations]
    return out


class RemoteError(Exception):
    """A call that ended with a status other than OK."""

    def __init__(self, code: grpc.StatusCode, details: str,
                 violations: list[tuple[str, str]] | None = None) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details
        self.violations = violations or []

    def __reduce__(self) -> tuple[type[RemoteError], tuple[grpc.StatusCode, str, list[tuple[str, str]]]]:
        return type(self), (self.code, self.details, self.violations)

    @classmethod
    def of(cls, error: grpc.RpcError) -> RemoteError:
        code, details = error.code(), error.details() or ""
        if code is grpc.StatusCode.INVALID_ARGUMENT:
            return InvalidRequest(code, details, field_violations(error))
        return cls(code, details)


class InvalidRequest(RemoteError, ValueError):
    """INVALID_ARGUMENT: `violations` lists (field path, problem)."""


@dataclass(frozen=True)
class StreamError:
    """A stream item the server refused."""

    code: int
    message: str
    violations: list[tuple[str, str]]


def _checked(position: PositionLike, strict: bool = True) -> Position:
    return position if isinstance(position, Position) else Position.from_json(position, strict=strict)


def _check_options(mode: str, objective: str, target: int | None) -> None:
    check_question(mode, objective, target)
    if target is not None:
        check_whole("target", target)


def _check_bits(name: str, value: object, bits: int, least: int | None = None) -> None:
    """Raise ValueError naming `name` unless `value` is a whole number of `bits` bits (signed), and
    at least `least` if given."""
    check_whole(name, value, least)
    assert isinstance(value, int)
    if not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
        raise ValueError(f"{name}: {quoted(value)} is beyond the {bits}-bit whole numbers the service takes")


def _set_numbers(request: Any, **values: int | None) -> None:
    """Set the request's whole-number fields given (not None), each a whole number its field can
    carry (else a ValueError naming it, where the message's own error would not)."""
    for name, value in values.items():
        if value is not None:
            _check_bits(name, value, 64 if request.DESCRIPTOR.fields_by_name[name].cpp_type ==
                        FieldDescriptor.CPPTYPE_INT64 else 32)
            setattr(request, name, value)


def _request(position: PositionLike, mode: str, objective: str, target: int | None,
             request_id: str = "") -> pb.SolveRequest:
    """The request of options that `_check_options` has passed."""
    request = pb.SolveRequest(position=convert.position_message(position), mode=convert.MODES[mode],
                              objective=convert.OBJECTIVES[objective], id=request_id)
    if target is not None:
        # beyond the message's 32 bits, a target is as sure or as hopeless as at its edge
        request.target = max(-1 << 31, min(target, (1 << 31) - 1))
    return request


def _as_asked(solution: Solution, target: int | None) -> Solution:
    """The solution with the target asked for, which `_request` may have brought within 32 bits."""
    return solution if target is None else replace(solution, target=target)


class Client:
    """A channel to the service with typed calls.

    `token` adds ``authorization: Bearer <token>``; `root_certificates` (PEM
    bytes) turns on TLS (`server_name` overrides the name checked in the
    server's certificate). `timeout` is the default deadline of each call in
    seconds (positive; None, or 1e9 seconds and more: no deadline).
    """

    def __init__(self, target: str = "127.0.0.1:50051", *, token: str | None = None,
                 root_certificates: bytes | None = None, server_name: str | None = None,
                 timeout: float | None = None, options: list[tuple[str, Any]] | None = None) -> None:
        self.timeout = check_timeout(timeout)
        check_token(token)
        options = list(options or [])
        if server_name:
            options.append(("grpc.ssl_target_name_override", server_name))
        if root_certificates is not None:
            credentials = grpc.ssl_channel_credentials(root_certificates=root_certificates)
            self.channel = grpc.secure_channel(target, credentials, options=options)
        else:
            self.channel = grpc.insecure_channel(target, options=options)
        self.stub = pb_grpc.DoubleDummyStub(self.channel)
        self.health_stub = health_pb2_grpc.HealthStub(self.channel)
        self.metadata = (("authorization", f"Bearer {token}"),) if token else ()

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _timeout(self, timeout: float | None) -> float | None:
        return self.timeout if timeout is None else check_timeout(timeout)

    def _call(self, method: Callable[..., Any], request: Any, timeout: float | None) -> Any:
        """One unary call with this client's deadline and metadata; failures raise `RemoteError`."""
        try:
            return method(request, timeout=self._timeout(timeout), metadata=self.metadata)
        except grpc.RpcError as e:
            raise RemoteError.of(e) from None

    def _stream(self, method: Callable[..., Iterator[Any]], request: Any, timeout: float | None) -> Iterator[Any]:
        """The responses of one streaming call, as `_call`."""
        try:
            yield from method(request, timeout=self._timeout(timeout), metadata=self.metadata)
        except grpc.RpcError as e:
            raise RemoteError.of(e) from None

    def solve(self, position: PositionLike, mode: str = "all", objective: str = "points",
              target: int | None = None, timeout: float | None = None) -> Solution:
        """`solver.Solver.solve` on the server."""
        _check_options(mode, objective, target)
        response = self._call(self.stub.Solve, _request(_checked(position), mode, objective, target), timeout)
        return _as_asked(convert.solution_from_message(response.solution), target)

    def solve_many(self, positions: Iterable[tuple[str, PositionLike]], mode: str = "all",
                   objective: str = "points", target: int | None = None,
                   timeout: float | None = None) -> Iterator[tuple[str, Solution | StreamError]]:
        """(id, position) pairs through one SolveStream call; yields (id, Solution or
        StreamError) in the same order. An item that the library refuses is answered here, as the
        server answers an item it refuses. A stream that ends without the answer to an item sent
        raises `RemoteError` (INTERNAL)."""
        _check_options(mode, objective, target)
        # per item in order: (id, its StreamError) if refused here, (id, None) if sent
        items: queue.SimpleQueue[tuple[str, StreamError | None]] = queue.SimpleQueue()

        def requests() -> Iterator[pb.SolveRequest]:
            for request_id, position in positions:
                try:
                    # checked here as `solve` checks it: the message has no field for some of the
                    # JSON's (`dealer`, `shown`, `play`), which the server could then not refuse
                    request = _request(_checked(position), mode, objective, target, request_id)
                except PositionError as e:
                    items.put((request_id, StreamError(code_pb2.INVALID_ARGUMENT, str(e),
                                                       [(convert.field_path(e.field), e.problem)])))
                    continue
                items.put((request_id, None))
                yield request

        for response in self._stream(self.stub.SolveStream, requests(), timeout):
            while True:   # the items refused here before the one this response answers
                request_id, refused = items.get()
                if refused is None:
                    break
                yield request_id, refused
            if response.HasField("error"):
                e = response.error
                yield response.id, StreamError(e.code, e.message,
                                               [(v.field, v.description) for v in e.field_violations])
            else:
                yield response.id, _as_asked(convert.solution_from_message(response.solution), target)
        while not items.empty():
            request_id, refused = items.get()
            if refused is None:   # sent, and the stream ended without its answer
                raise RemoteError(grpc.StatusCode.INTERNAL,
                                  f"the stream ended without an answer to item {quoted(request_id)}")
            yield request_id, refused

    def legal_moves(self, position: PositionLike, timeout: float | None = None, *,
                    lenient: bool = False) -> list[str]:
        request = pb.LegalMovesRequest(position=convert.position_message(_checked(position, strict=not lenient)),
                                       lenient=lenient)
        return list(self._call(self.stub.LegalMoves, request, timeout).legal)

    def perft(self, position: PositionLike, depth: int, timeout: float | None = None, *,
              lenient: bool = False) -> Perft:
        """`solver.Solver.perft` on the server: the legal sequences of the next `depth` cards,
        in total and by first card (`lenient` skips the hand-size checks, as in `legal_moves`)."""
        checked = _checked(position, strict=not lenient)
        check_depth(checked, depth)
        request = pb.PerftRequest(position=convert.position_message(checked), depth=depth, lenient=lenient)
        return convert.perft_from_message(self._call(self.stub.Perft, request, timeout))

    def analyze_play(self, deal: PlayedDealLike, timeout: float | None = None, *, objective: str = "points",
                     single_dummy: int = 0, seed: int | None = None) -> dict[str, Any]:
        """`solver.analysis.analyze` on the server: a played deal (the start of a deal plus `play`)
        in, the analysis's JSON out (equal to the library's `Analysis.to_json()`). `seed` goes only
        with `single_dummy` N > 0 (the server refuses it otherwise)."""
        check_objective(objective)
        if not isinstance(deal, PlayedDeal):
            deal = PlayedDeal.from_json(deal)
        request = pb.AnalyzePlayRequest(deal=convert.played_deal_message(deal),
                                        objective=convert.OBJECTIVES[objective])
        _set_numbers(request, single_dummy=single_dummy, seed=seed)
        return convert.analysis_json(self._call(self.stub.AnalyzePlay, request, timeout).analysis)

    def table(self, deal: PositionLike, timeout: float | None = None,
              trumps: Sequence[str] | None = None) -> dict[str, Any]:
        """`solver.table.table_of` on the server: a full deal (`trump`, `leader`, `dealer`, `shown`
        optional) and the trumps to solve (default every trump of the game) in, the table's JSON
        out (equal to the library's `DDTable.to_json()`)."""
        position, _, _ = read_table_input(deal)
        table_trumps(trumps, position.profile)
        request = pb.TableRequest(deal=convert.deal_message(deal), trumps=trumps)
        return convert.table_json(self._call(self.stub.Table, request, timeout).table)

    def generate_puzzles(self, game: str, count: int, seed: int = 0, min_tricks: int | None = None,
                         max_tricks: int | None = None, margin: int | None = None, max_attempts: int | None = None,
                         timeout: float | None = None,
                         progress: Callable[[int, int], object] | None = None) -> Iterator[dict[str, Any]]:
        """`solver.puzzles.generate` on the server: each puzzle's JSON as it is found (equal to the
        library's `Puzzle.to_json()`); options left out take the server's defaults.
        `progress(attempts, found)` is called at each of the server's progress items, the last
        when the attempts end."""
        request = pb.GeneratePuzzlesRequest(game=game)
        _set_numbers(request, count=count, seed=seed, min_tricks=min_tricks, max_tricks=max_tricks, margin=margin,
                     max_attempts=max_attempts)
        for item in self._stream(self.stub.GeneratePuzzles, request, timeout):
            if item.HasField("puzzle"):
                yield convert.puzzle_json(item.puzzle)
            elif progress is not None:
                progress(item.progress.attempts, item.progress.found)

    def advise(self, view: View | dict[str, Any] | str | bytes, samples: int = 100, seed: int = 0, goal: int | None = None,
               progress_every: int = 10, timeout: float | None = None) -> Iterator[dict[str, Any]]:
        """`solver.advice.advise_iter` on the server: a view (one seat's hand and the play) in, the
        partial advice JSON every `progress_every` samples, then the final one (``done``)."""
        request = pb.AdviseRequest()
        _set_numbers(request, samples=samples, seed=seed, progress_every=progress_every, goal=goal)
        if not isinstance(view, View):
            View.from_json(view)   # refused here, as the library refuses it
        request.view.CopyFrom(convert.view_message(view))
        for response in self._stream(self.stub.Advise, request, timeout):
            yield convert.advice_json(response)

    def health(self, service: str = "", timeout: float | None = 5.0) -> str:
        """SERVING, NOT_SERVING, ... (the grpc.health.v1 status name)."""
        try:
            response = self.health_stub.Check(health_pb2.HealthCheckRequest(service=service),
                                              timeout=timeout)
        except grpc.RpcError as e:
            raise RemoteError.of(e) from None
        name: str = health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)
        return name


_PEM_CERTIFICATE = re.compile(rb"^-----BEGIN (TRUSTED |X509 )?CERTIFICATE-----\r?$", re.MULTILINE)


def holds_certificates(pem: bytes) -> bool:
    """Does `pem` hold a PEM certificate, by the line that begins one? (Text around the
    certificates, in any encoding, is allowed, as gRPC allows it.)"""
    return _PEM_CERTIFICATE.search(pem) is not None


def main(argv: list[str] | None = None) -> int:
    """`python -m server.client solve|legal|perft|analyze|table|advise|puzzles|health`: JSON lines on
    stdin (positions, played deals, full deals, views; `puzzles` reads none), answers as JSON lines
    (the formats of `malilla-dd solve`, `legal`, `perft`, `analyze`, `table`, `advise` and `puzzles`)
    from a running service."""
    import argparse
    import json
    import os
    import sys

    from solver.cli import add_trumps
    from solver.jsonlines import read_stdin_as_utf8
    from solver.profiles import PROFILES

    read_stdin_as_utf8()
    parser = ArgumentParser(prog="python -m server.client", description=main.__doc__)
    parser.add_argument("command", choices=["solve", "legal", "perft", "analyze", "table", "advise", "puzzles",
                                            "health"])
    parser.add_argument("--address", default=os.environ.get("MALILLA_DD_ADDRESS") or "127.0.0.1:50051",
                        help="host:port of the service (default 127.0.0.1:50051) [env MALILLA_DD_ADDRESS]")
    parser.add_argument("--mode", choices=list(convert.MODES), help="solve: the search mode (default all)")
    parser.add_argument("--objective", choices=list(convert.OBJECTIVES),
                        help="solve and analyze: the objective (default points)")
    parser.add_argument("--target", type=int)
    parser.add_argument("--single-dummy", type=int, metavar="N",
                        help="analyze: each card's single-dummy verdict from N sampled layouts (default 0: none)")
    parser.add_argument("--lenient", action="store_true", help="legal and perft: skip the hand-size checks")
    parser.add_argument("--depth", type=int, metavar="N",
                        help="perft: count the legal sequences of the next N cards, 1 up to the cards left (required)")
    add_trumps(parser, "table: ")
    parser.add_argument("--samples", type=int, help="advise: layouts of the hidden cards to solve (default 100)")
    parser.add_argument("--goal", type=int, help="advise: also report how often each card takes at least this "
                                                 "many points")
    parser.add_argument("--seed", type=int, help="analyze (its single-dummy sampling), advise, puzzles: the seed "
                                                 "(default 0)")
    parser.add_argument("--game", choices=sorted(PROFILES), help="puzzles: the game of the random deals "
                                                                 "(default malilla)")
    parser.add_argument("--count", type=int, help="puzzles: puzzles to write (default 10)")
    parser.add_argument("--min-tricks", type=int, help=f"puzzles: fewest tricks left (default {MIN_TRICKS})")
    parser.add_argument("--max-tricks", type=int, help=f"puzzles: most tricks left (default {MAX_TRICKS})")
    parser.add_argument("--margin", type=int,
                        help=f"puzzles: points every other card must fall short by (default {MARGIN})")
    parser.add_argument("--max-attempts", type=int, metavar="N",
                        help=f"puzzles: positions of random deals to check at the most (default {ATTEMPTS_PER_PUZZLE} a "
                             "puzzle)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per call (default 60)")
    parser.add_argument("--token", default=os.environ.get("MALILLA_DD_TOKEN") or None,
                        help="bearer token [env MALILLA_DD_TOKEN]")
    parser.add_argument("--ca", type=argparse.FileType("rb"), help="PEM file of the certificate authority: use TLS")
    args = parse(parser, argv)
    if sys.stdout is None or (sys.stdin is None and args.command not in ("health", "puzzles")):   # closed by the caller
        print(f"{parser.prog}: standard {'output' if sys.stdout is None else 'input'} is closed", file=sys.stderr)
        return 1
    if (args.mode in TARGET_MODES) != (args.target is not None):
        parser.error("give --target exactly with --mode target or targets")
    commands = {"--mode": "solve", "--objective": "solve analyze", "--single-dummy": "analyze",
                "--lenient": "legal perft", "--depth": "perft",
                "--trumps": "table", "--samples": "advise", "--goal": "advise", "--seed": "analyze advise puzzles",
                "--game": "puzzles", "--count": "puzzles", "--min-tricks": "puzzles", "--max-tricks": "puzzles",
                "--margin": "puzzles", "--max-attempts": "puzzles"}
    for flag, takers in commands.items():
        value = getattr(args, flag[2:].replace("-", "_"))
        if value is not None and value is not False and args.command not in takers.split():
            parser.error(f"{flag}: no effect with {args.command}")
    if args.command == "perft" and args.depth is None:
        parser.error("perft needs --depth")
    if args.command == "analyze" and args.seed is not None and not args.single_dummy:
        parser.error("--seed: no effect with --single-dummy 0 (the default)")
    samples = 100 if args.samples is None else args.samples
    count = 10 if args.count is None else args.count
    try:
        check_timeout(args.timeout)
        check_token(args.token)
        for flag, least in (("--samples", 1), ("--goal", 0), ("--single-dummy", 0), ("--depth", 1),
                            ("--count", None), ("--min-tricks", None), ("--max-tricks", None), ("--margin", None),
                            ("--max-attempts", None), ("--seed", None)):   # what the request's fields can carry
            value = getattr(args, flag[2:].replace("-", "_"))
            if value is not None:
                _check_bits(flag, value, 64 if flag == "--seed" else 32, least)
        if args.trumps is not None:
            table_trumps(args.trumps)   # a trump of some game, none twice: each deal's game is checked with the deal
        if args.depth is not None:
            check_depth_option(args.depth, "--depth")
    except ValueError as e:
        parser.error(flag_named(parser, str(e)))
    roots = args.ca.read() if args.ca else None
    if roots is not None and not holds_certificates(roots):   # gRPC would only fail to connect
        parser.error(f"--ca: {args.ca.name} holds no PEM certificate")
    try:
        with Client(args.address, token=args.token, root_certificates=roots, timeout=args.timeout) as client:
            if args.command == "health":
                try:
                    print(client.health(timeout=client.timeout), flush=True)
                except RemoteError as e:
                    print(e, file=sys.stderr)
                    return 1
                return 0
            if args.command == "puzzles":
                ended = [0, 0]   # attempts and puzzles found, at the last progress item

                def progress(attempts: int, found: int) -> None:
                    ended[:] = attempts, found

                try:
                    for puzzle in client.generate_puzzles(args.game or "malilla", count, args.seed or 0,
                                                          args.min_tricks, args.max_tricks, args.margin,
                                                          args.max_attempts, progress=progress):
                        print(json.dumps(puzzle), flush=True)
                except InvalidRequest as e:   # the options, refused before any puzzle
                    parser.error("; ".join(flag_named(parser, f"{field}: {problem}")
                                           for field, problem in e.violations))
                except RemoteError as e:
                    print(e, file=sys.stderr)
                    return 1
                if ended[1] < count:
                    print(f"{parser.prog}: {shortfall(ended[1], count, ended[0], args.max_attempts)}",
                          file=sys.stderr)
                return 0
            status = 0
            answer: dict[str, Any]
            for line in input_lines(sys.stdin):
                if blank_line(line):
                    continue
                try:
                    if args.command == "legal":
                        answer = {"legal": client.legal_moves(line, lenient=args.lenient)}
                    elif args.command == "perft":
                        answer = client.perft(line, args.depth, lenient=args.lenient).to_json()
                    elif args.command == "analyze":
                        answer = client.analyze_play(line, objective=args.objective or "points",
                                                     single_dummy=args.single_dummy or 0, seed=args.seed)
                    elif args.command == "table":
                        answer = client.table(line, trumps=args.trumps)
                    elif args.command == "advise":   # a partial answer every `samples`: the final one only
                        answer = list(client.advise(line, samples, args.seed or 0, args.goal,
                                                    progress_every=samples))[-1]
                    else:
                        answer = client.solve(line, args.mode or "all", args.objective or "points",
                                              args.target).to_json()
                except RemoteError as e:
                    answer = {"error": e.details, "code": e.code.name}
                    if e.code not in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.DEADLINE_EXCEEDED):
                        status = 1
                except ValueError as e:   # not JSON, or a bad option
                    answer = {"error": str(e)}
                print(json.dumps(answer), flush=True)
            return status
    except BrokenPipeError:   # the reader has gone
        settle_stdout()
        return 0
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return 130
    except OSError as e:   # an output that cannot be written (a full disk)
        settle_stdout()
        print(f"{parser.prog}: {os_failure(e)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
