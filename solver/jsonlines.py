"""Reading JSON-lines input: input files and standard input as UTF-8, their lines and the limits
of a line, and a line's JSON object of the format, refused as a `PositionError` naming the field."""
from __future__ import annotations

import argparse
import difflib
import io
import json
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from .errors import PositionError
from .failures import reading
from .quoting import quoted

__all__ = ["POSITION_KEYS", "MAX_LINE", "MAX_KEYS", "without_surrogates", "input_lines", "blank_line", "json_object",
           "input_file", "read_stdin_as_utf8", "count_lines"]


# the keys of the position JSON, a played deal's and the table input's included
POSITION_KEYS = frozenset({"game", "trump", "hands", "leader", "trick", "led_suits", "to_move", "history",
                           "dealer", "shown", "pending_doubling", "play"})


# characters no text holds: the undecodable bytes of an input read with `surrogateescape`, and
# lone halves of a surrogate pair, which JSON's \\u escapes can spell
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def without_surrogates(text: str) -> str:
    """`text` with each lone surrogate (an undecodable byte read with `surrogateescape`) as
    U+FFFD, so that it can be written as UTF-8 and as JSON that strict readers take."""
    return _SURROGATE.sub("\ufffd", text)


def _not_json(name: str) -> None:
    raise ValueError(f"{name} is not a JSON value")


class _RepeatedKey(ValueError):
    """A key given twice in one JSON object, which json.loads would resolve to its last value."""


def _object_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _RepeatedKey(f"the key {quoted(key)} is given twice in one object")
        obj[key] = value
    return obj


def _parse_json(text: str, field: str) -> Any:
    """JSON text's value; text that is not UTF-8, not JSON, NaN and Infinity, or an object that
    gives a key twice raise `PositionError`."""
    if len(text.removesuffix("\n")) > MAX_LINE:
        raise PositionError(field, f"more than {MAX_LINE:,} characters, the most a line may hold")
    bad = _SURROGATE.search(text)
    if bad:
        code = ord(bad.group())
        what = f"byte 0x{code - 0xDC00:02X}" if 0xDC80 <= code <= 0xDCFF else f"lone surrogate U+{code:04X}"
        raise PositionError(field, f"not UTF-8 text ({what} at character {bad.start()})")
    try:
        # without the line's end, an error at the end of the text is placed on its line
        value = json.loads(text.removeprefix("\ufeff").rstrip(), parse_constant=_not_json,
                           object_pairs_hook=_object_once)
    except _RepeatedKey as e:
        raise PositionError(field, str(e)) from None
    except (ValueError, RecursionError) as e:
        raise PositionError(field, f"not valid JSON ({e})") from None
    if _SURROGATE_ESCAPE.search(text) and _SURROGATE.search(json.dumps(value, ensure_ascii=False)):
        raise PositionError(field, "a \\u escape spells a lone surrogate, which is not text")
    return value


MAX_LINE = 1 << 20
"""Characters of the longest JSON text read: a position, a played deal or a view takes a few
hundred, so that what one line can make the parser build stays small."""
MAX_KEYS = 256
"""Keys of the longest JSON object read: the format has a dozen, and each other key is compared
with them for a misspelling."""


def input_lines(stream: TextIO) -> Iterator[str]:
    """The lines of a text input, each read whole up to MAX_LINE characters. A longer line comes cut
    just past that length, which the JSON readers refuse, and the rest of it is skipped unkept, so
    that a line with no end (``/dev/zero``) does not fill the memory. A failed read names the file."""
    with reading(stream):
        while line := stream.readline(MAX_LINE + 1):
            if _cut(line):
                while (rest := stream.readline(1 << 20)) and not rest.endswith("\n"):
                    pass
            yield line


def blank_line(line: str) -> bool:
    """Is an input line empty: nothing but white space and a byte-order mark (which the JSON
    readers drop)? A line cut at MAX_LINE is not, whatever its first characters."""
    return not _cut(line) and not line.strip().lstrip("\ufeff").strip()


def _cut(line: str) -> bool:
    """Is `line` one that `input_lines` cut at MAX_LINE (longer, and its end not read)?"""
    return len(line) > MAX_LINE and not line.endswith("\n")


def json_object(obj: str | bytes | dict[str, Any], field: str = "position",
                keys: frozenset[str] = POSITION_KEYS) -> dict[str, Any]:
    """`obj` as a JSON object, parsing text or UTF-8 bytes (a leading byte-order mark is dropped);
    anything else raises `PositionError` on `field`. A key that looks like a misspelt or cut-short
    one of `keys` (`led_suit`, `Trump`, `lead`) is refused, since it would be ignored; other keys
    are left alone (the vectors carry their answers beside the position)."""
    if isinstance(obj, bytes):
        obj = obj.decode("utf-8", "surrogateescape")
    if isinstance(obj, str):
        obj = _parse_json(obj, field)
    if not isinstance(obj, dict):
        raise PositionError(field, "expected a JSON object")
    if len(obj) > MAX_KEYS:
        raise PositionError(field, f"{len(obj):,} keys, more than the {MAX_KEYS} an object may hold")
    longest = max(map(len, keys))
    for key in obj:   # in the input's order, so that the same line always names the same key
        # JSON keys are text (a number or a tuple is no misspelt key); one over twice as long as
        # any key of the format is not close to one (`get_close_matches` asks 80% alike)
        if key in keys or not isinstance(key, str) or len(key) > 2 * longest:
            continue
        text = key.lower()
        near = difflib.get_close_matches(text, keys, n=1, cutoff=0.8) or \
            sorted(k for k in keys if len(text) >= 3 and k.startswith(text))   # cut short: lead, led
        if near:
            raise PositionError(field, f"unknown key {quoted(key)} (did you mean {near[0]}?)")
    return obj


# input files are UTF-8 whatever the locale; an undecodable byte is kept (as a surrogate) for the
# line's reader to refuse, so that the lines around it are still answered
def input_file(name: str) -> TextIO:
    """An input file argument (``-``: standard input), read as UTF-8 with undecodable bytes kept
    for the line's own error, its lines split at newlines only, as standard input splits them (a
    carriage return inside a line is JSON white space)."""
    if name == "-":
        return sys.stdin
    try:
        return open(name, encoding="utf-8", errors="surrogateescape", newline="\n")
    except OSError as e:
        raise argparse.ArgumentTypeError(f"can't open {quoted(name)}: {e}") from None


def read_stdin_as_utf8() -> None:
    """Standard input read as `input_file` reads files."""
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")


def count_lines(stream: TextIO) -> int | None:
    """Non-blank lines left in a seekable input (None for a pipe)."""
    try:
        if not stream.seekable():
            return None
        start = stream.tell()
    except (OSError, ValueError):
        return None
    try:
        return sum(1 for line in input_lines(stream) if not blank_line(line))
    except (OSError, ValueError):
        return None
    finally:
        stream.seek(start)
