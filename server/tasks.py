"""Requests read and checked into tasks: each names the field its position or deal came from and
runs its library call on the solver of the worker that takes it (`server.service` schedules them).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from solver.advice import Advice, advice_steps
from solver.analysis import Analysis, PlayedDeal, analyze
from solver.checks import check_whole
from solver.errors import PositionError
from solver.perft import Perft, check_depth
from solver.position import Position
from solver.profiles import PROFILES, Profile, get_profile
from solver.puzzles import (ATTEMPTS_PER_PUZZLE, MARGIN, MAX_TRICKS, MIN_TRICKS, NodeCounter, Puzzle,
                            attempt_limit, check_options, generate_attempts)
from solver.quoting import quoted
from solver.solve import TARGET_MODES, Searcher, Solution
from solver.table import DDTable, read_table_input, table_of, table_trumps
from solver.view import View

from . import convert
from ._proto import pb
from .errors import BadRequest

_OPTION_FIELDS = ("mode", "objective", "target")


def _violation(e: ValueError) -> tuple[str, str]:
    """A library refusal ``"name: problem"`` as the field violation (name, problem)."""
    name, _, problem = str(e).partition(": ")
    return name, problem


def library_error(e: ValueError, prefix: str = "position") -> BadRequest:
    """A ValueError of the library as field violations in request terms (`prefix`: the request
    field that holds the position or deal)."""
    if isinstance(e, PositionError):
        return BadRequest([(convert.field_path(e.field, prefix), e.problem)])
    name, problem = _violation(e)
    if name in _OPTION_FIELDS:   # a message without a name is never one of them
        return BadRequest([(name, problem)])
    return BadRequest([("", str(e))])


@dataclass
class SolveTask:
    """One checked solve request."""

    position: Position
    mode: str
    objective: str
    target: int | None
    field: str = "position"

    def run(self, solver: Searcher) -> Solution:
        return solver.solve(self.position, self.mode, self.objective, self.target)


class Counter(Protocol):
    """What a Perft call uses of its worker's solver: its `perft`."""

    def perft(self, position: Position, depth: int, timeout: float | None = None, *,
              strict: bool = True) -> Perft: ...


@dataclass
class PerftTask:
    """One checked Perft request."""

    position: Position
    depth: int
    strict: bool
    field: str = "position"

    def run(self, solver: Counter) -> Perft:
        return solver.perft(self.position, self.depth, strict=self.strict)


@dataclass
class AnalyzeTask:
    """One checked AnalyzePlay request."""

    deal: PlayedDeal
    objective: str
    single_dummy: int
    seed: int
    field: str = "deal"

    def run(self, solver: Searcher) -> Analysis:
        return analyze(self.deal, solver, single_dummy=self.single_dummy, seed=self.seed,
                       objective=self.objective)


@dataclass
class TableTask:
    """One checked Table request: the table input JSON and the trumps to solve, read and checked
    by the library already."""

    deal: dict[str, Any]
    trumps: tuple[str, ...]
    field: str = "deal"

    def run(self, solver: Searcher) -> DDTable:
        return table_of(self.deal, solver, trumps=self.trumps)


@dataclass
class PuzzleTask:
    """One checked GeneratePuzzles request."""

    game: str
    count: int
    seed: int
    min_tricks: int
    max_tricks: int
    margin: int
    max_attempts: int
    progress_every: int
    field: str = ""

    def items(self, solver: Searcher,
              node_solver: NodeCounter) -> Iterator[tuple[str, Puzzle] | tuple[str, int, int] | None]:
        """("puzzle", puzzle) and ("progress", attempts, found) items, and None after an
        attempt that gives neither."""
        said = attempts = found = 0
        for attempts, found, puzzle in generate_attempts(get_profile(self.game), self.count, self.seed,
                                                         self.min_tricks, self.max_tricks, self.margin,
                                                         solver, self.max_attempts, node_solver):
            if puzzle is not None:
                yield "puzzle", puzzle
            if attempts % self.progress_every == 0 or puzzle is not None:
                said = attempts
                yield "progress", attempts, found
            else:
                yield None
        if said != attempts:
            yield "progress", attempts, found


@dataclass
class AdviseTask:
    """One checked Advise request."""

    view: View
    samples: int
    seed: int
    goal: int | None
    every: int
    field: str = "view"

    def items(self, solver: Searcher) -> Iterator[Advice | None]:
        """The partial advice every `every` samples, then the final one; None after a drawn
        layout that gives neither."""
        return advice_steps(self.view, self.samples, self.seed, self.goal, solver, self.every)


T = TypeVar("T")


def _read_message(request: Any, name: str, read: Callable[[Any], T], violations: list[tuple[str, str]]) -> T | None:
    """The request's message field `name` read by the library with `read`; None, with its
    violation named from the request (``view.hand``, ``deal.play[3]``), when it is missing or refused."""
    if not request.HasField(name):
        violations.append((name, "missing"))
        return None
    try:
        return read(getattr(request, name))
    except PositionError as e:
        violations.append((convert.field_path(e.field, name), e.problem))
    except ValueError as e:
        violations.append((name, str(e)))
    return None


MAX_ADVICE_SAMPLES = 10000


def read_advise_request(request: pb.AdviseRequest) -> AdviseTask:
    """Read the view and check the options; raises `BadRequest` naming every bad field."""
    violations: list[tuple[str, str]] = []
    view = _read_message(request, "view", lambda msg: View.from_json(convert.view_dict(msg)), violations)
    if not 1 <= request.samples <= MAX_ADVICE_SAMPLES:
        violations.append(("samples", f"{request.samples} is not between 1 and {MAX_ADVICE_SAMPLES}"))
    every = request.progress_every if request.HasField("progress_every") else 10
    if every < 1:
        violations.append(("progress_every", f"{every} must be at least 1"))
    if request.HasField("goal") and request.goal < 0:
        violations.append(("goal", f"{request.goal} must be at least 0"))
    if violations:
        raise BadRequest(violations)
    assert view is not None   # read, or "view" is among the violations
    return AdviseTask(view, request.samples, request.seed, request.goal if request.HasField("goal") else None,
                       every)


MAX_PUZZLES = 1000

MAX_ATTEMPTS = ATTEMPTS_PER_PUZZLE * MAX_PUZZLES
"""The most positions a GeneratePuzzles call may try: the default for the most puzzles."""


def read_puzzles_request(request: pb.GeneratePuzzlesRequest) -> PuzzleTask:
    """Check the options; raises `BadRequest` naming every bad field (of the trick range, the first
    that `malilla-dd puzzles` would name)."""
    violations: list[tuple[str, str]] = []
    game = request.game.lower()   # as every game field, in any case
    if not game:   # proto3 reads an unset string as ""
        violations.append(("game", f"missing ({' or '.join(sorted(PROFILES))})"))
    elif game not in PROFILES:
        violations.append(("game", f"{quoted(request.game)} is not a game ({' or '.join(sorted(PROFILES))})"))
    if not 1 <= request.count <= MAX_PUZZLES:
        violations.append(("count", f"{request.count} is not between 1 and {MAX_PUZZLES}"))
    low = request.min_tricks if request.HasField("min_tricks") else MIN_TRICKS
    high = request.max_tricks if request.HasField("max_tricks") else MAX_TRICKS
    margin = request.margin if request.HasField("margin") else MARGIN
    refused = ""
    try:   # the trick range, as `malilla-dd puzzles` checks it; then the margin, which it bounds
        check_options(low, high, 1, PROFILES.get(game))
        check_options(low, high, margin, PROFILES.get(game))
    except ValueError as e:
        violations.append(_violation(e))
        refused = violations[-1][0]
    if margin < 1 and refused != "margin":
        violations.append(("margin", f"{margin} must be at least 1"))
    asked = request.max_attempts if request.HasField("max_attempts") else None
    attempts = attempt_limit(max(request.count, 1), asked)
    if not 1 <= attempts <= MAX_ATTEMPTS:
        violations.append(("max_attempts", f"{attempts} is not between 1 and {MAX_ATTEMPTS}"))
    every = request.progress_every if request.HasField("progress_every") else 100
    if every < 1:
        violations.append(("progress_every", f"{every} must be at least 1"))
    if violations:
        raise BadRequest(violations)
    return PuzzleTask(game, request.count, request.seed, low, high, margin, attempts, every)


MAX_ID = 1024
"""The longest `SolveRequest.id` in characters: the answer echoes it, and must stay within the
message size limit."""


def echoed_id(request: pb.SolveRequest) -> str:
    """The id an answer to `request` carries: its own, or "" when it is too long to echo."""
    return request.id if len(request.id) <= MAX_ID else ""


def read_solve_request(request: pb.SolveRequest) -> SolveTask:
    """Check the options and read the position; raises `BadRequest` naming every bad field."""
    violations: list[tuple[str, str]] = []
    if len(request.id) > MAX_ID:
        violations.append(("id", f"{len(request.id)} characters, more than {MAX_ID}"))
    mode = objective = None
    try:
        mode = convert.mode_name(request.mode)
    except ValueError as e:
        violations.append(("mode", str(e)))
    try:
        objective = convert.objective_name(request.objective)
    except ValueError as e:
        violations.append(("objective", str(e)))
    target = request.target if request.HasField("target") else None
    if mode in TARGET_MODES and target is None:
        violations.append(("target", f"{pb.Mode.Name(request.mode)} needs a target"))
    elif mode is not None and mode not in TARGET_MODES and target is not None:
        violations.append(("target", "a target goes with MODE_TARGET or MODE_TARGETS only"))
    position = _read_message(request, "position", lambda msg: Position.from_json(convert.position_dict(msg)),
                             violations)
    if violations:
        raise BadRequest(violations)
    # each was read, or its field is among the violations
    assert position is not None and mode is not None and objective is not None
    return SolveTask(position, mode, objective, target)


def read_perft_request(request: pb.PerftRequest) -> PerftTask:
    """Read the position (with `lenient`, as LegalMoves reads it) and check the depth as
    `Solver.perft` does; raises `BadRequest` naming every bad field."""
    violations: list[tuple[str, str]] = []
    position = _read_message(request, "position", lambda msg: Position.from_json(
        convert.position_dict(msg), strict=not request.lenient), violations)
    try:
        if position is None:
            check_whole("depth", request.depth, 1)
        else:
            check_depth(position, request.depth)
    except ValueError as e:
        violations.append(_violation(e))
    if violations:
        raise BadRequest(violations)
    assert position is not None   # read, or "position" is among the violations
    return PerftTask(position, request.depth, not request.lenient)


def read_analyze_request(request: pb.AnalyzePlayRequest) -> AnalyzeTask:
    """Check the options as `malilla-dd analyze` does and read the played deal; raises `BadRequest`
    naming every bad field (``objective``, ``deal.play[3]``)."""
    violations: list[tuple[str, str]] = []
    objective = None
    try:
        objective = convert.objective_name(request.objective)
    except ValueError as e:
        violations.append(("objective", str(e)))
    if not 0 <= request.single_dummy <= MAX_ADVICE_SAMPLES:
        violations.append(("single_dummy", f"{request.single_dummy} is not between 0 and {MAX_ADVICE_SAMPLES}"))
    elif request.HasField("seed") and request.single_dummy == 0:
        violations.append(("seed", "no effect with single_dummy 0 (the default)"))
    deal = _read_message(request, "deal", lambda msg: PlayedDeal.from_json(convert.played_deal_dict(msg)),
                         violations)
    if violations:
        raise BadRequest(violations)
    assert deal is not None and objective is not None   # each was read, or its field is among the violations
    return AnalyzeTask(deal, objective, request.single_dummy, request.seed)


def read_table_request(request: pb.TableRequest) -> TableTask:
    """Check the deal as `solver.table.read_table_input` does and the trumps asked for as
    `solver.table.table_trumps` does; raises `BadRequest` naming the bad field (``trumps[1]``)."""
    def checked(msg: pb.Deal) -> tuple[dict[str, Any], Profile]:
        deal = convert.deal_dict(msg)
        return deal, read_table_input(deal)[0].profile
    violations: list[tuple[str, str]] = []
    read = _read_message(request, "deal", checked, violations)
    if read is None:
        raise BadRequest(violations)
    deal, profile = read
    try:
        trumps = table_trumps(list(request.trumps) or None, profile)
    except ValueError as e:
        raise BadRequest([_violation(e)]) from None
    return TableTask(deal, trumps)
