"""Going on from an earlier batch run's output: the indices its complete lines answer, its
trailing partial line cut off, and the items of an input file it does not answer yet.

The output's lines must be of the same run, and for an input file, of the same items at
those indices (compared by `digest`).
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO, TextIO

from .jsonlines import blank_line, input_lines, json_object, without_surrogates

__all__ = ["read_done", "digest", "unanswered", "as_text"]


def read_done(path: str, on_line: Callable[[dict[str, Any]], None] | None = None,
              run: dict[str, Any] | None = None) -> set[int]:
    """Indices of the complete lines of an earlier run's output; cuts off a trailing partial line,
    once every complete line is read and found to be a batch output line.

    `on_line` sees each of those lines (so a resumed run's statistics cover the whole file). With
    `run`, a line of another run (another job, options or generated stream) is refused: going on
    would mix two runs' answers in one file. A refused file is left as it was."""
    done: set[int] = set()
    if not os.path.exists(path):
        return done
    with open(path, "rb+") as f:
        end = _complete_end(f)
        size = f.seek(0, os.SEEK_END)
        f.seek(end)
        if end < size and f.read(len(_LINE_START)) != _LINE_START[:size - end]:
            raise ValueError(f"output: {path} ends in a part line that is not a line of a batch run: give "
                             "another file")
        f.seek(0)
        for number, raw in enumerate(f, 1):   # one line at a time: the file may hold millions
            if f.tell() > end:   # the part line, cut off below
                break
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
                index = int(line["index"])
            except (ValueError, KeyError, TypeError):
                raise ValueError(f"output: line {number} of {path} is not a line of a batch run: give another "
                                 "file") from None
            if run is not None and line.get("run") != run:
                raise ValueError(f"output: {path} holds the lines of another run ({json.dumps(line.get('run'))}, "
                                 f"not {json.dumps(run)}): give the same arguments, or another file")
            if index in done:
                continue
            done.add(index)
            if on_line is not None:
                on_line(line)
        if end < size:
            f.truncate(end)
    return done


_LINE_START = b'{"index": '
"""How every line of a batch run's output begins (`run_chunk`)."""


def _complete_end(f: BinaryIO) -> int:
    """The offset just past the last line ending of the file `f` (0 when it has none), read back
    from its end."""
    pos = f.seek(0, os.SEEK_END)
    while pos > 0:
        step = min(pos, 1 << 16)
        pos -= step
        f.seek(pos)
        last = f.read(step).rfind(b"\n")
        if last >= 0:
            return pos + last + 1
    return 0


def _file_items(stream: TextIO) -> Iterator[tuple[int, str]]:
    index = 0
    for line in input_lines(stream):
        if not blank_line(line):
            yield index, line
            index += 1


def digest(item: Any) -> bytes:
    """A short digest of an output line's `position`: the item, or its text (without its line
    ending, which the input's last line may lack) when it is no JSON object."""
    if isinstance(item, str):
        item = item.rstrip("\r\n")
    return hashlib.blake2b(json.dumps(item, sort_keys=True).encode(), digest_size=16).digest()


def unanswered(source: TextIO, answered: dict[int, bytes], out_path: str | None) -> Iterable[tuple[int, str]]:
    """The input's items that the output does not answer yet. The input is read at once up to
    the last item answered, keeping the items between: one answered for another position is
    refused before any work, since the input changed and going on would mix two inputs' answers."""
    items = _file_items(source)
    last = max(answered, default=-1)
    gaps = []
    if last >= 0:
        for i, line in items:
            if i not in answered:
                gaps.append((i, line))
            elif answered[i] != digest(_position_of(line)):
                raise ValueError(f"output: {out_path} answers another input (item {i}, the input's non-blank "
                                 f"line {i + 1}, is another position): give the same input, or another file")
            if i == last:
                break
        else:
            raise ValueError(f"output: {out_path} answers items the input no longer holds (item {last}, the "
                             f"input's non-blank line {last + 1}, and it has fewer): give the same input, or "
                             "another file")
    return itertools.chain(gaps, items)


def _position_of(line: str) -> Any:
    """An input line as `run_chunk` keeps it in its output line's `position`: the object it
    holds, or the line itself when it holds none (the line is then answered with its error)."""
    try:
        return dict(json_object(line))
    except ValueError:
        return as_text(line)


def as_text(item: Any) -> Any:
    """An input line kept in an output line, its undecodable bytes (read as lone surrogates) as
    U+FFFD: JSON text holds no lone surrogate. Anything else as it is."""
    return without_surrogates(item) if isinstance(item, str) else item
