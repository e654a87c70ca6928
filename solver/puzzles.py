"""Puzzle generation: positions with one winning line, rated and tagged.

A puzzle is a position at a trick boundary with ``min_tricks``..``max_tricks``
tricks left and a goal ``P`` for the side to move (the solving side): "take at
least P of the points left" (the value of the position, as `Solver` gives it).

* Exactly one equivalence group of the mover's legal cards reaches P; every
  other card falls short by at least ``margin`` points (``alternatives`` maps
  each of them to its shortfall).
* Along the solution line (the defenders play the solver's best resistance,
  the first of their optimal cards in card order), every later decision of the solving
  side that offers more than one group is unique in the same sense: one group
  keeps the goal (the goal minus the points the solving side has taken since),
  every other card falls short by at least ``margin``. A decision with one
  group of cards (a forced play) is no choice and is not checked.

Rating, from 1 to 10 (``rating_of``)::

    raw    = (only_moves - 1)                     # solving choices beyond the first
           + 2 * fails["highest"]                 # highest legal card (trumps rank above)
           + 2 * fails["greedy"]                  # most card points, then highest
           + 1 * fails["cheapest"]                # lowest card that wins the trick so far
                                                  # (on lead or when none wins: the lowest)
           + clip(log2(nodes / 1000), 0, 3)       # search the solver needed
    rating = clip(1 + round(raw * 9 / 12), 1, 10)

``only_moves`` counts the solving side's decisions along the line with more
than one group of legal cards; a natural play "fails" when, at one of those
decisions at least, its card is not in the winning group. Cards of two suits that
tie for a natural play (the same rank strength, and the same points for "greedy")
are taken in suit order: spades, hearts, diamonds, clubs. ``nodes`` is the
node count of an "all" search of the puzzle position from an empty table.

Tags, read with the rules engine (``Position.legal_mask``) from the positions
along the line (``tags_of``):

* ``seven-protection``: a seven-protection restriction (Reason.PROTECTED)
  barred a non-trump seven from some seat's free play along the line.
* ``forced-overtake``: a defender holding the suit led had to beat the
  rival's card (Reason.BEAT) while holding lower cards of that suit too.
* ``overtrump``: a defender had to overtrump (Reason.OVERTRUMP) while holding
  other cards.
* ``undertrump-ban``: the undertrump ban (Reason.NO_UNDERTRUMP, Manille)
  restricted some seat along the line.
* ``throw-in``: a defender on lead along the line (a trick boundary) had only
  leads after which, under best play, the solving side wins the trick with
  card points in it: the defender on lead must give points.
* ``seven-squeeze``: a defender who could not follow suit discarded (played
  no trump) while holding a non-trump seven (Malilla's top card), kept it, and
  the solving side later won the trick holding that seven.

Everything is deterministic for a seed: one ``deal.seeded(seed)`` stream draws the
deals, the dealers and the number of tricks left, and the play to it.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from . import _core
from .analysis import PlayedDeal, play_card
from .cards import SEATS, SUITS, card_name, card_points, cards_of, parse_card, trick_points
from .checks import check_whole
from .deal import deal, seeded
from .position import Position
from .profiles import LONGEST_DEAL, Profile, as_profile
from .quoting import counted, quoted
from .rules import trump_index
from .scoring import points_range
from .solve import Searcher, Solution, Solver, solver_given
from .text import diagram, tricks_text

__all__ = ["Puzzle", "NodeCounter", "generate", "mine", "check_options", "check_position", "rating_of",
           "natural_cards", "tags_of", "pretty", "TAGS"]

MIN_TRICKS, MAX_TRICKS, MARGIN = 3, 7, 3
"""The defaults: positions 3 to 7 tricks from the end, every other card 3 points short."""
ATTEMPTS_PER_PUZZLE = 2000
TAGS = ("seven-protection", "forced-overtake", "overtrump", "undertrump-ban", "throw-in", "seven-squeeze")
NODE_MEMORY = 16 << 20
"""The table bound of the search that counts a puzzle's nodes for its rating (on one thread)."""
SEARCH_MEMORY = 64 << 20
"""The table bound of the solver that searches deals for puzzles when none is given."""


class NodeCounter(Searcher, Protocol):
    """What counts a puzzle's nodes for its rating: a `Searcher` whose table `clear()` empties,
    as a `Solver`'s. A one-thread `Solver(NODE_MEMORY)`, the default, gives the ratings this
    module documents; one that keeps a budget of time may stand in for it."""

    def clear(self) -> None: ...


def _node_solver_given(node_solver: NodeCounter | None) -> NodeCounter:
    """`node_solver`, or a new one-thread `Solver(NODE_MEMORY)` when it is None; ValueError
    naming `node_solver` for an object that has no `solve` or `clear`."""
    return solver_given(node_solver, lambda: Solver(NODE_MEMORY), "node_solver", ("solve", "clear"))


@dataclass(frozen=True)
class Puzzle:
    """A position with a goal for the side to move, its solving line, each other first card's
    shortfall, its rating (1-10), its tags and the nodes of its rating's search."""

    position: Position
    goal: int
    line: tuple[str, ...]
    alternatives: dict[str, int] = field(hash=False)   # compared, not hashed: a dict has no hash
    rating: int
    tags: tuple[str, ...]
    nodes: int

    def to_json(self) -> dict[str, Any]:
        return {"position": self.position.to_json(), "goal": self.goal, "line": list(self.line),
                "alternatives": dict(self.alternatives), "rating": self.rating, "tags": list(self.tags)}


# ------------------------------------------------------------ uniqueness


def _winning_group(solution: Solution, goal: int, margin: int) -> tuple[str, ...] | None:
    """The one group of cards reaching `goal` when every other card falls short by >= margin."""
    values = solution.values
    reaching = [g for g in solution.groups if values[g[0]] >= goal]
    if len(reaching) != 1:
        return None
    if any(goal - values[c] < margin for g in solution.groups if g is not reaching[0] for c in g):
        return None
    return reaching[0]


def _best_card(solver: Searcher, position: Position) -> str:
    """The first optimal card in card order: exact values, so it never depends on the table's contents."""
    return solver.solve(position, mode="all").best[0]


Decision = tuple[Position, tuple[str, ...], tuple[tuple[str, ...], ...]]
"""A choice of the solving side: the position, its winning group and every legal group."""


def _walk(position: Position, goal: int, margin: int, solver: Searcher) -> tuple[list[str], list[Decision]] | None:
    """Follow the line from `position`; return (line, decisions) or None when a choice is not unique.

    decisions: (position, winning group, legal groups) of each solving-side choice with >1 group.
    """
    side = position.to_move & 1
    need = goal
    line: list[str] = []
    decisions: list[Decision] = []
    while not position.is_over:
        mover = position.to_move
        legal = position.legal_moves()
        if (mover & 1) == side:
            sol = solver.solve(position, mode="all")
            if len(sol.groups) == 1:
                card = sol.groups[0][0]
            else:
                group = _winning_group(sol, need, margin)
                if group is None or sol.value != need:
                    return None
                decisions.append((position, group, sol.groups))
                card = group[0]
        elif len(legal) == 1:
            card = legal[0]
        else:
            card = _best_card(solver, position)
        before = position
        position = position.play(card)
        line.append(card)
        if not position.trick:
            trick = before.trick + (parse_card(card, before.profile),)
            if (position.leader & 1) == side:
                need -= trick_points(trick, before.profile)
    if need > 0:
        return None
    return line, decisions


def check_position(position: Position | dict[str, Any] | str | bytes, margin: int = MARGIN, solver: Searcher | None = None,
                   node_solver: NodeCounter | None = None) -> Puzzle | None:
    """The puzzle of `position` (or its JSON; the side to move solves it), or None when it is not one."""
    check_whole("margin", margin, 1)
    if not isinstance(position, Position):
        position = Position.from_json(position)
    solver = solver_given(solver, Solver)
    if node_solver is not None:
        node_solver = _node_solver_given(node_solver)   # checked at the call; the default is made for a puzzle
    root = solver.solve(position, mode="all")
    if len(root.groups) < 2:
        return None
    goal = root.value
    assert goal is not None   # mode "all" values the position
    group = _winning_group(root, goal, margin)
    if group is None:
        return None
    walked = _walk(position, goal, margin, solver)
    if walked is None:
        return None
    line, decisions = walked
    alternatives = {cv.card: goal - cv.value for cv in root.cards if cv.card not in group}
    node_solver = _node_solver_given(node_solver)
    node_solver.clear()
    nodes = node_solver.solve(position, mode="all").nodes
    fails = {name: False for name in ("highest", "greedy", "cheapest")}
    for pos, winning, _ in decisions:
        for name, card in natural_cards(pos).items():
            if card not in winning:
                fails[name] = True
    rating = rating_of(len(decisions), fails, nodes)
    tags = tags_of(position, line, solver)
    return Puzzle(position, goal, tuple(line), alternatives, rating, tags, nodes)


# ------------------------------------------------------------ rating


def _strength(position: Position, c: int) -> tuple[int, int]:
    return (1 if (c >> 4) == trump_index(position.trump) else 0, c & 15)


def natural_cards(position: Position | dict[str, Any] | str | bytes) -> dict[str, str]:
    """The card each simple natural play picks: "highest", "greedy" (points), "cheapest" (win)."""
    if not isinstance(position, Position):
        position = Position.from_json(position)
    legal = cards_of(position.legal_mask()[0])
    profile = position.profile
    highest = max(legal, key=lambda c: (_strength(position, c), -(c >> 4)))
    greedy = max(legal, key=lambda c: (card_points(c, profile), _strength(position, c), -(c >> 4)))
    lowest = min(legal, key=lambda c: (_strength(position, c), c >> 4))
    cheapest = lowest
    if position.trick:
        trump = trump_index(position.trump)
        winners = [c for c in legal if _core.trick_winner(position.trick + (c,), trump) == len(position.trick)]
        if winners:
            cheapest = min(winners, key=lambda c: (_strength(position, c), c >> 4))
    return {"highest": card_name(highest, profile), "greedy": card_name(greedy, profile),
            "cheapest": card_name(cheapest, profile)}


def rating_of(only_moves: int, fails: dict[str, bool], nodes: int) -> int:
    """The difficulty from 1 to 10 (the formula is in the module docstring)."""
    raw: float = max(only_moves - 1, 0) + 2 * fails.get("highest", False) + 2 * fails.get("greedy", False) \
        + 1 * fails.get("cheapest", False)
    raw += min(max(math.log2(max(nodes, 1) / 1000), 0.0), 3.0)
    return min(max(1 + round(raw * 9 / 12), 1), 10)


# ------------------------------------------------------------ tags


def _restricted(position: Position) -> tuple[int, int, int, int]:
    """(reason, legal mask, hand mask, cards of the suit led in hand)."""
    mask, reason, _ = position.legal_mask()
    hand = position.hands[position.to_move]
    follow = hand & (0xFFFF << ((position.trick[0] >> 4) * 16)) if position.trick else 0
    return reason, mask, hand, follow


def tags_of(position: Position | dict[str, Any] | str | bytes, line: list[str] | tuple[str, ...],
            solver: Searcher | None = None) -> tuple[str, ...]:
    """The theme tags of the line played from `position` (see the module docstring)."""
    if not isinstance(position, Position):
        position = Position.from_json(position)
    R = _core.Reason
    side = position.to_move & 1
    profile = position.profile
    tags: set[str] = set()
    squeezed: set[int] = set()      # sevens kept through a defender's discard
    for card in line:
        mover = position.to_move
        defender = (mover & 1) != side
        reason, mask, hand, follow = _restricted(position)
        if reason == R.PROTECTED:
            tags.add("seven-protection")
        if reason == R.NO_UNDERTRUMP:
            tags.add("undertrump-ban")
        if defender and reason == R.BEAT and follow & ~mask:
            tags.add("forced-overtake")
        if defender and reason == R.OVERTRUMP and hand & ~mask:
            tags.add("overtrump")
        discard = position.trick and not follow and SUITS[parse_card(card, profile) >> 4] != position.trump
        if defender and discard and profile.protected_rank is not None:
            seven = profile.strength(profile.protected_rank)
            for c in cards_of(hand):
                if (c & 15) == seven and SUITS[c >> 4] != position.trump and card_name(c, profile) != card:
                    squeezed.add(c)
        if defender and not position.trick and solver is not None and len(cards_of(mask)) > 1:
            if _throw_in(position, side, solver):
                tags.add("throw-in")
        before = position
        position = position.play(card)
        if not position.trick:
            trick = before.trick + (parse_card(card, profile),)
            if (position.leader & 1) == side and squeezed & set(trick):
                tags.add("seven-squeeze")
    return tuple(t for t in TAGS if t in tags)


def _throw_in(position: Position, side: int, solver: Searcher) -> bool:
    """Every lead of the defender on lead gives the solving side the trick with card points."""
    for lead in position.legal_moves():
        p = position.play(lead)
        trick = [lead]
        while p.trick:
            legal = p.legal_moves()
            card = legal[0] if len(legal) == 1 else _best_card(solver, p)
            trick.append(card)
            p = p.play(card)
        if (p.leader & 1) != side:
            return False
        if sum(card_points(parse_card(c, position.profile), position.profile) for c in trick) == 0:
            return False
    return True


# ------------------------------------------------------------ sources


def _tricks_left(position: Position) -> int:
    return position.profile.cards_per_hand - position.tricks_played


def generate(profile: Profile | str, count: int, seed: int, min_tricks: int = MIN_TRICKS,
             max_tricks: int = MAX_TRICKS, margin: int = MARGIN, solver: Searcher | None = None, max_attempts: int | None = None,
             progress: Callable[[int, int], object] | None = None,
             node_solver: NodeCounter | None = None) -> Iterator[Puzzle]:
    """`count` puzzles from random deals of `profile` (or a game's name), deterministic for `seed`.

    Each attempt deals a deal (the game's dealing procedure, a random dealer),
    plays random legal cards to a trick boundary with k tricks left (k drawn in
    range) and checks that position. `max_attempts` (default `ATTEMPTS_PER_PUZZLE`
    per puzzle) bounds the search, so fewer puzzles may come;
    `progress(attempts, found)` is called after each attempt. `solver` checks the
    positions and `node_solver` counts the puzzles' nodes (`NodeCounter`). Bad
    options are refused at the call, before any puzzle is asked for.
    """
    return _puzzles_of(generate_attempts(profile, count, seed, min_tricks, max_tricks, margin, solver,
                                         max_attempts, node_solver), progress)


def _puzzles_of(steps: Iterator[tuple[int, int, Puzzle | None]],
                progress: Callable[[int, int], object] | None) -> Iterator[Puzzle]:
    for attempts, found, puzzle in steps:
        if puzzle is not None:
            yield puzzle
        if progress is not None:
            progress(attempts, found)


def generate_attempts(profile: Profile | str, count: int, seed: int, min_tricks: int = MIN_TRICKS,
                      max_tricks: int = MAX_TRICKS, margin: int = MARGIN, solver: Searcher | None = None,
                      max_attempts: int | None = None,
                      node_solver: NodeCounter | None = None) -> Iterator[tuple[int, int, Puzzle | None]]:
    """`generate`, step by step: after each attempt, (attempts, puzzles found, the puzzle
    that attempt found or None). Bad options are refused at the call."""
    profile = as_profile(profile)
    check_options(min_tricks, max_tricks, margin, profile, count)
    check_whole("seed", seed)
    if max_attempts is not None:
        check_whole("max_attempts", max_attempts, 1)
    return _attempts(profile, count, seed, min_tricks, max_tricks, margin,
                     solver_given(solver, lambda: Solver(SEARCH_MEMORY)),
                     _node_solver_given(node_solver), attempt_limit(count, max_attempts))


def attempt_limit(count: int, max_attempts: int | None) -> int:
    """The positions `generate` checks at the most for `count` puzzles: `max_attempts` when given,
    else ATTEMPTS_PER_PUZZLE a puzzle."""
    return max_attempts if max_attempts is not None else ATTEMPTS_PER_PUZZLE * count


def _attempts(profile: Profile, count: int, seed: int, min_tricks: int, max_tricks: int, margin: int,
              solver: Searcher, node_solver: NodeCounter, limit: int) -> Iterator[tuple[int, int, Puzzle | None]]:
    rng = seeded(seed)
    found = attempts = 0
    while found < count and attempts < limit:
        attempts += 1
        d = deal(profile, rng.randrange(1 << 31), dealer=rng.randrange(4))
        position = Position.from_json(d.to_position_json(), profile=d.profile)
        k = rng.randint(min_tricks, max_tricks)
        while _tricks_left(position) > k or position.trick:
            position = position.play(rng.choice(position.legal_moves()))
        puzzle = check_position(position, margin, solver, node_solver)
        found += puzzle is not None
        yield attempts, found, puzzle


def mine(played: PlayedDeal | str | bytes | dict[str, Any], min_tricks: int = MIN_TRICKS, max_tricks: int = MAX_TRICKS,
         margin: int = MARGIN, solver: Searcher | None = None,
         node_solver: NodeCounter | None = None) -> Iterator[Puzzle]:
    """The puzzles at the trick boundaries of a played deal (read as `analysis.PlayedDeal`
    reads it: the start position JSON plus `play`), checked by `solver` and their nodes counted
    by `node_solver` (`NodeCounter`). A bad deal or option is refused at the call."""
    record = played if isinstance(played, PlayedDeal) else PlayedDeal.from_json(played)
    position = record.start
    check_options(min_tricks, max_tricks, margin, position.profile)
    positions = [position]
    for i, card in enumerate(record.play):
        position = play_card(position, i, card)
        positions.append(position)
    return _mined(positions, min_tricks, max_tricks, margin, solver_given(solver, lambda: Solver(SEARCH_MEMORY)),
                  _node_solver_given(node_solver))


def _mined(positions: list[Position], min_tricks: int, max_tricks: int, margin: int,
           solver: Searcher, node_solver: NodeCounter) -> Iterator[Puzzle]:
    for p in positions:
        if not p.trick and not p.is_over and min_tricks <= _tricks_left(p) <= max_tricks:
            puzzle = check_position(p, margin, solver, node_solver)
            if puzzle is not None:
                yield puzzle


def check_options(min_tricks: int, max_tricks: int, margin: int, profile: Profile | None = None,
                  count: int = 1) -> None:
    """Raise ValueError unless 1 <= min_tricks <= max_tricks (<= the tricks of a deal of
    `profile`, or of the game with the longest deals when no profile is given), 1 <= margin <= the
    most points max_tricks tricks hold (no card can fall short by more), and count (the puzzles
    asked for) >= 1."""
    check_whole("min_tricks", min_tricks, 1)
    check_whole("max_tricks", max_tricks, 1)
    if min_tricks > max_tricks:
        raise ValueError(f"min_tricks: {quoted(min_tricks)} is more than the most tricks asked for "
                         f"({quoted(max_tricks)})")
    if profile is None:
        profile = LONGEST_DEAL
    if max_tricks > profile.cards_per_hand:
        raise ValueError(f"max_tricks: {quoted(max_tricks)} is more than the {profile.cards_per_hand} tricks "
                         f"of a {profile.name} deal")
    check_whole("margin", margin, 1)
    most = points_range(profile, max_tricks)[1]
    if margin > most:
        raise ValueError(f"margin: {quoted(margin)} is more than the {most} points {counted(max_tricks, 'trick')} "
                         f"of a {profile.name} deal can hold: no card falls short by it")
    check_whole("count", count, 1)


# ------------------------------------------------------------ for people


FIND_MORE = "a smaller --margin or other --min-tricks and --max-tricks find more"


def shortfall(found: int, count: int, attempts: int, max_attempts: int | None) -> str:
    """What a command says when the attempts at random puzzles run out with `found` of `count`."""
    return (f"{found} of {count} puzzles found in {counted(attempts, 'attempt')} (the limit"
            f"{'' if max_attempts else f', {ATTEMPTS_PER_PUZZLE} a puzzle'}): {FIND_MORE}")


def mined_shortfall(found: int, count: int, deals: int) -> str:
    """What a command says when the played deals it mined gave `found` of `count` puzzles."""
    return f"{found} of {count} puzzles found in {counted(deals, 'played deal')}: {FIND_MORE}"


def pretty(puzzle: Puzzle) -> str:
    """The puzzle for a person: the deal, the goal, then the solution and the alternatives."""
    p = puzzle.position
    mover = SEATS[p.to_move]
    lines = [
        f"{p.profile.name.capitalize()}, trump {p.trump}, {mover} to lead, "
        f"{_tricks_left(p)} tricks left. Rating {puzzle.rating}/10"
        + (f", tags: {', '.join(puzzle.tags)}" if puzzle.tags else ""),
        *diagram(p),
        f"Goal: {mover} and partner take at least {puzzle.goal} of the points left.",
        "Solution: " + tricks_text(puzzle.line, len(p.trick)),
        "Other cards: " + (", ".join(f"{c} (-{s})" for c, s in sorted(puzzle.alternatives.items(),
                                                                     key=lambda kv: (kv[1], kv[0]))) or "-"),
    ]
    return "\n".join(lines)
