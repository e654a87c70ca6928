"""Perft: the legal ways to play on from a position, counted to a depth.

Chess programs check their move generators by such counts. Another program's
legal-move routine for these games, given the same position, must count the
same sequences, card by card (`malilla-dd perft`). `Solver.perft` counts on the
solver's core, so that its `cancel` stops a count as it stops a search.

>>> from solver import Position, Solver
>>> p = Position.from_json({"game": "manille", "trump": "H", "leader": "N", "trick": [],
...     "hands": {"N": "10S 7H", "E": "AS 8H", "S": "KS 9H", "W": "QS 10H"}})
>>> Solver().perft(p, 4).cards
{'10S': 1, '7H': 1}
>>> Solver().perft(p, 8).total
2
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import _core
from .cards import card_name, sort_key
from .checks import check_whole
from .position import Position
from .profiles import LONGEST_DEAL
from .quoting import quoted
from .rules import core_rules, trump_index

__all__ = ["Perft", "check_depth", "check_depth_option", "count"]


@dataclass(frozen=True)
class Perft:
    """The legal sequences of `depth` cards from a position: `total`, and by first card."""

    depth: int
    total: int
    cards: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {"depth": self.depth, "total": self.total, "cards": self.cards}


def check_depth_option(depth: int, name: str = "depth") -> None:
    """Raise ValueError naming `name` unless `depth` is a whole number from 1 to the cards of the
    longest deal: a depth that some position can be counted to (a command's option)."""
    check_whole(name, depth, 1)
    if depth > LONGEST_DEAL.deck_size:
        raise ValueError(f"{name}: {quoted(depth)} is more than the {LONGEST_DEAL.deck_size} cards of a "
                         f"{LONGEST_DEAL.name} deal, the longest")


def check_depth(position: Position, depth: int) -> None:
    """Raise ValueError naming `depth` unless it is a whole number from 1 to the cards left."""
    check_whole("depth", depth, 1)
    left = sum(hand.bit_count() for hand in position.hands)
    if depth > left:
        raise ValueError(f"depth: {quoted(depth)} is more than the {left} cards left to play")


def count(core: _core.Core, position: Position, depth: int, timeout: float | None) -> Perft:
    """The legal sequences of `depth` cards from `position` (both checked) counted on `core`,
    whose `cancel` stops the count (`SearchStopped`), as does `timeout` (seconds, None: no limit)."""
    counts = core.count(core_rules(position.profile), position.hands, trump_index(position.trump),
                        position.leader, position.trick, position.led, depth, timeout or 0.0)
    counts.sort(key=lambda cn: sort_key(cn[0]))
    return Perft(depth, sum(n for _, n in counts), {card_name(c, position.profile): n for c, n in counts})
