"""Words of messages: input text echoed, kept short, and counts (``1 card``, ``2 tricks``)."""
from __future__ import annotations

import reprlib

SHOWN = 20


class _Short(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        """A whole number too long to be worth writing out (or past Python's limit on
        converting one to text) by its size instead."""
        if x.bit_length() > 256:
            return f"<{x.bit_length()}-bit number>"
        return super().repr_int(x, level)


_SHORT = _Short()
_SHORT.maxlevel = 3
_SHORT.maxstring = _SHORT.maxother = _SHORT.maxlong = SHOWN + 2


def quoted(value: object) -> str:
    """``repr(value)``, with a long string cut to its first `SHOWN` characters
    and its length, and any other value abridged (``reprlib``, so that a deeply
    nested one costs nothing), so that an error about a huge field stays a
    readable line (and fits a gRPC status)."""
    if isinstance(value, str):
        return f"{value[:SHOWN]!r}... ({len(value)} characters)" if len(value) > SHOWN else repr(value)
    text = _SHORT.repr(value)
    return text if len(text) <= SHOWN + 2 else f"{text[:SHOWN]}..."


def counted(n: int, noun: str) -> str:
    """``1 card``, ``2 cards``: `n` and `noun`, plural unless `n` is 1."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
