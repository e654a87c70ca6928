"""The servicer of `malilla.dd.v1.DoubleDummy`: proto in, library call, proto out.

Worker model: solves run in a bounded pool of `workers` threads; each thread
keeps its own `solver.Solver` (its own transposition table of `memory`
bytes) and the search runs with the GIL released, so the workers use as many
cores. With `threads` above 1 each worker's searches run on that many threads
(`Solver(threads=...)`), for calls that come one at a time. At most
`max_concurrent` calls of this service run at once; one more is refused with
RESOURCE_EXHAUSTED instead of waiting in an unbounded queue.

Every RPC that searches or counts (Solve, SolveStream, AnalyzePlay, Table, Perft, GeneratePuzzles, Advise)
runs as a job on that pool; the server-streaming ones (GeneratePuzzles, Advise) as one job per item
(`server.jobs.Steps`), so that other calls take their turns between the items and a client that stops
reading stops the work once what was sent fills gRPC's flow-control window (of bytes). A job is one library
call (`Solver.solve`, `Solver.perft`, `solver.analysis.analyze`, `solver.table.table_of`) given the worker's solver
behind `server.jobs.Budget`, so an analysis or a table, which are many searches, is bound
by the call as a whole: each search gets the call's remaining time, less
ANSWER_MARGIN, as its timeout and none starts once that time has run out.

Deadlines and cancellation reach into the search and the count: a call that
ends early (deadline passed, client gone, server stopping past its grace)
cancels its search or count, which stops within a few milliseconds and frees
its worker. The server's limit on a call's time (`max_call_seconds`) is a
deadline of its own (`server.limits.Limited`): the searches and counts keep to
it, and so does SolveStream's wait for requests.
"""
from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import CancelledError, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, cast

import grpc

from solver.cards import SEATS
from solver.checks import check_whole
from solver.position import Position
from solver.solve import DEFAULT_MEMORY, SearchStopped, Solver, check_memory, check_threads

from . import convert
from ._proto import pb, pb_grpc
from .errors import BadRequest
from .interceptors import Undecodable
from .jobs import DEADLINE_SLACK, END_OF_ITEMS, Budget, Job, Steps, Stopped, time_left
from .limits import CALLS_PER_WORKER, Admission, Limited, Slot, check_call_seconds
from .tasks import (AnalyzeTask, PerftTask, SolveTask, TableTask, echoed_id, library_error, read_advise_request,
                    read_analyze_request, read_perft_request, read_puzzles_request, read_solve_request,
                    read_table_request)

__all__ = ["DoubleDummyService"]

log = logging.getLogger("malilla_dd.server")

StreamItem = tuple[str, Job | None, BadRequest | None]
"""A SolveStream request in its turn: its id, and its job or the error that refused it."""


class DoubleDummyService(pb_grpc.DoubleDummyServicer):
    """Translates and calls the library; see the module docstring for the worker model."""

    def __init__(self, workers: int = 1, memory: int = DEFAULT_MEMORY, max_concurrent: int | None = None,
                 threads: int = 1, max_call_seconds: float = 0.0) -> None:
        """`max_concurrent`: the calls allowed at once (default CALLS_PER_WORKER a worker);
        `max_call_seconds`: the longest a call may run (0: no limit)."""
        check_whole("workers", workers, 1)
        if max_concurrent is None:
            max_concurrent = CALLS_PER_WORKER * workers
        check_whole("max_concurrent", max_concurrent, 1)
        check_call_seconds(max_call_seconds)
        check_memory(memory, workers)   # now rather than in each worker's first call
        check_threads(threads)
        self.workers = workers
        self.memory = memory
        self.threads = threads
        self.max_call_seconds = max_call_seconds
        self.admission = Admission(max_concurrent)
        self._cut_at = math.inf   # monotonic time at which a stopping server cuts the calls in flight
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dd-solve")
        self._local = threading.local()

    # ------------------------------------------------------------ plumbing

    def close(self, wait: bool = True) -> None:
        """Stop the pool (after the server has stopped: queued solves are dropped)."""
        self._pool.shutdown(wait=wait, cancel_futures=True)

    def _solver(self) -> Solver:
        solver = getattr(self._local, "solver", None)
        if solver is None:
            solver = self._local.solver = Solver(self.memory, self.threads)
        return solver

    @contextmanager
    def _admitted(self, context: grpc.ServicerContext) -> Iterator[grpc.ServicerContext]:
        """The call admitted under the concurrency limit, its context bound by the limit on its time."""
        if not self.admission.enter():
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                          f"{self.admission.limit} calls are in progress, the server's limit "
                          "(--max-concurrent): retry later")
        slot = Slot(self.admission)
        context.add_callback(slot.release)
        try:
            yield cast(grpc.ServicerContext, Limited(context, self.max_call_seconds)) if self.max_call_seconds \
                else context
        finally:
            slot.release()

    def _run(self, job: Job) -> Any:
        """In a pool thread: the job's library call, its searches bound by the call's remaining time."""
        if job.cancelled:
            raise Stopped()
        return job.task.run(Budget(job, self._solver()))

    def schedule(self, job: Job) -> None:
        """The job queued on the pool, its future set; RuntimeError once the pool is shut down."""
        job.future = self._pool.submit(self._run, job)

    def _submit(self, task: SolveTask | AnalyzeTask | TableTask | PerftTask | Steps,
                context: grpc.ServicerContext) -> Job:
        job = Job(task, context)
        try:
            self.schedule(job)
        except RuntimeError:   # the pool is shut down
            context.abort(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
        return job

    def stop_calls(self, grace: float) -> None:
        """The server is stopping: gRPC cuts the calls still in flight `grace` seconds from now."""
        self._cut_at = min(self._cut_at, time.monotonic() + grace)

    def past_grace(self) -> bool:
        """Whether the server's stop has cut the calls in flight (their clients see UNAVAILABLE)."""
        return time.monotonic() >= self._cut_at

    def _ended(self, context: grpc.ServicerContext, work: str = "search") -> tuple[grpc.StatusCode, str]:
        """The status of a call whose `work` (its search or count) was stopped: its deadline
        passed, the server stopped past its grace (what gRPC then tells the client), or the
        client went away."""
        remaining = time_left(context)
        if remaining is not None and remaining <= DEADLINE_SLACK:
            if isinstance(context, Limited) and context.limit_passed():
                return grpc.StatusCode.DEADLINE_EXCEEDED, \
                    f"the call ran for {context.seconds:g} s, the server's limit (--max-call-seconds)"
            return grpc.StatusCode.DEADLINE_EXCEEDED, f"the deadline passed before the {work} finished"
        if self.past_grace():
            return grpc.StatusCode.UNAVAILABLE, f"the server stopped before the {work} finished"
        return grpc.StatusCode.CANCELLED, f"the call was cancelled; its {work} stopped"

    def _result(self, job: Job, context: grpc.ServicerContext) -> Any:
        """The job's answer; a stopped search ends the call with its status, and a request the
        library refused raises `BadRequest`."""
        assert job.future is not None   # set when the job was submitted, before it is awaited
        try:
            return job.future.result()
        except (SearchStopped, Stopped, CancelledError):
            context.abort(*self._ended(context, "count" if isinstance(job.task, PerftTask) else "search"))
        except ValueError as e:
            raise library_error(e, job.task.field) from None
        finally:   # the future's exception holds the job in its traceback: no cycle keeps them
            job.future = None
        raise AssertionError("unreachable")

    def _wait(self, job: Job, context: grpc.ServicerContext) -> Any:
        """The job's answer, or the call ends with the status that stopped it."""
        try:
            return self._result(job, context)
        except BadRequest as e:
            context.abort_with_status(e.status())

    def _call(self, task: SolveTask | AnalyzeTask | TableTask | PerftTask, context: grpc.ServicerContext) -> Any:
        """A unary call's job: submitted, cancelled when the call ends early, awaited."""
        job = self._submit(task, context)
        if not context.add_callback(job.cancel):
            job.cancel()   # the call has already ended
        return self._wait(job, context)

    @staticmethod
    def _internal(context: grpc.ServicerContext, method: str) -> None:
        """After an exception: re-raise an abort, turn anything else into INTERNAL (and log it)."""
        # context.abort() raised; ServicerContext.code() is in grpc since 1.38, not in grpc-stubs
        if context.code() is not None:  # type: ignore[attr-defined]
            raise
        log.exception("%s failed", method)
        context.abort(grpc.StatusCode.INTERNAL, f"internal error in {method}; the server goes on")

    @contextmanager
    def _handling(self, context: grpc.ServicerContext, method: str) -> Iterator[grpc.ServicerContext]:
        """One RPC's body, given the call's context as `_admitted` gives it; an abort passes,
        anything else becomes INTERNAL."""
        with self._admitted(context) as limited:
            try:
                yield limited
            except Exception:
                self._internal(context, method)

    @staticmethod
    def _read(reader: Any, request: Any, context: grpc.ServicerContext) -> Any:
        """The request read into a task; a bad one aborts the call with its field violations."""
        try:
            return reader(request)
        except BadRequest as e:
            context.abort_with_status(e.status())

    # ------------------------------------------------------------ RPCs

    def Solve(self, request: pb.SolveRequest, context: grpc.ServicerContext) -> pb.SolveResponse:
        with self._handling(context, "Solve") as context:
            task = self._read(read_solve_request, request, context)
            solution = self._call(task, context)
            return pb.SolveResponse(id=request.id, solution=convert.solution_message(
                solution, SEATS[task.position.to_move]))

    def AnalyzePlay(self, request: pb.AnalyzePlayRequest, context: grpc.ServicerContext) -> pb.AnalyzePlayResponse:
        with self._handling(context, "AnalyzePlay") as context:
            task = self._read(read_analyze_request, request, context)
            return pb.AnalyzePlayResponse(analysis=convert.analysis_message(self._call(task, context)))

    def Table(self, request: pb.TableRequest, context: grpc.ServicerContext) -> pb.TableResponse:
        with self._handling(context, "Table") as context:
            task = self._read(read_table_request, request, context)
            return pb.TableResponse(table=convert.table_message(self._call(task, context)))

    def _stepped(self, steps: Steps, context: grpc.ServicerContext) -> Iterator[Any]:
        """A streaming call's items, one job a step (`Steps`); the step in progress is
        cancelled when the call ends early, and no step starts after that."""
        ended = threading.Event()
        current: list[Job | None] = [None]

        def end() -> None:
            ended.set()
            job = current[0]
            if job is not None:
                job.cancel()

        if not context.add_callback(end):
            end()
        try:
            while True:
                if ended.is_set() or time_left(context) == 0:
                    context.abort(*self._ended(context))
                current[0] = job = self._submit(steps, context)
                if ended.is_set():
                    job.cancel()
                item = self._wait(job, context)
                if item is END_OF_ITEMS:
                    return
                if item is not None:
                    yield item
        finally:   # no step runs now: each ends before its item is yielded or its failure raised
            steps.close()

    def GeneratePuzzles(self, request: pb.GeneratePuzzlesRequest,
                        context: grpc.ServicerContext) -> Iterator[pb.GeneratePuzzlesResponse]:
        with self._handling(context, "GeneratePuzzles") as context:
            task = self._read(read_puzzles_request, request, context)
            for item in self._stepped(Steps(task.field, lambda steps: task.items(steps, steps.node_solver)), context):
                if item[0] == "puzzle":
                    yield pb.GeneratePuzzlesResponse(puzzle=convert.puzzle_message(item[1]))
                else:
                    yield pb.GeneratePuzzlesResponse(progress=pb.PuzzleProgress(
                        attempts=item[1], found=item[2], count=request.count))

    def Advise(self, request: pb.AdviseRequest, context: grpc.ServicerContext) -> Iterator[pb.AdviseResponse]:
        with self._handling(context, "Advise") as context:
            task = self._read(read_advise_request, request, context)
            for item in self._stepped(Steps(task.field, task.items), context):
                yield convert.advice_message(item)

    def LegalMoves(self, request: pb.LegalMovesRequest, context: grpc.ServicerContext) -> pb.LegalMovesResponse:
        with self._handling(context, "LegalMoves") as context:
            if not request.HasField("position"):
                context.abort_with_status(BadRequest([("position", "missing")]).status())
            try:
                position = Position.from_json(convert.position_dict(request.position),
                                              strict=not request.lenient)
                legal = position.legal_moves()
            except ValueError as e:
                context.abort_with_status(library_error(e).status())
            return pb.LegalMovesResponse(legal=legal, to_move=SEATS[position.to_move])

    def Perft(self, request: pb.PerftRequest, context: grpc.ServicerContext) -> pb.PerftResponse:
        with self._handling(context, "Perft") as context:
            task = self._read(read_perft_request, request, context)
            return convert.perft_message(self._call(task, context))

    def SolveStream(self, request_iterator: Iterator[pb.SolveRequest],
                    context: grpc.ServicerContext) -> Iterator[pb.SolveResponse]:
        with self._admitted(context) as context:
            stream = _Stream(self, context, window=self.workers)
            if not context.add_callback(stream.cancel):
                return
            reader = threading.Thread(target=stream.read, args=(request_iterator,), name="dd-stream-reader",
                                      daemon=True)
            reader.start()
            try:
                while True:
                    item = stream.next_item()
                    if item is None:
                        break
                    request_id, job, refused = item
                    answer: Any = refused
                    try:
                        if job is not None:
                            answer = self._result(job, context)
                    except BadRequest as e:   # refused when solved, as when read: the item's own error
                        answer = e
                    finally:
                        stream.done(job)
                    if job is None or isinstance(answer, BadRequest):
                        yield pb.SolveResponse(id=request_id, error=answer.message())
                        continue
                    task = cast(SolveTask, job.task)
                    yield pb.SolveResponse(id=request_id, solution=convert.solution_message(
                        answer, SEATS[task.position.to_move]))
                if stream.failure is not None:
                    context.abort(grpc.StatusCode.CANCELLED, "the request stream ended with an error")
                # the call ended under the handler (its status, for the access log), or its time ran out
                if stream.cancelled or not stream.ended or stream.items:
                    context.abort(*self._ended(context))
            except Exception:
                self._internal(context, "SolveStream")
            finally:
                stream.cancel()


class _Stream:
    """One SolveStream call: a reader thread reads requests and submits up to `window`
    solves at once; the handler answers them in order as each finishes."""

    def __init__(self, service: DoubleDummyService, context: grpc.ServicerContext, window: int) -> None:
        self.service = service
        self.context = context
        self.window = threading.Semaphore(window)
        self.cond = threading.Condition()
        self.items: deque[StreamItem] = deque()
        self.jobs: set[Job] = set()   # submitted, not yet answered
        self.ended = False
        self.cancelled = False
        self.failure: Exception | None = None

    def read(self, requests: Iterator[pb.SolveRequest]) -> None:
        try:
            for request in requests:
                while not self.window.acquire(timeout=0.05):
                    if self.cancelled:
                        return
                if self.cancelled:
                    return
                if isinstance(request, Undecodable):   # bytes that are not a request: answered in its turn too
                    self._put(("", None, BadRequest([("", request.problem)])))
                    continue
                try:
                    task = read_solve_request(request)
                except BadRequest as e:   # answered in its turn; holds its place in the window till then
                    self._put((echoed_id(request), None, e))
                    continue
                job = Job(task, self.context)
                with self.cond:
                    if self.cancelled:
                        return
                    self.jobs.add(job)
                try:
                    self.service.schedule(job)
                except RuntimeError as e:   # shutting down
                    self.failure = e
                    return
                self._put((request.id, job, None))
            # gRPC may end a stream it cuts (a request over the size limit) as if its client had
            # closed it; a read past the end fails on a cut stream, as the cut has reached the call
            next(requests, None)
        except Exception as e:   # the client went away or sent something unreadable
            if not self.cancelled:
                self.failure = e
        finally:
            with self.cond:
                self.ended = True
                self.cond.notify_all()

    def _put(self, item: StreamItem) -> None:
        with self.cond:
            self.items.append(item)
            self.cond.notify_all()

    def next_item(self) -> StreamItem | None:
        """The next request in order; None at the end of the stream or of the call, or once the
        call's time (its deadline, or the server's limit on a call) has run out."""
        with self.cond:
            self.cond.wait_for(lambda: self.items or self.ended or self.cancelled, time_left(self.context))
            if self.cancelled or not self.items or time_left(self.context) == 0:
                return None
            return self.items.popleft()

    def done(self, job: Job | None) -> None:
        """The handler has the item's answer: its place in the window is free."""
        if job is not None:
            with self.cond:
                self.jobs.discard(job)
        self.window.release()

    def cancel(self) -> None:
        with self.cond:
            self.cancelled = True
            jobs, self.jobs = self.jobs, set()
            self.cond.notify_all()
        for job in jobs:
            job.cancel()
