"""Jobs on the service's pool of workers: a library call behind the call's deadline, and its cancel.

A job (`Job`) is one library call given the worker's solver behind `Budget`, so that an
analysis or a table, which are many searches, is bound by the call as a whole: each search
gets the call's remaining time, less ANSWER_MARGIN, as its timeout, none starts once that
time has run out or the job is cancelled, and a cancel stops the search running. A streaming
call's items are worked out by `Steps`, one job an item; a puzzle call counts its puzzles'
nodes with a solver of its own (`RatingSolver`), behind the same budget.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from concurrent.futures import Future
from typing import Any

import grpc

from solver.perft import Perft
from solver.position import Position
from solver.puzzles import NODE_MEMORY
from solver.solve import Solution, Solver

from .tasks import AnalyzeTask, PerftTask, SolveTask, TableTask

NO_DEADLINE = 1e6
"""Seconds: gRPC reports a call without a deadline as one with a far-off deadline."""

ANSWER_MARGIN = 0.02
"""Seconds before the call's deadline at which its searches stop, so that the call's
DEADLINE_EXCEEDED status reaches the client while the call is still open: a server that
is stopping closes its connections as soon as its last call ends."""

DEADLINE_SLACK = 0.05
"""Seconds: a search stopped this close to the deadline was stopped by it (more than
ANSWER_MARGIN; gRPC's clock and Python's differ by a little)."""

STEP_SECONDS = 0.005
"""A streaming call's step ends with its first item, or once it has worked this long."""


def time_left(context: grpc.ServicerContext) -> float | None:
    """Seconds before the call's deadline (0 once passed), None without a deadline."""
    remaining = context.time_remaining()
    return None if remaining is None or remaining > NO_DEADLINE else max(remaining, 0.0)


class Stopped(Exception):
    """A job that was cancelled before or while it ran."""


def _paced(items: Iterator[Any]) -> Generator[Any, None, None]:
    """A task's items, its Nones dropped but for one after each STEP_SECONDS that gave no
    item (the end of a step, see `Steps`)."""
    step = time.monotonic()
    for item in items:
        if item is None and time.monotonic() - step < STEP_SECONDS:
            continue
        yield item
        step = time.monotonic()


END_OF_ITEMS = object()
"""A step's answer once the streaming call's items have all come."""


class Steps:
    """A streaming call's items (`items(steps)`, a task's generator), each worked out by a job
    of its own on the pool: the calls queued meanwhile take their turns between two items, and
    the next item is worked out only once gRPC has taken the last to send (which it stops doing
    when the client's flow-control window is full). It is the solver the library's generator
    sees, and hands each search to the worker of the step in progress; its `node_solver` counts a
    puzzle's nodes in that step's budget too."""

    def __init__(self, field: str, items: Callable[[Steps], Iterator[Any]]) -> None:
        self.field = field
        self.node_solver = RatingSolver()
        self._make_items = items
        self._items: Generator[Any, None, None] | None = None
        self._budget: Budget | None = None

    def run(self, budget: Budget) -> Any:
        """One step, in a worker: the next item (None: a step with no item), or `END_OF_ITEMS`."""
        self._budget = self.node_solver.budget = budget
        try:
            if self._items is None:
                self._items = _paced(self._make_items(self))
            return next(self._items, END_OF_ITEMS)
        finally:
            # its job holds this: no cycle keeps the call's memory once it ends
            self._budget = self.node_solver.budget = None

    def close(self) -> None:
        """The call has ended: the library's generator lets go of what it holds now, not at
        the next garbage collection."""
        if self._items is not None:
            self._items.close()

    def __getattr__(self, name: str) -> Any:   # `solve` and the rest: the step's worker solver
        return getattr(self._budget, name)


class RatingSolver:
    """A puzzle call's own one-thread solver of `puzzles.NODE_MEMORY`, which counts each
    puzzle's nodes for its rating from a cleared table (so the rating is the library's),
    its searches bound by the budget of the step in progress (`Steps`)."""

    def __init__(self) -> None:
        self.budget: Budget | None = None
        self._solver: Solver | None = None   # made by the first count: an advice call has none

    def solve(self, position: Position, mode: str = "all", objective: str = "points",
              target: int | None = None, timeout: float | None = None) -> Solution:
        assert self.budget is not None, "a count runs within a step"
        if self._solver is None:
            self._solver = Solver(NODE_MEMORY)
        return self.budget.on(self._solver).solve(position, mode, objective, target, timeout)

    def clear(self) -> None:
        if self._solver is not None:
            self._solver.clear()


class Budget:
    """A solver as a job's library call sees it: each search or count gets the call's
    remaining time less ANSWER_MARGIN as its timeout (or less, if the library asks), none
    starts once the job is cancelled or that time has run out, and the job's cancel stops the
    one running."""

    def __init__(self, job: Job, solver: Solver) -> None:
        self._job = job
        self._solver = solver

    def on(self, solver: Solver) -> Budget:
        """The same budget over another solver."""
        return Budget(self._job, solver)

    def solve(self, position: Position, mode: str = "all", objective: str = "points",
              target: int | None = None, timeout: float | None = None) -> Solution:
        timeout = self._timeout(timeout)
        with self._running():
            return self._solver.solve(position, mode, objective, target, timeout=timeout)

    def perft(self, position: Position, depth: int, timeout: float | None = None, *, strict: bool = True) -> Perft:
        timeout = self._timeout(timeout)
        with self._running():
            return self._solver.perft(position, depth, timeout=timeout, strict=strict)

    @contextmanager
    def _running(self) -> Iterator[None]:
        """The solver as the job's, for its cancel to stop, while a search or count runs;
        `Stopped` if the job is cancelled first."""
        job = self._job
        with job.lock:
            if job.cancelled:
                raise Stopped()
            job.solver = self._solver
            self._solver.withdraw_cancel()   # one that came as the last search on it ended
        try:
            yield
        finally:
            with job.lock:
                job.solver = None

    def _timeout(self, timeout: float | None) -> float | None:
        """The next search's or count's timeout: the call's remaining time less ANSWER_MARGIN, or
        `timeout` if sooner; raises `Stopped` once that time has run out (`_running` checks
        the cancel, under the job's lock)."""
        remaining = time_left(self._job.context)
        if remaining is not None:
            remaining -= ANSWER_MARGIN
            if remaining <= 0:
                raise Stopped()
        if timeout is not None:
            remaining = timeout if remaining is None else min(remaining, timeout)
        return remaining


class Job:
    """A task (a solve, an analysis, a table, a count, a step) on its way through the pool;
    `cancel()` may come from any thread at any time."""

    def __init__(self, task: SolveTask | AnalyzeTask | TableTask | PerftTask | Steps,
                 context: grpc.ServicerContext) -> None:
        self.task = task
        self.context = context
        self.lock = threading.Lock()
        self.cancelled = False
        self.solver: Solver | None = None   # set while a search or count runs (`Budget`)
        self.future: Future[Any] | None = None

    def cancel(self) -> None:
        with self.lock:
            self.cancelled = True
            if self.solver is not None:
                self.solver.cancel()   # the search or count running (or starting)
        future = self.future
        if future is not None:
            future.cancel()   # still queued: never runs
