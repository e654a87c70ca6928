"""The public face of the search: `Solver`, `solve` and their `Solution`.

>>> from solver import Position
>>> from solver.solve import solve
>>> p = Position.from_json({"game": "manille", "trump": "H",
...     "hands": {"N": "10S", "E": "AS", "S": "KS", "W": "7H"}, "leader": "N", "trick": []})
>>> s = solve(p)
>>> s.value, s.values
(0, {'10S': 0})
"""
from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from . import _core
from .cards import card_names, sort_key
from .checks import check_whole
from .errors import PositionError
from .perft import Perft, check_depth, count
from .position import Position
from .quoting import quoted
from .rules import core_rules
from .scoring import SIDE_NAMES, side_score

__all__ = ["Solver", "Solution", "CardValue", "solve", "SearchStopped", "SearchTimeout", "MODES", "TARGET_MODES",
           "OBJECTIVES", "DEFAULT_MEMORY", "MIN_MEMORY", "MAX_THREADS", "NO_LIMIT", "check_memory", "check_objective",
           "check_question", "check_threads", "check_timeout", "solver_given", "Searcher"]

SearchStopped = _core.SearchStopped


class SearchTimeout(SearchStopped, TimeoutError):
    """The search ran past the time it was allowed (a `SearchStopped` that `cancel` does not raise)."""


MODES = ("all", "optimal", "best", "target", "targets")
TARGET_MODES = ("target", "targets")
"""The modes that ask about a target: one card that reaches it, or every card that does."""
OBJECTIVES = ("points", "score")
DEFAULT_MEMORY = 256 * 1024 * 1024
"""The most bytes of transposition table per solver. The table starts small
and doubles as it fills (a whole Malilla deal fills a few MB), so this keeps
many deals' positions on a 24 GiB machine with room for one solver per core
(server workers, batch workers) and the analysis jobs."""
MIN_MEMORY = 1 << 16
"""The fewest bytes a table can have."""


def machine_memory() -> int:
    """The bytes of memory this machine has."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def check_memory(memory: int, tables: int = 1) -> None:
    """Raise ValueError unless `tables` tables of `memory` bytes each can be had."""
    check_whole("memory", memory)
    if memory < MIN_MEMORY:
        raise ValueError(f"memory: {quoted(memory)} bytes is too small for a table (at least {MIN_MEMORY})")
    available = machine_memory()
    if memory * tables > available:
        times = f"{tables} tables of {quoted(memory)} bytes" if tables > 1 else f"{quoted(memory)} bytes"
        raise ValueError(f"memory: {times} is more than this machine's {available / 2**30:.1f} GiB")


MAX_THREADS = _core.MAX_THREADS
"""The most threads one search can use."""


def check_objective(objective: str) -> None:
    """Raise ValueError naming the field unless `objective` is one of OBJECTIVES."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective: {quoted(objective)} is not one of {', '.join(OBJECTIVES)}")


def check_question(mode: str, objective: str, target: int | None) -> None:
    """Raise ValueError naming the field unless `mode`, `objective` and `target` ask what
    `Solver.solve` answers: a target exactly in the target modes."""
    if mode not in MODES:
        raise ValueError(f"mode: {quoted(mode)} is not one of {', '.join(MODES)}")
    check_objective(objective)
    if (mode in TARGET_MODES) != (target is not None):
        raise ValueError("target: give a target exactly when mode is 'target' or 'targets'")


def check_threads(threads: int) -> None:
    """Raise ValueError unless `threads` is a whole number from 1 to MAX_THREADS."""
    check_whole("threads", threads, 1)
    if threads > MAX_THREADS:
        raise ValueError(f"threads: {threads} is more than the {MAX_THREADS} a search can use")


NO_LIMIT = 1e9   # seconds (over 30 years): a timeout this long is no limit, as a clock in nanoseconds would overflow


def check_timeout(timeout: float | None) -> float | None:
    """The limit `timeout` sets: None (no limit) for None or NO_LIMIT seconds and more, else `timeout`.
    Raises ValueError unless it is None or a positive, finite number of seconds."""
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not 0 < timeout < math.inf):
        raise ValueError(f"timeout: {quoted(timeout)} is not a positive number of seconds")
    return None if timeout is None or timeout >= NO_LIMIT else timeout


@dataclass(frozen=True)
class CardValue:
    """One legal card: the value for the side to move after it, and what it loses."""

    card: str
    value: int
    margin: int


@dataclass(frozen=True)
class Solution:
    """The result of a search, from the side to move's point of view.

    `value` is in the objective's unit: points from the remaining play (the
    trick in progress included), or the signed deal score. In "target" mode
    `reached` answers the question and `cards` holds the card that does it;
    in "targets" mode, every card that does.
    Two solutions are equal when their answers and lines are: `nodes`, the
    search's effort, depends on what the solver's table held and is not
    compared. Where several cards are optimal (or reach the target), so can
    the line and the one card that "best" and "target" modes name: the
    positions solved before, whose bounds the table keeps, and threads
    choose among them. Values and the sets of cards ("all", "optimal",
    "targets") do not depend on it.
    """

    value: int | None
    side: str
    cards: tuple[CardValue, ...]
    groups: tuple[tuple[str, ...], ...]
    line: tuple[str, ...]
    nodes: int = field(compare=False)
    mode: str
    objective: str
    target: int | None = None
    reached: bool | None = None

    @property
    def values(self) -> dict[str, int]:
        """Each scored card's value (every legal card in "all" mode, the optimal ones in
        "optimal", one in "best"; in "target" mode the card that reaches it, in "targets"
        every card that does, valued 0)."""
        return {cv.card: cv.value for cv in self.cards}

    @property
    def best(self) -> list[str]:
        """The optimal cards among those scored (or the cards that reach the target)."""
        return [cv.card for cv in self.cards if cv.margin == 0]

    def to_json(self) -> dict[str, Any]:
        if self.mode in TARGET_MODES:
            answer: dict[str, Any] = {"target": self.target, "reached": self.reached,
                                      "card": self.cards[0].card if self.cards else None}
            if self.mode == "targets":
                answer["cards"] = self.best
            return {**answer, "nodes": self.nodes}
        return {"value": self.value, "values": self.values, "best": self.best, "line": list(self.line),
                "nodes": self.nodes, "equivalent": [list(g) for g in self.groups if len(g) > 1]}


class Solver:
    """A double-dummy solver with its own transposition table.

    Keep one per thread: the search runs without the GIL, so solvers in two
    threads use two cores. Threads that share one take turns with it. Positions
    of one deal share the table's bounds.

    With `threads` above 1, one search runs on that many threads, which
    share the table: in "all" mode they score the cards, they check the
    cards against the value or the target, and a node high in the tree
    whose first move did not cut off shares its other moves with the
    threads that are idle. The values are the same, sooner on a machine
    with the cores to spare; the node count, and among equal cards the one
    named and the line, then vary from run to run.
    The other threads join a search once it has run 1,024 nodes, or 16,384
    where the search is mostly short or their work may go unused (the
    value's probes, the checks, every card when all are of one suit): a
    shorter search stays on one thread, where starting others costs about
    what they save.
    """

    def __init__(self, memory: int = DEFAULT_MEMORY, threads: int = 1) -> None:
        check_memory(memory)
        check_threads(threads)
        self._core = _core.Core(memory)
        self._threads = threads
        self._turn = threading.Lock()   # one search or clear at a time on the table

    @property
    def memory(self) -> int:
        """The table's bound in bytes (what it may grow to; `stats` gives the bytes in use)."""
        return self._core.memory

    @property
    def threads(self) -> int:
        """The most threads one search uses (see `Solver`)."""
        return self._threads

    def __repr__(self) -> str:
        return f"Solver(memory={self.memory}, threads={self.threads})"

    def __reduce__(self) -> tuple[type, tuple[int, int]]:
        """A copy (pickled for another process, or `copy.copy`) is a solver with the same memory
        bound and threads, and an empty table."""
        return Solver, (self.memory, self.threads)

    @property
    def stats(self) -> dict[str, int]:
        """Search counters since the solver was made (`nodes`,
        `boundary_nodes`, `table_cutoffs` by a position's own entry,
        `quasi_cutoffs` by entries of quasi-symmetric positions) and the
        table's fill (`entries` stored since the last clear, `slots_in_use`
        and `bytes_in_use`, at most `slots`)."""
        return self._core.stats

    def clear(self) -> None:
        """Empty the transposition table."""
        with self._turn:
            self._core.clear()

    def cancel(self) -> None:
        """Stop the search or count (`perft`) running in another thread or, when none is, the next
        one this solver starts: it raises `SearchStopped`. A call of many searches (`analyze`,
        `table_of`, `advise`) so stops wherever in it the cancel comes."""
        self._core.cancel()

    def withdraw_cancel(self) -> None:
        """Drop a cancel that no search or count has taken (one that came as the last ended)."""
        self._core.withdraw_cancel()

    def solve(self, position: Position | dict[str, Any] | str | bytes, mode: str = "all", objective: str = "points",
              target: int | None = None, timeout: float | None = None) -> Solution:
        """Solve `position` (a `Position` or its JSON) with all hands open.

        mode: "all" scores every legal card (default), "optimal" finds the value
        and every optimal card, "best" the value and one optimal card, "target"
        answers whether the side to move can reach `target` (and with which card),
        "targets" finds every card that reaches it, each checked against `target`
        alone (cheaper than the values of "all").
        objective: "points" (default) or "score", the signed deal score, where a
        capot outranks a plain win; it needs the deal's history.
        timeout: seconds allowed (positive), None for no limit (as is NO_LIMIT
        or more); `SearchTimeout` (a `SearchStopped`) is raised when they run out.
        """
        check_question(mode, objective, target)
        limit = check_timeout(timeout)
        if not isinstance(position, Position):
            position = Position.from_json(position)
        position.check()
        if position.is_over:
            raise PositionError("hands", "the deal is over: nothing is left to play")
        if objective == "score" and position.history is None:
            raise PositionError("history", "the deal-score objective needs the completed tricks "
                                "(or a position at the start of the deal)")
        capot = objective == "score"
        rules = core_rules(position.profile, capot)
        hands, trump, leader, trick, led, won = position.core_state()
        signature = (rules, trump)   # one profile's flags are one object (core_rules), the capot's included
        goal = 0
        if target is not None:   # exactly in the target modes
            goal = self._target_points(position, target, capot)
        with self._core_turn(limit, "search"):
            value, scored, line, nodes, total = self._core.solve(
                rules, signature, hands, trump, leader, trick, led, won, MODES[MODES.index(mode)], goal,
                limit or 0.0, self._threads)
        return self._solution(position, mode, objective, target, value, scored, line, nodes, total)

    def perft(self, position: Position | dict[str, Any] | str | bytes, depth: int,
              timeout: float | None = None, *, strict: bool = True) -> Perft:
        """Count the legal sequences of the next `depth` cards (1 up to the cards left) by the
        core's legal-move routine, in total and by first card (see `solver.perft`). `cancel`
        stops the count as it stops a search (`SearchStopped`); the table is not used.
        timeout: as `solve`'s; `SearchTimeout` is raised when it runs out (the count grows
        about fivefold a card). strict: False leaves the hand sizes unchecked, for abstract
        positions (`Position.from_json`)."""
        if not isinstance(position, Position):
            position = Position.from_json(position, strict=strict)
        position.check(strict)
        check_depth(position, depth)
        limit = check_timeout(timeout)
        with self._core_turn(limit, "count"):
            return count(self._core, position, depth, limit)

    @contextmanager
    def _core_turn(self, limit: float | None, work: str) -> Iterator[None]:
        """This solver's turn on its core, for one search or count allowed `limit` seconds (None:
        no limit); one stopped once they have run out raises `SearchTimeout`."""
        with self._turn:
            start = time.monotonic()
            try:
                yield
            except SearchStopped:
                if limit is not None and time.monotonic() - start >= limit:
                    raise SearchTimeout(f"timeout: the {work} took more than the {limit:g} s allowed") from None
                raise

    def _target_points(self, position: Position, target: int, capot: bool) -> int:
        """The target in the core's unit (points, a capot one above the total)."""
        check_whole("target", target)
        if not capot:   # beyond the points there are, every target is as sure or as hopeless
            return max(-1, min(target, position.profile.total_points + 1))
        # the least point total of the remaining play from which on every total's deal score reaches
        # `target`, found from the top down among the totals that can happen: a capot against a
        # side that has taken a trick cannot, and its formula would score that side's own excess,
        # doubled
        points_won = position.points_won()
        assert points_won is not None   # the deal-score objective needs the history (checked by `solve`)
        side = position.to_move & 1
        won = points_won[side]
        flags = position.won_flags
        total = position.profile.total_points - sum(points_won)
        possible = range(0 if flags >> side & 1 else -1, total + (1 if flags >> (side ^ 1) & 1 else 2))
        goal = total + 2
        for p in reversed(possible):
            if self._score(position, p, total, won) < target:
                break
            goal = p
        return goal

    def _score(self, position: Position, v: int, total: int, won: int) -> int:
        """Deal score of the side to move from its core value `v` of the remaining play."""
        capot = v in (-1, total + 1)
        points = won + min(max(v, 0), total)
        return side_score(position.profile, points, capot, position.trump, position.pending_doubling)

    def _solution(self, position: Position, mode: str, objective: str, target: int | None, value: int,
                  scored: list[tuple[int, int]], line: list[int], nodes: int, total: int) -> Solution:
        profile = position.profile
        ns = position.to_move % 2 == 0
        legal, _, _ = position.legal_mask()
        present = sum(position.hands) | sum(1 << c for c in position.trick)
        groups = _core.equivalence_groups(core_rules(profile), legal, present)
        members = {g[0]: g for g in groups}

        def mover(v: int) -> int:
            v = v if ns else total - v
            if objective == "score":
                points_won = position.points_won()
                assert points_won is not None   # the deal-score objective needs the history (checked by `solve`)
                return self._score(position, v, total, points_won[position.to_move & 1])
            return v

        best_value = None if mode in TARGET_MODES else mover(value)
        if mode == "all":
            cards = [(m, mover(v)) for c, v in scored for m in members[c]]
        else:   # the cards that reach the value, or the target (valued 0)
            cards = [(m, best_value or 0) for c, ok in scored if ok for m in members[c]]
            if mode in ("best", "target"):
                cards = cards[:1]
        cards.sort(key=lambda cv: (-cv[1], sort_key(cv[0])))
        top = best_value if best_value is not None else 0
        names = card_names(profile)
        return Solution(
            value=best_value,
            side=SIDE_NAMES[position.to_move & 1],
            cards=tuple(CardValue(names[c], v, top - v) for c, v in cards),
            groups=tuple(tuple(names[c] for c in g) for g in groups),
            line=tuple(names[c] for c in line),
            nodes=nodes,
            mode=mode,
            objective=objective,
            target=target,
            reached=bool(value) if mode in TARGET_MODES else None,
        )


class Searcher(Protocol):
    """What the tools (`analyze`, `table_of`, `advise`, the puzzles) use of a solver: its `solve`.
    A `Solver`, or anything with the same `solve`, such as one that keeps a budget of time."""

    def solve(self, position: Position, mode: str = "all", objective: str = "points",
              target: int | None = None, timeout: float | None = None) -> Solution: ...


SearcherT = TypeVar("SearcherT", bound=Searcher)

_local = threading.local()


def solver_given(solver: SearcherT | None, otherwise: Callable[[], SearcherT], name: str = "solver",
                 methods: tuple[str, ...] = ("solve",)) -> SearcherT:
    """`solver`, or `otherwise()` when it is None; ValueError naming the argument (`name`) for an
    object that lacks one of `methods`, or a class (anything with them may stand in for a Solver)."""
    if solver is None:
        return otherwise()
    missing = [m for m in methods if not callable(getattr(solver, m, None))]
    if isinstance(solver, type) or len(missing) == len(methods):
        raise ValueError(f"{name}: {quoted(solver)} is not a Solver")
    if missing:
        raise ValueError(f"{name}: {quoted(solver)} is not a Solver: it has no {missing[0]}()")
    return solver


def default_solver() -> Solver:
    """This thread's shared solver."""
    solver = getattr(_local, "solver", None)
    if solver is None:
        solver = _local.solver = Solver()
    return solver


def solve(position: Position | dict[str, Any] | str | bytes, mode: str = "all", objective: str = "points",
          target: int | None = None, timeout: float | None = None) -> Solution:
    """Solve `position` with this thread's shared `Solver` (see `Solver.solve`)."""
    return default_solver().solve(position, mode, objective, target, timeout)
