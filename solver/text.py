"""Plain text for a person: the hand diagram and a line of play split into tricks."""
from __future__ import annotations

from collections.abc import Sequence

from .cards import SEATS
from .position import Position


def diagram(position: Position) -> list[str]:
    """The four hands: N above, W and E side by side, S below ("-" for an empty hand)."""
    hands = {s: " ".join(position.hand(s)) or "-" for s in SEATS}
    width = max(len(hands["W"]), 12)
    return [
        " " * (width + 5) + f"N: {hands['N']}",
        f"W: {hands['W']:<{width}}" + " " * 6 + f"E: {hands['E']}",
        " " * (width + 5) + f"S: {hands['S']}",
    ]


def tricks_text(line: Sequence[str], played: int = 0) -> str:
    """The cards of a line of play with a bar between tricks, when `played`
    cards of its first trick were down before the line starts."""
    first = (4 - played) % 4
    tricks = [line[:first]] if first else []
    tricks += [line[i:i + 4] for i in range(first, len(line), 4)]
    return " | ".join(" ".join(trick) for trick in tricks if trick)
