"""Failures worded for people: a refused option named by its flag, a failed write by its file."""
from __future__ import annotations

import argparse
import contextlib
import errno
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


@contextlib.contextmanager
def reading(stream: Any) -> Iterator[None]:
    """Reads from `stream` within it: a failure names its file, or standard input (a failed read
    of Python's own names neither)."""
    try:
        yield
    except OSError as e:
        if e.filename is not None:
            raise
        name = getattr(stream, "name", None)
        raise OSError(e.errno, e.strerror, name if isinstance(name, str) and name != "<stdin>"
                      else "standard input") from None


def write_file(path: str | Path, text: str) -> None:
    """Write `text` as the whole UTF-8 file `path`; a failure names the file."""
    with writing(path):
        Path(path).write_text(text, encoding="utf-8")


def settle_stdout() -> None:
    """Flush standard output; if it cannot be written (a reader that has gone, a full disk), point
    it at /dev/null, so that the text it still holds is dropped, not written again as the program
    exits (which fails again: Python then reports it itself and exits 120)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OSError, ValueError):
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


class ArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser whose help and version text on standard output fails with OSError when it
    cannot be written, where argparse's own drops the error (see `parse`); a usage error's text
    on standard error stays best effort, with its exit code 2."""

    def _print_message(self, message: str, file: Any = None) -> None:
        if file is None and sys.stdout is None:   # closed by the caller (`>&-`)
            raise OSError(errno.EBADF, "standard output is closed")
        if file is not sys.stdout:
            super()._print_message(message, file)
        elif message:
            file.write(message)
            file.flush()


def parse_known(parser: argparse.ArgumentParser, argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    """`parser.parse_known_args(argv)`; help or version text that cannot be written exits 1
    naming the output (0 for a reader that has gone, as a closed pipe)."""
    try:
        return parser.parse_known_args(argv)
    except BrokenPipeError:
        settle_stdout()
        raise SystemExit(0) from None
    except OSError as e:
        settle_stdout()
        print(f"{parser.prog}: {os_failure(e)}", file=sys.stderr)
        raise SystemExit(1) from None


def parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """`parser.parse_args(argv)`, with the help and version text of `parse_known`."""
    args, extra = parse_known(parser, argv)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args
