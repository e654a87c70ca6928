"""Input text echoed in an error message, kept short."""
from __future__ import annotations

SHOWN = 20


def quoted(value: object) -> str:
    """``repr(value)``, with a long string or other long value cut to its first
    `SHOWN` characters and its length, so that an error about a huge field
    stays a readable line (and fits a gRPC status)."""
    if isinstance(value, str) and len(value) > SHOWN:
        return f"{value[:SHOWN]!r}... ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= SHOWN + 2 else f"{text[:SHOWN]}... ({len(text)} characters)"
