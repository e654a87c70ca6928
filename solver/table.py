"""What-if tables: the double-dummy value of a full deal under every trump and every leader, and par.

The table holds, for every trump the game allows (Manille adds no-trump), or
only the trumps asked for, and every seat on lead, the points the leader's
side and N-S take when both sides play perfectly. Par reads it from the
dealer's chair: the first leader is the seat after the dealer, and for each
trump the deal is worth a deal score to the dealer's side. Where the dealer names trump (Manille) par is the choice
that serves the dealer's side best, with no-trump and a capot doubling the
score (a capot is found by a search with the deal-score objective, where it
outranks a plain win); where the shown card fixes trump (Malilla) par only
says what the deal would be worth under each trump the dealer's shown card
could make: a suit the dealer holds. With trumps asked for, par weighs those
only: the best trump among them, or the worth of each that the dealer could show.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .analysis import PlayedDeal, perfect_score, side_pair
from .cards import SEATS, check_seat, parse_trump, trump_choices
from .errors import PositionError
from .jsonlines import json_object
from .position import Position, check_dealer_holds_trump, holds_suit, read_dealer, read_seat
from .profiles import PROFILES, Profile
from .quoting import quoted
from .scoring import SIDE_NAMES
from .solve import Searcher, default_solver, solver_given
from .text import diagram

__all__ = ["TableEntry", "TrumpWorth", "Par", "DDTable", "dd_table", "read_table_input", "table_of", "table_trumps"]


@dataclass(frozen=True)
class TableEntry:
    """One cell: the deal with `trump` and `leader` on lead, both sides perfect."""

    trump: str
    leader: str
    value: int
    """Points of the leader's side."""
    ns: int
    """Points of N-S."""
    total: int

    @property
    def ew(self) -> int:
        return self.total - self.ns

    def to_json(self) -> dict[str, Any]:
        return {"trump": self.trump, "leader": self.leader, "value": self.value, **side_pair((self.ns, self.ew))}


@dataclass(frozen=True)
class TrumpWorth:
    """What the deal is worth under one trump, the dealer's next seat on lead."""

    trump: str
    points: tuple[int, int]
    """Double-dummy points of N-S and E-W."""
    score: tuple[int, int]
    """Match points each side scores under perfect play (multipliers applied)."""
    capot: bool
    """Perfect play ends in one side taking every trick."""
    dealer_side: int

    @property
    def dealer_score(self) -> int:
        """The dealer's side's signed score: what it scores, or minus what the rivals score."""
        return self.score[self.dealer_side] - self.score[1 - self.dealer_side]

    def to_json(self) -> dict[str, Any]:
        return {"trump": self.trump, "points": side_pair(self.points), "match_points": side_pair(self.score),
                "capot": self.capot, "dealer_score": self.dealer_score}


@dataclass(frozen=True)
class Par:
    """The dealer's view of the table."""

    dealer: str
    leader: str
    names_trump: bool
    """The dealer chooses trump (otherwise the shown card fixes it)."""
    choices: tuple[TrumpWorth, ...]
    """The trumps weighed: those of the table, where the shown card fixes trump those the dealer holds."""
    pending_doubling: bool = False

    @property
    def side(self) -> str:
        return SIDE_NAMES[SEATS.index(self.dealer) % 2]

    @property
    def score(self) -> int | None:
        """The best signed score the dealer's side can get by its trump; None with no choice (the
        dealer holds none of the trumps asked for, where the shown card fixes trump)."""
        return max((c.dealer_score for c in self.choices), default=None)

    @property
    def best(self) -> tuple[str, ...]:
        """The trumps that give the dealer's side its best score."""
        return tuple(c.trump for c in self.choices if c.dealer_score == self.score)

    def worth(self, trump: str) -> TrumpWorth:
        """What the deal is worth to the dealer's side under `trump` (in any case); KeyError if no choice has it."""
        for choice in self.choices:
            if isinstance(trump, str) and choice.trump == trump.upper():
                return choice
        raise KeyError(f"trump: {quoted(trump)} is not one of {', '.join(c.trump for c in self.choices)}")

    def to_json(self) -> dict[str, Any]:
        out = {"dealer": self.dealer, "side": self.side, "leader": self.leader, "names_trump": self.names_trump,
               "best": list(self.best), "score": self.score, "choices": [c.to_json() for c in self.choices]}
        if self.pending_doubling:
            out["pending_doubling"] = True
        return out


@dataclass(frozen=True)
class DDTable:
    """The double-dummy table of one deal, and par for its dealer(s)."""

    position: Position
    """The deal (its trump and leader are those given, or placeholders)."""
    trumps: tuple[str, ...]
    """The trumps solved, in the game's order: every trump the game allows, or those asked for."""
    entries: tuple[TableEntry, ...]
    par: tuple[Par, ...]
    trump: str | None = None
    """The trump given with the deal, if any."""
    dealer: str | None = None
    nodes: int = 0

    @property
    def profile(self) -> Profile:
        return self.position.profile

    def entry(self, trump: str, leader: str) -> TableEntry:
        """The cell of `trump` with `leader` on lead (either in any case); KeyError if the table has none."""
        for e in self.entries:
            if isinstance(trump, str) and isinstance(leader, str) and (e.trump, e.leader) == (trump.upper(),
                                                                                                leader.upper()):
                return e
        raise KeyError(f"no cell for trump {quoted(trump)} and leader {quoted(leader)} "
                       f"(trumps {', '.join(self.trumps)}; leaders N, E, S, W)")

    def grid(self) -> dict[str, dict[str, int]]:
        """N-S points by trump, then by leader."""
        return {t: {e.leader: e.ns for e in self.entries if e.trump == t} for t in self.trumps}

    def to_json(self) -> dict[str, Any]:
        hands = self.position.to_json()["hands"]
        return {"game": self.profile.name, "hands": hands, "trump": self.trump, "dealer": self.dealer,
                "table": [e.to_json() for e in self.entries], "grid": self.grid(),
                "par": [p.to_json() for p in self.par]}

    def pretty(self) -> str:
        """The grid and par, for a person."""
        p = self.profile
        every = self.trumps == trump_choices(p)
        lines = [
            f"{p.name.capitalize()}" + (f", dealer {self.dealer}" if self.dealer else "")
            + (f", trump {self.trump}" if self.trump else ""),
            *diagram(self.position),
            "",
            f"Double-dummy points for N-S (E-W take the rest of {p.total_points}), by trump and leader"
            + ("" if every else f" (only the trumps asked for: {' '.join(self.trumps)})") + ":",
            "trump" + "".join(f"{'lead ' + s:>9}" for s in SEATS),
        ]
        for t, row in self.grid().items():
            lines.append(f"{t:<5}" + "".join(f"{row[s]:>9}" for s in SEATS))
        among = "" if every else " among the trumps asked for"
        under = "each trump" if every else "each of the trumps asked for"
        for par in self.par:
            lines.append("")
            double = " (x2: the previous deal was tied)" if par.pending_doubling else ""
            seats = f"{par.dealer} ({par.side}), {par.leader} leads"
            if par.names_trump:
                best = " or ".join(par.best)
                lines.append(f"Par{among}, dealer {seats}: name {best}, "
                             f"worth {par.score:+d} to {par.side}{double}")
            elif not par.choices:
                lines.append(f"Dealer {seats}: the shown card fixes trump, and the dealer holds none of the trumps "
                             "asked for")
                continue
            else:
                lines.append(f"Dealer {seats}: the shown card fixes trump; the deal under {under}{double}:")
            lines.append(f"{'trump':<7}{'N-S':>5}{'E-W':>5}   {'scores':<16}{'to the dealer':>14}")
            for c in par.choices:
                winner = next((s for s in (0, 1) if c.score[s]), None)
                scores = "nobody (tie)" if winner is None else f"{SIDE_NAMES[winner]} {c.score[winner]}"
                if c.capot:
                    scores += " capot"
                mark = "  <- " + ("par" if par.names_trump else "best") if c.trump in par.best else ""
                if self.trump == c.trump and not par.names_trump:
                    mark += "  (this deal)"
                lines.append(f"{c.trump:<7}{c.points[0]:>5}{c.points[1]:>5}   {scores:<16}{c.dealer_score:>+14}{mark}")
        return "\n".join(lines)


def _variant(position: Position, trump: str, leader: int) -> Position:
    obj = position.to_json()
    obj.update(trump=trump, leader=SEATS[leader], trick=[])
    obj.pop("to_move", None)
    return Position.from_json(obj, profile=position.profile)


def _check_full_deal(position: Position) -> None:
    """Raise ValueError (a `PositionError` naming the field) unless `position` is a Position at
    the first lead of a deal."""
    if not isinstance(position, Position):
        raise ValueError(f"position: {quoted(position)} is not a Position")
    position.check()
    if position.played_field:
        raise PositionError(position.played_field, "a table needs a full deal: four full hands and no card played")


_MOST_TRUMPS = max(PROFILES.values(), key=lambda profile: len(trump_choices(profile)))
"""The game whose dealer has the most trumps to choose from: `table_trumps` checks against it
when no game is given."""


def table_trumps(trumps: Sequence[str] | None, profile: Profile | None = None) -> tuple[str, ...]:
    """The trumps a table solves, in the game's order: `trumps` (read as `cards.parse_trump` reads
    a trump), each a trump of `profile`'s game (of some game when None) and none given twice, or
    every trump the game allows when None. A bad one is a ValueError naming ``trumps[i]``."""
    game = _MOST_TRUMPS if profile is None else profile
    allowed = trump_choices(game)
    if trumps is None:
        return allowed
    if isinstance(trumps, (str, bytes)) or not isinstance(trumps, Sequence):
        raise ValueError(f"trumps: {quoted(trumps)} is not a sequence of trumps ({' '.join(allowed)})")
    if not trumps:
        raise ValueError(f"trumps: empty; a table needs at least one trump ({' '.join(allowed)})")
    asked: list[str] = []
    for i, name in enumerate(trumps):
        trump = parse_trump(name, game, f"trumps[{i}]")
        if trump in asked:
            raise ValueError(f"trumps[{i}]: {trump} is given twice")
        asked.append(trump)
    return tuple(t for t in allowed if t in asked)


def dd_table(position: Position, solver: Searcher | None = None, dealers: tuple[int, ...] | None = None,
             timeout: float | None = None, trumps: Sequence[str] | None = None) -> DDTable:
    """The table of a full deal (the position's hands at the first lead), with par for `dealers`.

    `dealers` defaults to the seat before the position's leader. Trump and
    leader of `position` only name the deal's own trump; every trump (or each
    of `trumps`, see `table_trumps`) and every leader is solved, and par
    weighs those trumps only.
    """
    _check_full_deal(position)
    profile = position.profile
    solved = table_trumps(trumps, profile)
    solver = solver_given(solver, default_solver)
    if dealers is None:
        dealers = (profile.seat_after(position.leader, -1),)
    if not isinstance(dealers, tuple):
        raise ValueError(f"dealers: {quoted(dealers)} is not a tuple of seat indexes")
    if not dealers:
        raise ValueError("dealers: empty; the par needs at least one dealer")
    for i, dealer in enumerate(dealers):
        check_seat(dealer, f"dealers[{i}]")
        if dealer in dealers[:i]:
            raise ValueError(f"dealers[{i}]: {SEATS[dealer]} is given twice")
    total = profile.total_points
    entries = []
    par_choices: dict[int, list[TrumpWorth]] = {d: [] for d in dealers}
    nodes = 0
    for trump in solved:
        # every leader first: they share the table; the deal-score searches change its signature
        row = {}
        for leader in range(4):
            start = _variant(position, trump, leader)
            sol = solver.solve(start, mode="best", timeout=timeout)
            assert sol.value is not None   # a "best" search has a value
            nodes += sol.nodes
            ns = sol.value if leader % 2 == 0 else total - sol.value
            row[leader] = ns
            entries.append(TableEntry(trump, SEATS[leader], sol.value, ns, total))
        for d in dealers:
            if profile.trump_from_dealer_card and not holds_suit(position.hands[d], trump):
                continue   # the dealer's shown card, whose suit is trump, cannot be of it
            leader = profile.seat_after(d)
            start = _variant(position, trump, leader)
            score, capot, score_nodes = perfect_score(solver, start, row[leader], timeout)
            nodes += score_nodes
            par_choices[d].append(TrumpWorth(trump, (row[leader], total - row[leader]), score, capot, d % 2))
    par = tuple(Par(SEATS[d], SEATS[profile.seat_after(d)], not profile.trump_from_dealer_card,
                    tuple(par_choices[d]), position.pending_doubling) for d in dealers)
    return DDTable(position, solved, tuple(entries), par, nodes=nodes)


def read_table_input(obj: Position | str | bytes | dict[str, Any]) -> tuple[Position, str | None, tuple[int, ...]]:
    """Read a full deal for the table: the position JSON with `trump` and `leader` optional
    (or a played deal, whose start it is, or the `Position` at the deal's first lead).

    Returns (position, the trump given or None, the dealers for par). The dealer is
    `dealer` when given, else the seat before `leader`; with neither, par is given for
    every dealer.
    """
    if isinstance(obj, Position):
        obj.check()
    variant = obj.profile if isinstance(obj, Position) else None   # its rules, not those its name ships
    obj = dict(json_object(obj.to_json() if isinstance(obj, Position) else obj))
    if obj.get("play") is not None:   # a played deal: every field checked as the analysis reads it
        PlayedDeal.from_json(obj)
    obj.pop("play", None)
    trump = obj.get("trump")
    if trump is None:
        obj["trump"] = "S"   # a placeholder: every trump is solved
    leader_given = obj.get("leader") is not None
    if not leader_given:
        obj["leader"] = "N"
        if obj.get("to_move") is not None:   # it would name the placeholder's seat: checked, then dropped
            read_seat(obj.pop("to_move"), "to_move")
    # the dealer and the shown card are read below, against the leader and trump given
    position = Position.from_json({k: v for k, v in obj.items() if k not in ("dealer", "shown")}, profile=variant)
    _check_full_deal(position)
    profile = position.profile
    dealer = read_dealer(obj.get("dealer"), position.leader if leader_given else None, profile)
    if dealer is not None:
        dealers: tuple[int, ...] = (dealer,)
    elif leader_given:
        dealers = (profile.seat_after(position.leader, -1),)
    else:
        dealers = (0, 1, 2, 3)
    if obj.get("shown") is not None:   # as a played deal's, as far as the trump and the dealer are known
        PlayedDeal.read_shown(obj["shown"], position, dealers[0] if len(dealers) == 1 else None, trump is not None)
    if trump is not None and len(dealers) == 1:
        check_dealer_holds_trump(position, dealers[0])
    return position, (position.trump if trump is not None else None), dealers


def table_of(obj: Position | str | bytes | dict[str, Any], solver: Searcher | None = None,
             timeout: float | None = None, trumps: Sequence[str] | None = None) -> DDTable:
    """`read_table_input` then `dd_table`: the table of a deal (its JSON, or the `Position`
    at its first lead), under every trump or each of `trumps`."""
    position, trump, dealers = read_table_input(obj)
    table = dd_table(position, solver, dealers, timeout, trumps)
    dealer = SEATS[dealers[0]] if len(dealers) == 1 else None
    return DDTable(table.position, table.trumps, table.entries, table.par, trump, dealer, table.nodes)
