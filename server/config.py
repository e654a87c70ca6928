"""The service's settings: command-line flags with environment-variable fallbacks.

Kept free of gRPC imports so that `malilla-dd --help` stays quick.

| flag               | environment                 | default                        |
| ------------------ | --------------------------- | ------------------------------ |
| --host             | MALILLA_DD_HOST             | 127.0.0.1                      |
| --port             | MALILLA_DD_PORT             | 50051 (0: any free port)       |
| --workers          | MALILLA_DD_WORKERS          | the usable cores               |
| --threads          | MALILLA_DD_THREADS          | 1 per worker's search          |
| --memory           | MALILLA_DD_MEMORY           | 256M table per worker          |
| --max-concurrent   | MALILLA_DD_MAX_CONCURRENT   | 8 per worker                   |
| --max-message      | MALILLA_DD_MAX_MESSAGE      | 4M                             |
| --grace            | MALILLA_DD_GRACE            | 10 (seconds)                   |
| --drain            | MALILLA_DD_DRAIN            | 0 (seconds)                    |
| --max-call-seconds | MALILLA_DD_MAX_CALL_SECONDS | 600 (0: no limit)              |
| --token            | MALILLA_DD_TOKEN            | none (no token asked)          |
| --tls-cert/-key    | MALILLA_DD_TLS_CERT/_KEY    | none (plaintext)               |
| --log-level        | MALILLA_DD_LOG_LEVEL        | INFO (access log lines)        |
"""
from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from solver.checks import check_whole, parse_size
from solver.quoting import quoted
from solver.solve import DEFAULT_MEMORY, check_memory, check_threads

from .limits import CALLS_PER_WORKER, check_call_seconds

__all__ = ["EXTRA_CALLS", "Config", "add_arguments", "config_from_args", "default_workers", "check_token"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 50051
DEFAULT_MAX_MESSAGE = 4 * 1024 * 1024
DEFAULT_GRACE = 10.0
DEFAULT_MAX_CALL_SECONDS = 600.0
ENV_PREFIX = "MALILLA_DD_"

EXTRA_CALLS = 256
"""Handler threads (and gRPC's own call limit) beyond the service's limit, for health
checks, reflection and the refusals of calls past the limit, so that health checks are
answered while callers retry past the limit. Beyond them gRPC itself refuses calls (health
checks too) with RESOURCE_EXHAUSTED, before any handler, so unlogged; no call ever waits in an
unbounded queue."""


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def check_token(token: str | None) -> None:
    """Raise ValueError unless `token` is None or a bearer token: printable ASCII without spaces, not empty."""
    if token is not None and (not token or " " in token or not (token.isascii() and token.isprintable())):
        raise ValueError("token: must be printable ASCII without spaces, and not empty")


@dataclass(frozen=True)
class Config:
    """The server's settings, from flags, environment and defaults (`config_from_args`); `check()`
    refuses a bad one by name."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    workers: int = 1
    threads: int = 1
    """Threads each worker's searches run on."""
    memory: int = DEFAULT_MEMORY
    max_concurrent: int | None = None
    """None: 8 per worker."""
    max_message: int = DEFAULT_MAX_MESSAGE
    grace: float = DEFAULT_GRACE
    drain: float = 0.0
    """Seconds of serving on, health NOT_SERVING, between SIGTERM/SIGINT and the stop."""
    max_call_seconds: float = DEFAULT_MAX_CALL_SECONDS
    """The longest a call of the service may run, in seconds; 0: no limit."""
    token: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    log_level: str = "INFO"

    def __post_init__(self) -> None:
        if not self.host:
            raise ValueError("host: empty, where an address to listen on is wanted")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port: {self.port} is not a TCP port (0-65535)")
        check_whole("workers", self.workers, 1)
        check_threads(self.threads)
        check_memory(self.memory, self.workers)
        if self.max_concurrent is not None:
            check_whole("max_concurrent", self.max_concurrent, 1)
        if not 1024 <= self.max_message < 1 << 31:
            raise ValueError(f"max_message: {self.max_message} bytes (at least 1K, under 2G: gRPC's limit)")
        for name in ("grace", "drain"):
            if not 0 <= getattr(self, name) < math.inf:
                raise ValueError(f"{name}: {getattr(self, name)} seconds (0 or more, finite)")
        check_call_seconds(self.max_call_seconds)
        check_token(self.token)
        for name in ("tls_cert", "tls_key"):
            if getattr(self, name) == "":
                raise ValueError(f"{name}: empty, where a file name is wanted")
        if self.tls_key is None and self.tls_cert is not None:
            raise ValueError("tls_cert: needs the private key file too (TLS takes both, or neither)")
        if self.tls_cert is None and self.tls_key is not None:
            raise ValueError("tls_key: needs the certificate chain file too (TLS takes both, or neither)")

    @property
    def concurrency(self) -> int:
        """The calls allowed at once."""
        return self.max_concurrent if self.max_concurrent is not None else CALLS_PER_WORKER * self.workers

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


_FLAGS: list[tuple[str, str, Callable[[str], object], str]] = [
    # (field, flag, type, help)
    ("host", "--host", str, "address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)"),
    ("port", "--port", int, f"TCP port (default {DEFAULT_PORT}; 0 picks a free one)"),
    ("workers", "--workers", int, "solver threads, each with its own table (default: the usable cores)"),
    ("threads", "--threads", int, "threads each worker's searches run on, for calls that come one at a time "
                                  "(default 1, at most 16)"),
    ("memory", "--memory", parse_size, "transposition table per worker, bytes or 256M / 1G (default 256M)"),
    ("max_concurrent", "--max-concurrent", int,
     "calls in progress at once; one more gets RESOURCE_EXHAUSTED (default 8 per worker); with "
     f"{EXTRA_CALLS} more being answered or refused at once, gRPC itself refuses the next call, a health "
     "check too, unlogged"),
    ("max_message", "--max-message", parse_size, "largest request, and largest answer of the service; health "
                                                  "and reflection answers, a few KiB, go out whatever it is "
                                                  "(default 4M)"),
    ("grace", "--grace", float, "seconds that calls in flight get to finish on SIGTERM/SIGINT (default 10)"),
    ("drain", "--drain", float, "seconds of serving on after SIGTERM/SIGINT, with health checks answering "
                                "NOT_SERVING, before the stop and its grace (default 0)"),
    ("max_call_seconds", "--max-call-seconds", float,
     "the longest a call may run: past it, its search stops and a SolveStream stops waiting for requests, "
     "with DEADLINE_EXCEEDED (default 600; 0: no limit)"),
    ("token", "--token", str, "ask every call (health checks excepted) for 'authorization: Bearer TOKEN'; "
                              "prefer the environment variable, which ps does not show"),
    ("tls_cert", "--tls-cert", str, "PEM certificate chain file: serve TLS (with --tls-key)"),
    ("tls_key", "--tls-key", str, "PEM private key file"),
    ("log_level", "--log-level", str, "DEBUG, INFO (access log), WARNING or ERROR (default INFO)"),
]


_METAVARS = {"workers": "N", "threads": "N", "memory": "BYTES", "max_concurrent": "N", "max_message": "BYTES",
             "grace": "SECONDS", "drain": "SECONDS", "max_call_seconds": "SECONDS", "tls_cert": "FILE",
             "tls_key": "FILE", "log_level": "LEVEL"}


def _env_name(name: str) -> str:
    return ENV_PREFIX + name.upper()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of `malilla-dd serve`; each falls back to MALILLA_DD_<NAME> in the environment."""
    for name, flag, _, text in _FLAGS:
        parser.add_argument(flag, dest=name, default=None, metavar=_METAVARS.get(name, name.upper()),
                            help=f"{text} [env {_env_name(name)}]")


def config_from_args(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> Config:
    """A checked `Config` from parsed flags, then the environment, then the defaults.

    Raises ValueError naming the flag or variable that is wrong.
    """
    environ = os.environ if environ is None else environ
    values: dict[str, Any] = {"workers": default_workers()}
    sources: dict[str, str] = {}
    known = {f.name for f in fields(Config)}
    for name, flag, convert, _ in _FLAGS:
        assert name in known
        raw = getattr(args, name, None)
        source = flag
        if raw is None and environ.get(_env_name(name)):
            raw, source = environ[_env_name(name)], _env_name(name)
        if raw is None:
            continue
        try:
            values[name] = convert(raw) if isinstance(raw, str) else raw
        except ValueError as e:   # parse_size words its own refusal; int and float do not
            problem = str(e) if convert is parse_size else f"{quoted(raw)} is not a valid {name.replace('_', ' ')}"
            raise ValueError(f"{source}: {problem}") from None
        sources[name] = source
    if values.get("log_level"):
        values["log_level"] = values["log_level"].upper()
        if values["log_level"] not in ("DEBUG", "INFO", "WARNING", "ERROR"):
            raise ValueError(f"{sources['log_level']}: {quoted(values['log_level'])} is not DEBUG, INFO, WARNING "
                             "or ERROR")
    try:
        return Config(**values)
    except ValueError as e:   # named by the flag or variable that gave the value
        name, _, problem = str(e).partition(": ")
        if name not in sources:
            raise
        raise ValueError(f"{sources[name]}: {problem}") from None
