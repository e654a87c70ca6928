"""The server's limits on calls: how many run at once, and how long each may run."""
from __future__ import annotations

import math
import threading
import time
from typing import Any

import grpc

from .jobs import DEADLINE_SLACK

CALLS_PER_WORKER = 8
"""The calls allowed at once by default, for each worker."""


def check_call_seconds(seconds: float) -> None:
    """ValueError unless `seconds`, the longest a call may run, is 0 (no limit) or more, and finite."""
    if not 0 <= seconds < math.inf:
        raise ValueError(f"max_call_seconds: {seconds} seconds (0 for no limit, or more, finite)")


class Limited:
    """A call's context whose deadline is its client's or, if sooner, `seconds` after the call
    began: the server's limit on a call, which its searches and its waits for requests keep to
    as they keep to a deadline."""

    def __init__(self, context: grpc.ServicerContext, seconds: float) -> None:
        self.seconds = seconds
        self._context = context
        self._end = time.monotonic() + seconds

    def time_remaining(self) -> float | None:
        own = max(self._end - time.monotonic(), 0.0)
        client = self._context.time_remaining()
        return own if client is None else min(client, own)

    def limit_passed(self) -> bool:
        """Has the server's limit (not the client's deadline) run out, or nearly (DEADLINE_SLACK)?"""
        return self._end - time.monotonic() <= DEADLINE_SLACK

    def __getattr__(self, name: str) -> Any:   # the rest is the call's own
        return getattr(self._context, name)


class Admission:
    """Counts the calls in progress; refuses one past the limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.active = 0
        self._lock = threading.Lock()

    def enter(self) -> bool:
        with self._lock:
            if self.active >= self.limit:
                return False
            self.active += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self.active -= 1


class Slot:
    """One admitted call; released once, by the handler or by the call's end."""

    def __init__(self, admission: Admission) -> None:
        self._admission = admission
        self._lock = threading.Lock()
        self._held = True

    def release(self) -> None:
        with self._lock:
            if not self._held:
                return
            self._held = False
        self._admission.leave()
