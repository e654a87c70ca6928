"""Perft: the legal ways to play on from a position, counted to a depth.

Chess programs check their move generators by such counts. Another program's
legal-move routine for these games, given the same position, must count the
same sequences, card by card (`malilla-dd perft`).

>>> from solver import Position
>>> p = Position.from_json({"game": "manille", "trump": "H", "leader": "N", "trick": [],
...     "hands": {"N": "10S 7H", "E": "AS 8H", "S": "KS 9H", "W": "QS 10H"}})
>>> perft(p, 4).cards
{'10S': 1, '7H': 1}
>>> perft(p, 8).total
2
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import _core
from .cards import card_name, sort_key
from .checks import check_whole
from .position import Position
from .rules import core_rules, trump_index
from .solve import SearchStopped, SearchTimeout, check_timeout

__all__ = ["Perft", "perft"]


@dataclass(frozen=True)
class Perft:
    """The legal sequences of `depth` cards from a position: `total`, and by first card."""

    depth: int
    total: int
    cards: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {"depth": self.depth, "total": self.total, "cards": self.cards}


def perft(position: Position | dict[str, Any] | str | bytes, depth: int, timeout: float | None = None) -> Perft:
    """Count the legal sequences of the next `depth` cards (1 up to the cards left), by the
    core's legal-move routine. `timeout`: seconds allowed, None for no limit; `SearchTimeout`
    is raised when they run out (the count grows about fivefold a card)."""
    if not isinstance(position, Position):
        position = Position.from_json(position)
    position.check()
    check_whole("depth", depth, 1)
    left = sum(hand.bit_count() for hand in position.hands)
    if depth > left:
        raise ValueError(f"depth: {depth} is more than the {left} cards left to play")
    limit = check_timeout(timeout)
    try:
        counts = _core.count_plays(core_rules(position.profile), position.hands, trump_index(position.trump),
                                   position.leader, position.trick, position.led, depth, limit or 0.0)
    except SearchStopped:
        raise SearchTimeout(f"timeout: the count took more than the {limit:g} s allowed") from None
    counts.sort(key=lambda cn: sort_key(cn[0]))
    return Perft(depth, sum(n for _, n in counts), {card_name(c, position.profile): n for c, n in counts})
