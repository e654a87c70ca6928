"""Checks of the library's whole-number arguments (a refusal is a ValueError naming the
argument), and sizes in bytes as people write them."""
from __future__ import annotations

import re

from .quoting import quoted

_SIZE = re.compile(r"\s*(\d+)\s*(?:([kmg])(?:i?b)?|b)?\s*", re.IGNORECASE)


def check_whole(name: str, value: object, least: int | None = None) -> None:
    """Raise ValueError unless `value` is a whole number (not a bool), and at least `least` if given."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name}: {quoted(value)} is not a whole number")
    if least is not None and value < least:
        raise ValueError(f"{name}: {quoted(value)} must be at least {least}")


def parse_size(text: str | int) -> int:
    """Bytes from ``268435456``, ``256M``, ``256MiB``, ``64k``, ``1G`` (binary multiples)."""
    if isinstance(text, int):
        return text
    m = _SIZE.fullmatch(text)
    if not m:
        raise ValueError(f"{quoted(text)} is not a size (bytes, or a number with K, M or G)")
    return int(m[1]) << 10 * " kmg".index((m[2] or " ").lower())
