"""Post-game play analysis: the double-dummy cost of every card of a played deal.

A played deal is the position JSON of the start of a deal (four full hands,
trump, leader; optional ``dealer``, ``shown``, ``pending_doubling``) plus
``play``, the cards in the order played: a whole deal or its beginning.

For every card: the seat, the value for the seat's side of the position before
the card and after it, the cost (``before - after``: what the card gave away,
0 for an optimal card) and the optimal cards. The values are in the unit of
the objective: under "points" (the default) the points from the remaining play
of the position before the card, the trick in progress included, as in the
position JSON's values; under "score" the signed deal score of the seat's
side, where a capot outranks a plain win. One `Solver` serves the whole deal,
so each position reuses the bounds that the earlier positions stored; one
search per card (mode "all") gives the value before it, the value of every
legal card and so the value after the card played.

Points cannot tell a capot, which multiplies a Manille deal's score, from a
plain win: a card that loses one is flagged (`CardAnalysis.loses_capot`)
under either objective; under "points", from one more search in the
deal-score objective of each position whose points leave a capot at stake.
Under "points" the flag is all that shows it (the costs and the mistakes count
points); under "score" the capot is in the card's cost.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .cards import SEATS, CardError, card_name, card_points, check_seat, parse_card, trick_points
from .checks import check_whole
from .errors import IllegalPlay, PositionError
from .jsonlines import json_object
from .position import Position, card_texts, check_dealer_holds_trump, read_dealer, read_shown
from .profiles import Profile
from .quoting import counted, quoted
from .scoring import SIDE_NAMES, DealScore, check_points, deal_multiplier, score_deal, side_score
from .solve import Searcher, Solution, check_objective, default_solver, solver_given

__all__ = ["PlayedDeal", "CardAnalysis", "TrickRecord", "SeatSummary", "IllegalCard", "DealResult",
           "Analysis", "analyze", "perfect_score", "plain_most", "side_pair", "SummaryTotals", "format_summary",
           "UNITS"]

UNITS = {"points": "points", "score": "match points"}
"""What an analysis's values and costs count under each objective."""


def side_pair(pair: tuple[int, int]) -> dict[str, int]:
    """``(ns, ew)`` as ``{"N-S": ns, "E-W": ew}``."""
    return {SIDE_NAMES[0]: pair[0], SIDE_NAMES[1]: pair[1]}


def _signed_to_pair(signed_ns: int) -> tuple[int, int]:
    """N-S's signed deal score as the match points each side scores."""
    return (signed_ns, 0) if signed_ns > 0 else (0, -signed_ns)


def plain_most(start: Position) -> int:
    """The most the deal of `start` scores without a capot: a deal score above it, or below
    its negative, is a capot's (never, where a capot multiplies nothing)."""
    profile = start.profile
    return (profile.total_points - profile.half) * deal_multiplier(profile, start.trump, start.pending_doubling)


def perfect_score(solver: Searcher, start: Position, points_ns: int | None = None,
                  timeout: float | None = None) -> tuple[tuple[int, int], bool, int]:
    """Match points each side scores (N-S, E-W) when both play perfectly from `start`,
    whether the winners take every trick, and the nodes searched to tell it.

    Where a capot multiplies the score (Manille) a search with the deal-score
    objective decides it, so that a capot outranks a plain win, unless the
    double-dummy points `points_ns` rule a capot out: it takes every point,
    so only N-S at 0 or at the deal's total can make one. Elsewhere the points
    decide it (`points_ns`, searched when not given), and where tricks score
    nothing, so that every point need not be every trick, a search of the tricks
    alone tells whether the side with every point can also force every trick.
    """
    profile = start.profile
    if points_ns is not None:
        check_points(points_ns, profile, "points_ns")
    if profile.capot_multiplier > 1 and points_ns in (None, 0, profile.total_points):
        sol = solver.solve(start, mode="best", objective="score", timeout=timeout)
        assert sol.value is not None   # mode "best" values the position
        signed = sol.value if start.to_move % 2 == 0 else -sol.value
        return _signed_to_pair(signed), abs(signed) > plain_most(start), sol.nodes
    nodes = 0
    if points_ns is None:
        sol = solver.solve(start, mode="best", timeout=timeout)
        assert sol.value is not None   # mode "best" values the position
        points_ns = sol.value if start.to_move % 2 == 0 else profile.total_points - sol.value
        nodes = sol.nodes
    won = max(points_ns, profile.total_points - points_ns)
    capot = won == profile.total_points
    if capot and profile.trick_bonus == 0:
        capot, searched = _forces_every_trick(solver, start, timeout)
        nodes += searched
    return _signed_to_pair(side_score(profile, points_ns, capot, start.trump, start.pending_doubling)), capot, nodes


def _forces_every_trick(solver: Searcher, start: Position, timeout: float | None) -> tuple[bool, int]:
    """Can a side take every trick of the deal from `start` whatever the other side plays, and the
    nodes searched to tell it: the game of `start` scored a point a trick and nothing for cards."""
    if start.history is None:
        raise PositionError("history", "whether a side takes every trick needs the completed tricks "
                            "(or a position at the start of the deal)")
    profile = start.profile
    tricks_only = replace(profile, name=f"{profile.name} (tricks)", points=(0,) * len(profile.ranks), trick_bonus=1)
    sol = solver.solve(replace(start, profile=tricks_only), mode="best", timeout=timeout)
    assert sol.value is not None   # mode "best" values the position
    left = profile.tricks - start.tricks_played   # the trick in progress included
    side = start.to_move & 1
    taken = start.won_flags   # bit 0: N-S took a trick of the history, bit 1: E-W did
    by_mover = sol.value == left and not (taken >> (side ^ 1)) & 1
    by_rivals = sol.value == 0 and not (taken >> side) & 1
    return by_mover or by_rivals, sol.nodes


# ---------------------------------------------------------------- input


def _deal_start(start: Position) -> Position:
    """`start` as a played deal's start: at the start of a deal (or `PositionError`), with its
    empty history known, since nothing was played before it."""
    if start.played_field:
        raise PositionError(start.played_field, "a played deal starts from four full hands and no card played")
    return start if start.history is not None else replace(start, history=(), first_leader=start.leader)


@dataclass(frozen=True)
class PlayedDeal:
    """The start of a deal and the cards played from it, read from JSON."""

    start: Position
    play: tuple[str, ...]
    """The cards in the order played, as canonical card names."""
    dealer: int
    """The seat before the first leader (given as ``dealer`` or inferred from ``leader``)."""
    shown: str | None = None
    """Malilla: the dealer's shown card (its suit is trump), for the dealer's bonus."""

    @property
    def pending_doubling(self) -> bool:
        """Manille: the previous deal was tied, so this one counts double (read with the start)."""
        return self.start.pending_doubling

    @classmethod
    def from_json(cls, obj: str | bytes | dict[str, Any], *, profile: Profile | str | None = None) -> PlayedDeal:
        """Read a played deal; a malformed one raises `PositionError` naming the field. `profile`:
        a variant's rules, as `Position.from_json` takes them."""
        obj = json_object(obj, "deal")
        start = _deal_start(Position.from_json({k: v for k, v in obj.items() if k not in ("play", "shown")},
                                               profile=profile))
        profile = start.profile
        dealer = read_dealer(obj.get("dealer"), start.leader, profile)
        if dealer is None:
            dealer = profile.seat_after(start.leader, -1)
        check_dealer_holds_trump(start, dealer)
        shown = cls.read_shown(obj.get("shown"), start, dealer)
        raw = obj.get("play")
        if raw is None:
            raise PositionError("play", "missing: the cards in the order played")
        items = card_texts(raw, "play", profile)
        limit = profile.deck_size
        if len(items) > limit:
            raise PositionError("play", f"{counted(len(items), 'card')}; a {profile.name} deal has {limit}")
        play: list[str] = []
        for i, text in enumerate(items):
            try:
                name = card_name(parse_card(text, profile), profile)
            except CardError as e:
                raise PositionError(f"play[{i}]", str(e)) from None
            if name in play:
                raise PositionError(f"play[{i}]", f"{name} appears twice (also in play[{play.index(name)}])")
            play.append(name)
        return cls(start, tuple(play), dealer, shown)

    @staticmethod
    def read_shown(value: Any, start: Position, dealer: int | None, trump_known: bool = True) -> str | None:
        """The dealer's shown card (None if not given): a card of the dealer's hand (when the
        dealer is known) whose suit is the trump (when it is known)."""
        card = read_shown(value, start.profile)
        if card is None:
            return None
        profile = start.profile
        name = card_name(card, profile)
        if dealer is not None and not start.hands[dealer] >> card & 1:
            raise PositionError("shown", f"{name} is not in the dealer {SEATS[dealer]}'s hand")
        if trump_known and profile.trump_from_dealer_card and name[-1] != start.trump:
            raise PositionError("shown", f"{name} would make {name[-1]} trump, not {start.trump}")
        return name

    def checked(self) -> PlayedDeal:
        """This deal read back from its JSON, so that one built field by field gets every check of
        `from_json` (`PositionError` naming the field)."""
        if not isinstance(self.start, Position):
            raise PositionError("start", f"{quoted(self.start)} is not a Position")
        self.start.check()
        try:
            check_seat(self.dealer)
        except ValueError as e:
            raise PositionError("dealer", str(e)) from None
        if not isinstance(self.play, tuple) or not all(isinstance(card, str) for card in self.play):
            raise PositionError("play", "expected a tuple of card strings")
        return PlayedDeal.from_json(self.to_json(), profile=self.start.profile)

    def to_json(self) -> dict[str, Any]:
        out = self.start.to_json()
        out["dealer"] = SEATS[self.dealer]
        if self.shown is not None:
            out["shown"] = self.shown
        out["play"] = list(self.play)
        return out


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class CardAnalysis:
    """One card played, judged double dummy from its mover's side."""

    index: int
    """0-based position of the card in the play."""
    card: str
    seat: str
    before: int
    """Value of the position before the card for the seat's side, in the objective's unit (points: of the
    remaining play, trick in progress included; score: the signed deal score)."""
    after: int
    """Value after the card, for the same side and in the same frame as `before`."""
    best: tuple[str, ...]
    """The optimal cards (those worth `before`)."""
    values: Mapping[str, int] = field(hash=False)
    """Every legal card's value for the seat's side, best first."""
    won: tuple[int, int]
    """Points N-S and E-W had taken in completed tricks before the card."""
    total: int
    """Points in the deal (cards plus trick bonuses)."""
    objective: str = "points"
    """The objective of the values: "points" or "score"."""
    loses_capot: bool = False
    """Where a capot multiplies the deal score (Manille): with perfect play (the deal-score objective)
    the deal ends in a capot for the seat's side, or in none against it, before the card, and no longer
    does after it."""
    single_dummy: Mapping[str, Any] | None = field(default=None, hash=False, compare=False)
    """With ``analyze(..., single_dummy=N)``: the card's single-dummy verdict (`solver.advice.verdict`)."""

    @property
    def cost(self) -> int:
        return self.before - self.after

    @property
    def side(self) -> int:
        """0 for N-S, 1 for E-W."""
        return SEATS.index(self.seat) % 2

    @property
    def trick(self) -> int:
        """0-based trick number."""
        return self.index // 4

    @property
    def forced(self) -> bool:
        """The only legal card."""
        return len(self.values) == 1

    def deal_value(self, after: bool = True) -> tuple[int, int]:
        """The deal for N-S and E-W under perfect play from here on (after the card or before it): its
        points, or under the score objective the match points each side scores."""
        value = self.after if after else self.before
        if self.objective == "score":
            return _signed_to_pair(value if self.side == 0 else -value)
        mine = self.won[self.side] + value
        pair = [0, 0]
        pair[self.side] = mine
        pair[1 - self.side] = self.total - mine
        return pair[0], pair[1]

    def to_json(self) -> dict[str, Any]:
        out = {"card": self.card, "seat": self.seat, "before": self.before, "after": self.after,
               "cost": self.cost, "best": list(self.best), "values": dict(self.values),
               "deal": side_pair(self.deal_value())}
        if self.loses_capot:
            out["loses_capot"] = True
        if self.single_dummy is not None:
            out["single_dummy"] = dict(self.single_dummy)
        return out


@dataclass(frozen=True)
class TrickRecord:
    """A trick of the play (the last one may be unfinished)."""

    leader: str
    cards: tuple[str, ...]
    winner: str | None
    """None while the trick is unfinished."""
    points: int
    """Card points plus the trick bonus (of the cards so far while unfinished)."""

    def to_json(self) -> dict[str, Any]:
        return {"leader": self.leader, "cards": list(self.cards), "winner": self.winner, "points": self.points}


@dataclass(frozen=True)
class SeatSummary:
    """One seat's play in an analysis: its cards analysed, their summed cost and its mistakes."""

    seat: str
    cards: int
    cost: int
    mistakes: int
    """Cards that cost something."""

    def to_json(self) -> dict[str, Any]:
        return {"cards": self.cards, "cost": self.cost, "mistakes": self.mistakes}


@dataclass(frozen=True)
class IllegalCard:
    """The card that stopped the analysis, and the rule it broke."""

    index: int
    card: str
    seat: str
    rule: str

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "card": self.card, "seat": self.seat, "rule": self.rule}


@dataclass(frozen=True)
class DealResult:
    """The deal's outcome: what happened, what perfect play gives, and the scores."""

    complete: bool
    points: tuple[int, int]
    """Points each side took in the completed tricks of the play."""
    tricks: tuple[int, int]
    dd_points: tuple[int, int]
    """Double-dummy points of the deal from its start."""
    dd_score: tuple[int, int]
    """Match points each side scores under perfect play from the start."""
    dd_capot: bool
    projected: tuple[int, int]
    """The deal under perfect play after the last legal card analysed, as `CardAnalysis.deal_value` gives it
    (points, or match points under the score objective)."""
    score: DealScore | None
    """The actual deal scored (complete deals only)."""
    dealer: str
    dealer_bonus: dict[str, Any] | None = field(hash=False)
    """Malilla: the shown card's bonus to the dealer's side (None when the shown card is not known)."""
    bonus_rule: bool
    """The game has a dealer's bonus."""
    pending_doubling: bool
    notes: tuple[str, ...] = ()
    penalty: dict[str, Any] | None = field(default=None, hash=False)
    """The strict profile's match-losing fault, when an illegal card stopped the play."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "complete": self.complete,
            "actual": {"points": side_pair(self.points), "tricks": side_pair(self.tricks)},
            "double_dummy": {"points": side_pair(self.dd_points), "match_points": side_pair(self.dd_score),
                             "capot": self.dd_capot},
            "projected": side_pair(self.projected),
            "dealer": self.dealer,
        }
        if self.score is not None:
            out["actual"].update({"match_points": side_pair(self.score.score), "multiplier": self.score.multiplier,
                                  "capot": self.score.capot, "tied": self.score.tied})
        if self.pending_doubling:
            out["pending_doubling"] = True
        if self.bonus_rule:
            out["dealer_bonus"] = self.dealer_bonus
        if self.penalty is not None:
            out["penalty"] = self.penalty
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class Analysis:
    """A played deal analysed card by card."""

    deal: PlayedDeal
    cards: tuple[CardAnalysis, ...]
    tricks: tuple[TrickRecord, ...]
    seats: Mapping[str, SeatSummary] = field(hash=False)
    result: DealResult
    illegal: IllegalCard | None = None
    nodes: int = 0
    seconds: float = field(default=0.0, compare=False)
    objective: str = "points"
    """The objective of the cards' values and costs: "points" or "score"."""

    @property
    def profile(self) -> Profile:
        return self.deal.start.profile

    @property
    def unit(self) -> str:
        """What the cards' values and costs count: "points" or "match points"."""
        return UNITS[self.objective]

    @property
    def start(self) -> Position:
        return self.deal.start

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": self.profile.name,
            "trump": self.start.trump,
            "objective": self.objective,
            "cards": [c.to_json() for c in self.cards],
            "tricks": [t.to_json() for t in self.tricks],
            "seats": {s: self.seats[s].to_json() for s in SEATS},
            "result": self.result.to_json(),
        }
        if self.illegal is not None:
            out["illegal"] = self.illegal.to_json()
        return out


# ---------------------------------------------------------------- the analysis


def play_card(position: Position, index: int, name: str) -> Position:
    """`position` after play[index], `name`. A card its player does not hold is a record that
    cannot be (`PositionError`); a card the rules forbid raises `IllegalPlay`."""
    seat = position.to_move
    card = parse_card(name, position.profile)
    if not position.hands[seat] >> card & 1:
        holder = next(s for s in range(4) if position.hands[s] >> card & 1)
        raise PositionError(f"play[{index}]", f"{SEATS[seat]} plays {name}, which {SEATS[holder]} holds")
    try:
        return position.play(card)
    except IllegalPlay as e:
        raise IllegalPlay(f"play[{index}]", e.problem) from None


def analyze(deal: PlayedDeal | dict[str, Any] | str | bytes, solver: Searcher | None = None,
            timeout: float | None = None, single_dummy: int = 0, seed: int = 0,
            objective: str = "points") -> Analysis:
    """Analyse a played deal card by card (see the module's docstring).

    `solver` defaults to this thread's shared solver; `timeout` bounds each
    search (`SearchStopped` is raised when one runs out). An illegal card
    stops the analysis there: `Analysis.illegal` names it and its rule.
    `objective`: "points" (default) or "score", as `Solver.solve` takes it:
    the unit of the cards' values and costs, of the mistakes and of
    `projected`. With `single_dummy` N > 0 each card also gets its
    single-dummy verdict (`solver.advice`: N sampled layouts of what its
    player could not see, sampling seeded by `seed` and the card's index), so
    that an unlucky card (a double-dummy cost, but the best card on what was
    visible) is told from a mistake; a `seed` other than 0 without
    `single_dummy` is refused, as it would change nothing.
    """
    check_objective(objective)
    check_whole("single_dummy", single_dummy, 0)
    check_whole("seed", seed)
    if seed and not single_dummy:
        raise ValueError(f"seed: {seed} has no effect with single_dummy 0 (the default)")
    deal = deal.checked() if isinstance(deal, PlayedDeal) else PlayedDeal.from_json(deal)
    solver = solver_given(solver, default_solver)
    began = time.perf_counter()
    start = deal.start
    profile = start.profile
    total = profile.total_points
    position = start
    positions = [start]   # before each card analysed, and after the last
    cards: list[CardAnalysis] = []
    illegal = None
    nodes = 0
    for index, name in enumerate(deal.play):
        seat = position.to_move
        try:
            after_position = play_card(position, index, name)
        except IllegalPlay as e:
            illegal = IllegalCard(index, name, SEATS[seat], e.problem)
            break
        sol = solver.solve(position, mode="all", objective=objective, timeout=timeout)
        nodes += sol.nodes
        won = position.points_won()
        assert sol.value is not None and won is not None   # mode "all"; the start has a history
        loses_capot, capot_nodes = _loses_capot(solver, start, position, won, sol, name, timeout)
        nodes += capot_nodes
        cards.append(CardAnalysis(
            index=index, card=name, seat=SEATS[seat], before=sol.value, after=sol.values[name],
            best=tuple(sol.best), values=sol.values, won=won, total=total, objective=objective,
            loses_capot=loses_capot))
        position = after_position
        positions.append(position)

    if single_dummy > 0 and cards:
        cards = _with_verdicts(deal, cards, single_dummy, seed, solver, timeout)
    if cards and objective == "points":
        dd_points = cards[0].deal_value(after=False)
    else:
        sol = solver.solve(start, mode="best", timeout=timeout)
        nodes += sol.nodes
        assert sol.value is not None   # mode "best" values the position
        ns = sol.value if start.to_move % 2 == 0 else total - sol.value
        dd_points = (ns, total - ns)
    dd_score, dd_capot, score_nodes = perfect_score(solver, start, dd_points[0], timeout)
    nodes += score_nodes
    if cards:
        projected = cards[-1].deal_value()
    else:
        projected = dd_points if objective == "points" else dd_score

    complete = position.is_over
    points, tricks = position.points_won(), position.tricks_won()
    assert points is not None and tricks is not None   # the start has a history
    # the unfinished trick's cards are in nobody's points yet
    score = score_deal(profile, points, tricks, start.trump, deal.pending_doubling) if complete else None
    notes: list[str] = []
    if not complete:
        notes.append(f"partial deal: {len(cards)} of {profile.deck_size} cards played; "
                     "'projected' completes it with perfect play")
    if score is not None and score.capot and score.winner is not None and profile.slam_wins_match:
        notes.append(f"{SIDE_NAMES[score.winner]} took every trick: in {profile.name} that wins the match at once")
    if dd_capot and profile.slam_wins_match:
        winner = 0 if dd_points[0] > dd_points[1] else 1
        notes.append(f"with perfect play {SIDE_NAMES[winner]} take every trick, which wins the match at once")

    bonus = _dealer_bonus(deal, notes)
    penalty = _penalty(profile, illegal, notes)

    result = DealResult(
        complete=complete, points=points, tricks=tricks, dd_points=dd_points, dd_score=dd_score,
        dd_capot=dd_capot, projected=projected, score=score, dealer=SEATS[deal.dealer], dealer_bonus=bonus,
        bonus_rule=profile.dealer_bonus,
        pending_doubling=deal.pending_doubling, notes=tuple(notes), penalty=penalty)
    return Analysis(deal, tuple(cards), _tricks(positions, cards), _seats(cards), result, illegal, nodes,
                    time.perf_counter() - began, objective)


def _loses_capot(solver: Searcher, start: Position, position: Position, won: tuple[int, int], sol: Solution,
                 card: str, timeout: float | None) -> tuple[bool, int]:
    """Does `card`, played in `position` (where each side has taken `won`), lose a capot: one its side
    would make, or one it would keep the other side from making? And the nodes of the searches that
    tell it. `sol` is the card's own search: in the deal-score objective its values tell it. Else,
    where a capot multiplies the score, the mover has a choice of cards and the points say that a
    capot is at stake (the mover's side, having lost no trick, can take every point left, or the
    other side, having lost none, keeps every point left after `card`), a deal-score search asks
    which cards reach the capot (or stay clear of the other side's)."""
    plain = plain_most(start)
    assert sol.value is not None   # mode "all"
    if sol.objective == "score":
        best, value = sol.value, sol.values[card]
        return best > plain >= value or best >= -plain > value, 0
    if position.profile.capot_multiplier == 1 or len(sol.cards) == 1:
        return False, 0
    side, flags = position.to_move & 1, position.won_flags
    left = position.profile.total_points - sum(won)
    own_in_reach = not flags >> (side ^ 1) & 1 and sol.value == left
    theirs_in_reach = not flags >> side & 1 and sol.values[card] == 0
    nodes = 0
    for in_reach, target in ((own_in_reach, plain + 1), (theirs_in_reach, -plain)):
        if in_reach:
            reaching = solver.solve(position, mode="targets", objective="score", target=target, timeout=timeout)
            nodes += reaching.nodes
            if reaching.reached and card not in {c.card for c in reaching.cards}:
                return True, nodes
    return False, nodes


def _dealer_bonus(deal: PlayedDeal, notes: list[str]) -> dict[str, Any] | None:
    """The dealer's bonus of a game that has one, from the dealer's shown card (a note when not given)."""
    profile = deal.start.profile
    if not profile.dealer_bonus:
        return None
    if deal.shown is None:
        notes.append("the dealer's bonus is left out: give the dealer's shown card as 'shown' to count it")
        return None
    card = parse_card(deal.shown, profile)
    return {"card": deal.shown, "side": SIDE_NAMES[deal.dealer % 2], "points": card_points(card, profile),
            "rule": f"credited at once unless it brings the dealer's side to {profile.match_target} "
                    "or more; then it waits for the deal and is dropped if either side reached "
                    f"{profile.match_target} by it"}


def _penalty(profile: Profile, illegal: IllegalCard | None, notes: list[str]) -> dict[str, Any] | None:
    """The match penalty of an illegal card, where the game has one (a note where it has none)."""
    if illegal is None:
        return None
    side = SEATS.index(illegal.seat) % 2
    if not profile.illegal_play_loses_match:
        notes.append(f"{illegal.seat} played {illegal.card} illegally; {profile.name} has no match penalty "
                     "for it, the analysis stops there")
        return None
    return {"side": SIDE_NAMES[side], "winner": SIDE_NAMES[1 - side],
            "text": f"{illegal.seat} played {illegal.card} illegally: under the strict {profile.name} "
                    f"profile a confirmed illegal play loses the match, so {SIDE_NAMES[1 - side]} "
                    "win it"}


def _with_verdicts(deal: PlayedDeal, cards: list[CardAnalysis], samples: int, seed: int, solver: Searcher,
                   timeout: float | None) -> list[CardAnalysis]:
    """The cards with their single-dummy verdicts (forced cards get none: there was no choice)."""
    from .advice import advise, verdict
    from .view import View, view_of

    start, profile = deal.to_json(), deal.start.profile
    out = []
    for c in cards:
        if c.forced:
            out.append(c)
            continue
        view = View.from_json(view_of(start, list(deal.play[:c.index]), profile=profile), profile=profile)
        advice = advise(view, samples, seed * 1000003 + c.index, solver=solver, timeout=timeout)
        out.append(replace(c, single_dummy=verdict(c.card, advice, c.cost)))
    return out


def _tricks(positions: list[Position], cards: list[CardAnalysis]) -> tuple[TrickRecord, ...]:
    """The legal cards played, trick by trick, with each trick's winner and points (`positions`:
    the position before each card, and after the last)."""
    profile = positions[0].profile
    out = []
    for i in range(0, len(cards), 4):
        group = cards[i:i + 4]
        played = [parse_card(c.card, profile) for c in group]
        winner = None
        if len(group) == 4:
            winner = SEATS[positions[i + 4].leader]
            points = trick_points(played, profile)
        else:
            points = sum(card_points(c, profile) for c in played)
        out.append(TrickRecord(SEATS[positions[i].leader], tuple(c.card for c in group), winner, points))
    return tuple(out)


def _seats(cards: list[CardAnalysis]) -> dict[str, SeatSummary]:
    out = {}
    for seat in SEATS:
        mine = [c for c in cards if c.seat == seat]
        out[seat] = SeatSummary(seat, len(mine), sum(c.cost for c in mine), sum(1 for c in mine if c.cost > 0))
    return out


class SummaryTotals:
    """Per-seat totals over many analysed deals of one objective, for the terminal summary."""

    def __init__(self, objective: str = "points") -> None:
        self.objective = objective
        self.deals = 0
        self.illegal = 0
        self.errors = 0
        self.cards = dict.fromkeys(SEATS, 0)
        self.cost = dict.fromkeys(SEATS, 0)
        self.mistakes = dict.fromkeys(SEATS, 0)

    @classmethod
    def of(cls, analyses: list[Analysis]) -> SummaryTotals:
        """The totals of `analyses`, of one objective (points when there are none)."""
        totals = cls(analyses[0].objective if analyses else "points")
        for analysis in analyses:
            totals.add(analysis)
        return totals

    def add(self, analysis: Analysis) -> None:
        """Count `analysis` in; one of another objective is refused (ValueError), its costs being in another unit."""
        if analysis.objective != self.objective:
            raise ValueError(f"objective: an analysis in {analysis.unit} among totals in {UNITS[self.objective]}")
        self.deals += 1
        self.illegal += analysis.illegal is not None
        for seat in SEATS:
            summary = analysis.seats[seat]
            self.cards[seat] += summary.cards
            self.cost[seat] += summary.cost
            self.mistakes[seat] += summary.mistakes

    def format(self) -> str:
        """A per-seat table of the cards, mistakes and points (or match points) given away."""
        head = f"{counted(self.deals, 'deal')} analysed" + (" in match points" if self.objective == "score" else "")
        if self.illegal:
            head += f", {self.illegal} stopped by an illegal card"
        if self.errors:
            head += f", {counted(self.errors, 'line')} answered with an error"
        rows = [head, f"{'seat':<6}{'cards':>7}{'mistakes':>10}{'cost':>7}{'cost/card':>11}"]
        for seat in SEATS:
            played = self.cards[seat]
            per = self.cost[seat] / played if played else 0.0
            rows.append(f"{seat:<6}{played:>7}{self.mistakes[seat]:>10}{self.cost[seat]:>7}{per:>11.2f}")
        return "\n".join(rows)


def format_summary(analyses: list[Analysis]) -> str:
    """`SummaryTotals.format` of `analyses`."""
    return SummaryTotals.of(analyses).format()
