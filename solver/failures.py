"""Failures worded for people: a refused option named by its flag, a failed write by its file."""
from __future__ import annotations

import argparse
import contextlib
import errno
from collections.abc import Iterator
from pathlib import Path

# the errors of writing to a full or limited device: without a file name, standard output's
_WRITE_ERRORS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})


def flag_named(parser: argparse.ArgumentParser, message: str) -> str:
    """A refusal ``"name: problem"`` of an argument that `parser` takes as a flag, with the flag
    for the name (``"--memory: problem"``); any other message as it is."""
    name, _, problem = message.partition(": ")
    flag = "--" + name.replace("_", "-")
    return f"{flag}: {problem}" if problem and flag in parser._option_string_actions else message


def os_failure(error: OSError) -> str:
    """What failed and why: ``"out.jsonl: No space left on device"``, ``"standard output: ..."``."""
    problem = error.strerror or str(error)
    if error.filename is not None:
        return f"{error.filename}: {problem}"
    if error.errno in _WRITE_ERRORS:
        return f"standard output: {problem}"
    return problem


@contextlib.contextmanager
def writing(path: str | Path) -> Iterator[None]:
    """Writes to the file `path` within it: a failure names the file (a failed write of
    Python's own does not)."""
    try:
        yield
    except OSError as e:
        raise OSError(e.errno, e.strerror, e.filename or str(path)) from None


def write_file(path: str | Path, text: str) -> None:
    """Write `text` as the whole UTF-8 file `path`; a failure names the file."""
    with writing(path):
        Path(path).write_text(text, encoding="utf-8")
