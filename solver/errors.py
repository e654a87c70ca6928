"""The library's refusals of its input: `PositionError` names the field and the problem,
`IllegalPlay` a card that cannot be played."""
from __future__ import annotations

__all__ = ["PositionError", "IllegalPlay"]


class PositionError(ValueError):
    """A position that cannot be: `field` names where, `problem` says what."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem

    def __reduce__(self) -> tuple[type[PositionError], tuple[str, str]]:
        """Pickled (and copied) by its field and problem, so that it crosses to and from worker processes."""
        return type(self), (self.field, self.problem)


class IllegalPlay(PositionError):
    """A card that cannot be played here: one the rules forbid, one the player does not hold, or
    no card of the deck at all."""
