"""Server interceptors: the access log, answers over the message limit, the bearer token, the
open streams' limit, and requests that are not messages."""
from __future__ import annotations

import contextlib
import hmac
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf.message import DecodeError

from .errors import BadRequest

__all__ = ["AccessLog", "AnswerSize", "BearerToken", "OpenStreams", "MessageCheck", "Undecodable", "Interceptor",
           "OPEN_METHODS", "LONG_STREAMS"]

access_log = logging.getLogger("malilla_dd.access")

if TYPE_CHECKING:   # the stubs make these generic; grpc's own classes take no arguments
    Handler = grpc.RpcMethodHandler[Any, Any]
    Interceptor = grpc.ServerInterceptor[Any, Any]
    Behavior = Callable[..., Any]   # a method's: the request (or request iterator) and context in
    Continuation = Callable[[grpc.HandlerCallDetails], Handler | None]
else:
    Interceptor = grpc.ServerInterceptor

OPEN_METHODS = ("/grpc.health.v1.Health/",)
"""Method prefixes that need no token: load balancers and orchestrators probe health without one."""

LONG_STREAMS = ("/grpc.health.v1.Health/", "/grpc.reflection.")
"""Method prefixes whose streams stay open for as long as their client likes, outside the service's
own limit on calls: the health `Watch` and server reflection."""


def _wrap(handler: Handler, wrap_unary: Behavior, wrap_stream: Behavior,
          request_deserializer: Callable[[bytes], Any] | None = None) -> Handler:
    """The same handler with its behaviour wrapped (unary or streaming response), and with
    `request_deserializer` in place of its own if given."""
    kind = ("stream" if handler.request_streaming else "unary") + "_" + \
           ("stream" if handler.response_streaming else "unary")
    behavior = getattr(handler, kind)
    wrapped = wrap_stream(behavior) if handler.response_streaming else wrap_unary(behavior)
    make: Callable[..., Handler] = getattr(grpc, f"{kind}_rpc_method_handler")
    return make(wrapped, request_deserializer=request_deserializer or handler.request_deserializer,
                response_serializer=handler.response_serializer)


class _Made:
    """Wrapped handlers built once per method and handler. Past 1024 (only a server whose
    handlers are made per call gets there) the cache starts over."""

    def __init__(self) -> None:
        self._handlers: dict[tuple[str, int], Handler] = {}

    def get(self, details: grpc.HandlerCallDetails, handler: Handler,
            make: Callable[[], Handler]) -> Handler:
        key = (details.method, id(handler))
        made = self._handlers.get(key)
        if made is None:
            if len(self._handlers) > 1024:
                self._handlers.clear()
            made = self._handlers[key] = make()
        return made


class AccessLog(Interceptor):
    """One log line per call (INFO): method, status code, latency in milliseconds, peer; and
    one at its start (DEBUG). A call that ends under its handler is logged as its client
    sees it: DEADLINE_EXCEEDED past its deadline, UNAVAILABLE once `past_grace()` (the
    server's stop has cut it), else CANCELLED. The one exception: a stream that gRPC ends
    for a message over the size limit is RESOURCE_EXHAUSTED to its client, but its handler
    only sees the stream fail, as when its client cancels it, so it is logged as CANCELLED."""

    def __init__(self, past_grace: Callable[[], bool]) -> None:
        self._made = _Made()
        self._past_grace = past_grace

    def intercept_service(self, continuation: Continuation, details: grpc.HandlerCallDetails) -> Handler | None:
        handler = continuation(details)
        if handler is None:
            return None
        return self._made.get(details, handler, lambda: self._wrap(details.method, handler))

    def _wrap(self, method: str, handler: Handler) -> Handler:
        def record(context: grpc.ServicerContext, start: float, error: BaseException | None) -> None:
            if not access_log.isEnabledFor(logging.INFO):
                return
            code = context.code()  # type: ignore[attr-defined]  # in grpc since 1.38, not in grpc-stubs
            if code is None and not context.is_active():   # the call ended under the handler
                left = context.time_remaining()
                if left is not None and left <= 0:
                    code = grpc.StatusCode.DEADLINE_EXCEEDED
                elif self._past_grace():
                    code = grpc.StatusCode.UNAVAILABLE
                else:
                    code = grpc.StatusCode.CANCELLED
            if code is None:
                code = grpc.StatusCode.OK if error is None else grpc.StatusCode.UNKNOWN
            name = code.name if isinstance(code, grpc.StatusCode) else str(code)
            access_log.info("method=%s status=%s latency_ms=%.1f peer=%s", method, name,
                            (time.perf_counter() - start) * 1000, context.peer())

        @contextlib.contextmanager
        def logged(context: grpc.ServicerContext) -> Iterator[None]:
            """Log the call's start and, however it ends, its status and latency."""
            if access_log.isEnabledFor(logging.DEBUG):
                access_log.debug("method=%s started peer=%s", method, context.peer())
            start = time.perf_counter()
            error = None
            try:
                yield
            except BaseException as e:
                error = e
                raise
            finally:
                record(context, start, error)

        def unary(behavior: Behavior) -> Behavior:
            def run(request: Any, context: grpc.ServicerContext) -> Any:
                with logged(context):
                    return behavior(request, context)
            return run

        def stream(behavior: Behavior) -> Behavior:
            def run(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                with logged(context):
                    yield from behavior(request, context)
            return run

        return _wrap(handler, unary, stream)


class AnswerSize(Interceptor):
    """An answer of the methods under `methods` over the server's message limit ends its call
    with RESOURCE_EXHAUSTED, naming its size and the limit. It is the server's only limit on
    answers: gRPC's own would refuse them only after the handler has returned (so the access
    log would record the call as OK), and would refuse reflection's answers, a few KiB, under
    a small limit."""

    def __init__(self, limit: int, methods: str) -> None:
        self.limit = limit
        self._methods = methods
        self._made = _Made()

    def intercept_service(self, continuation: Continuation, details: grpc.HandlerCallDetails) -> Handler | None:
        handler = continuation(details)
        if handler is None or not details.method.startswith(self._methods):
            return handler
        return self._made.get(details, handler, lambda: _wrap(handler, self._unary, self._stream))

    def _checked(self, answer: Any, context: grpc.ServicerContext) -> Any:
        size = answer.ByteSize()
        if size > self.limit:
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                          f"the answer is {size} bytes, over the server's message limit of {self.limit}")
        return answer

    def _unary(self, behavior: Behavior) -> Behavior:
        return lambda request, context: self._checked(behavior(request, context), context)

    def _stream(self, behavior: Behavior) -> Behavior:
        def run(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            for answer in behavior(request, context):
                yield self._checked(answer, context)
        return run


class BearerToken(Interceptor):
    """Every call but health checks needs ``authorization: Bearer <token>`` metadata."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("token: empty")
        self._expected = token.encode()
        self._refusals = _Made()

    def _allowed(self, details: grpc.HandlerCallDetails) -> bool:
        if details.method.startswith(OPEN_METHODS):
            return True
        for key, value in details.invocation_metadata or ():
            if key == "authorization":
                given = value.encode() if isinstance(value, str) else value
                scheme, _, credentials = given.partition(b" ")
                # the scheme's case does not matter (RFC 9110), the token's does
                return scheme.lower() == b"bearer" and hmac.compare_digest(credentials, self._expected)
        return False

    def intercept_service(self, continuation: Continuation, details: grpc.HandlerCallDetails) -> Handler | None:
        handler = continuation(details)
        if handler is None or self._allowed(details):
            return handler
        return self._refusals.get(details, handler, lambda: _wrap(handler, self._refuse_unary, self._refuse_stream))

    @staticmethod
    def _refuse(context: grpc.ServicerContext) -> None:
        context.abort(grpc.StatusCode.UNAUTHENTICATED,
                      "missing or wrong bearer token (metadata 'authorization: Bearer <token>')")

    @classmethod
    def _refuse_unary(cls, behavior: Behavior) -> Behavior:
        return lambda request, context: cls._refuse(context)

    @classmethod
    def _refuse_stream(cls, behavior: Behavior) -> Behavior:
        def run(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            cls._refuse(context)
            yield  # pragma: no cover - _refuse() raises
        return run


class OpenStreams(Interceptor):
    """At most `limit` streams at once of the methods under LONG_STREAMS (the health `Watch`,
    which needs no token, and reflection): one more is refused with RESOURCE_EXHAUSTED, so that
    streams left open cannot take the places of gRPC's own call limit from the calls of the
    service and from health checks. `close()` ends them when the server stops."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._closing = threading.Event()
        # each open stream's context: the service its watch asks about, or None for a stream of requests
        self._open: dict[grpc.ServicerContext, str | None] = {}
        self._lock = threading.Lock()
        self._made = _Made()

    def intercept_service(self, continuation: Continuation, details: grpc.HandlerCallDetails) -> Handler | None:
        handler = continuation(details)
        if handler is None or not handler.response_streaming or not details.method.startswith(LONG_STREAMS):
            return handler
        return self._made.get(details, handler, lambda: _wrap(
            handler, lambda unary: unary, lambda stream: self._limited(stream, handler.request_streaming)))

    def close(self) -> set[str]:
        """The server begins to stop: a watch ends after its next answer, and the services the
        open watches ask about are returned, to be set NOT_SERVING (that answer); a stream of
        requests (reflection), which may wait for its client for ever, is cancelled now, and a
        new one is refused."""
        with self._lock:
            self._closing.set()
            open_streams = dict(self._open)
        for context, watched in open_streams.items():
            if watched is None:
                context.cancel()
        return {watched for watched in open_streams.values() if watched is not None}

    def _limited(self, behavior: Behavior, requests: bool) -> Behavior:
        """`behavior` limited; `requests`: it reads a stream of requests (reflection), else one (a watch)."""
        def run(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            watched = None if requests else getattr(request, "service", "")   # not an `Undecodable`'s
            with self._lock:
                closed = self._closing.is_set() and watched is None
                admitted = not closed and len(self._open) < self.limit
                if admitted:
                    self._open[context] = watched
            if closed:
                context.abort(grpc.StatusCode.UNAVAILABLE, "the server is stopping")
            if not admitted:
                context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                              f"{self.limit} health watch and reflection streams are open, the server's limit: "
                              "retry later")
            try:
                for answer in behavior(request, context):
                    yield answer
                    if self._closing.is_set():
                        return
            finally:
                with self._lock:
                    del self._open[context]
        return run


@dataclass(frozen=True)
class Undecodable:
    """A request (or a request stream's item) whose bytes are not a message of its type."""

    problem: str


class MessageCheck(Interceptor):
    """Bytes that are not a request message are the caller's error, INVALID_ARGUMENT with a
    field violation of the request as a whole (field ""), rather than
    the INTERNAL that gRPC gives a deserializer's exception (which, in a request stream, can
    leave the call so that the server never finishes stopping). A call with one request is
    refused before its handler. The request streams of the methods under `streams`, whose
    handlers know `Undecodable`, get such an item as one, to answer in its turn; any other
    request stream ends there with INVALID_ARGUMENT. Put it last among the interceptors, so that
    the others wrap its handlers."""

    def __init__(self, streams: str) -> None:
        self._streams = streams
        self._made = _Made()

    def intercept_service(self, continuation: Continuation, details: grpc.HandlerCallDetails) -> Handler | None:
        handler = continuation(details)
        # no handler, or bytes as they came: nothing to check
        if handler is None or handler.request_deserializer is None:
            return handler
        parse = handler.request_deserializer
        return self._made.get(details, handler,
                              lambda: self._check(handler, parse, details.method.startswith(self._streams)))

    @staticmethod
    def _check(handler: Handler, parse: Callable[[bytes], Any],
               items_known: bool) -> Handler:
        name = getattr(getattr(parse, "__self__", None), "__name__", "request")
        article = "an" if name[0] in "AEIOU" else "a"

        def deserialize(data: bytes) -> Any:
            try:
                return parse(data)
            except DecodeError as e:
                return Undecodable(f"not {article} {name} message ({e})")

        if handler.request_streaming and items_known:
            return _wrap(handler, lambda unary: unary, lambda stream: stream, deserialize)

        def one(request: Any, context: grpc.ServicerContext) -> Any:
            if isinstance(request, Undecodable):
                context.abort_with_status(BadRequest([("", request.problem)]).status())
            return request

        def refuse(request: Any, context: grpc.ServicerContext) -> Any:
            """The request, or the request stream, with no `Undecodable` in it."""
            return (one(item, context) for item in request) if handler.request_streaming else one(request, context)

        def unary(behavior: Behavior) -> Behavior:
            return lambda request, context: behavior(refuse(request, context), context)

        def stream(behavior: Behavior) -> Behavior:
            def run(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                yield from behavior(refuse(request, context), context)
            return run

        return _wrap(handler, unary, stream, deserialize)
