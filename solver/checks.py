"""Checks of the library's whole-number arguments: a refusal is a ValueError naming the argument."""
from __future__ import annotations

from .quoting import quoted


def check_whole(name: str, value: object, least: int | None = None) -> None:
    """Raise ValueError unless `value` is a whole number (not a bool), and at least `least` if given."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name}: {quoted(value)} is not a whole number")
    if least is not None and value < least:
        raise ValueError(f"{name}: {value} must be at least {least}")
