"""Start-up of the gRPC service: flags, health, reflection, TLS, token, signals.

`malilla-dd serve` (or `python -m server`) runs `serve()`; tests and embedding
programs call `start(Config(...))` and get a `Running` server back.
"""
from __future__ import annotations

import argparse
import logging
import signal
import ssl
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from solver import __version__
from solver.failures import ArgumentParser, parse, settle_stdout
from solver.quoting import counted
from solver.solve import NO_LIMIT

from ._proto import SERVICE_NAME, pb_grpc
from .config import EXTRA_CALLS, Config, add_arguments, config_from_args
from .interceptors import AccessLog, AnswerSize, BearerToken, Interceptor, MessageCheck, OpenStreams
from .service import DoubleDummyService

__all__ = ["Running", "start", "serve", "main", "EXTRA_CALLS", "OPEN_STREAMS"]

log = logging.getLogger("malilla_dd.server")

OPEN_STREAMS = 4
"""Health `Watch` and reflection streams at once (`interceptors.LONG_STREAMS`); each holds a
handler thread, and they have places of their own beyond EXTRA_CALLS."""

HEALTH_SERVICE = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name


class Running:
    """A started server. `stop()` turns health to NOT_SERVING, serves on through the drain,
    stops accepting calls, lets the calls in flight finish within the grace period, then frees
    the workers."""

    def __init__(self, server: grpc.Server, service: DoubleDummyService, health: health.HealthServicer,
                 open_streams: OpenStreams, config: Config, port: int, pools: list[ThreadPoolExecutor]) -> None:
        self.server = server
        self.service = service
        self.open_streams = open_streams
        self.health = health
        self.config = config
        self.port = port
        self._pools = pools
        self._stopped = threading.Event()
        self._drained = threading.Event()
        self._lock = threading.Lock()
        self._stopping = False
        self._grace = NO_LIMIT   # the shortest asked for

    @property
    def address(self) -> str:
        host = self.config.host
        return f"[{host}]:{self.port}" if ":" in host else f"{host}:{self.port}"

    def stop(self, grace: float | None = None, drain: float = 0.0) -> None:
        """Graceful stop: health NOT_SERVING at once (open watches see it and end, reflection
        streams are cancelled), calls served on for `drain` seconds, so that load balancers
        see it before calls are refused, then no new calls and `grace` seconds (the configured
        grace by default) for the calls in flight. A second call while stopping ends the drain
        and shortens the grace to its own."""
        # a longer wait would overflow the clock (as a timeout would); 30 years is as long
        grace = min(self.config.grace if grace is None else grace, NO_LIMIT)
        with self._lock:
            first = not self._stopping
            self._stopping = True
            self._grace = grace = min(self._grace, grace)
        if not first:
            self._drained.set()
            self.service.stop_calls(grace)
            self.server.stop(grace)
            return
        for watched in self.open_streams.close():   # the answer that ends each open watch
            self.health.set(watched, health_pb2.HealthCheckResponse.NOT_SERVING)
        self.health.enter_graceful_shutdown()   # every service NOT_SERVING, for good
        if drain > 0:
            log.info("draining: health NOT_SERVING, calls still served for %.1f s", drain)
            self._drained.wait(min(drain, NO_LIMIT))
            with self._lock:
                grace = self._grace
        self.service.stop_calls(grace)
        log.info("stopping: no new calls; %.1f s for the calls in flight", grace)
        self.server.stop(grace).wait()
        self.service.close()

        def close_pools() -> None:
            for pool in self._pools:
                pool.shutdown(wait=True, cancel_futures=True)

        closing = threading.Thread(target=close_pools, daemon=True)
        closing.start()
        closing.join(2.0)   # the handlers of cancelled calls return at once (their access log lines come first)
        self._stopped.set()
        log.info("stopped")

    def wait(self, timeout: float | None = None) -> bool:
        """Block until `stop()` has finished."""
        return self._stopped.wait(timeout)

    def __enter__(self) -> Running:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop(0)


def _tls_credentials(config: Config) -> grpc.ServerCredentials | None:
    """The TLS files read and checked before anything starts (gRPC itself would only
    report a failed bind), or None to serve plaintext."""
    if config.tls_cert is None or config.tls_key is None:   # a Config has both or neither
        return None
    try:
        key = Path(config.tls_key).read_bytes()
        chain = Path(config.tls_cert).read_bytes()
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(config.tls_cert, config.tls_key)
    except ssl.SSLError as e:
        if e.reason == "KEY_VALUES_MISMATCH":
            raise OSError(f"tls: the key {config.tls_key} does not belong to the certificate {config.tls_cert}") \
                from None
        raise OSError(f"tls: {config.tls_cert} and {config.tls_key} are not a PEM certificate chain "
                      "and its private key") from None
    except OSError as e:
        raise OSError(f"tls: cannot read {e.filename}: {e.strerror}") from None
    return grpc.ssl_server_credentials([(key, chain)])


def start(config: Config) -> Running:
    """Build and start the server described by `config` (port 0 picks a free port)."""
    credentials = _tls_credentials(config)
    service = DoubleDummyService(config.workers, config.memory, config.concurrency, config.threads,
                                 config.max_call_seconds)
    calls = config.concurrency + EXTRA_CALLS + OPEN_STREAMS
    handlers = ThreadPoolExecutor(max_workers=calls, thread_name_prefix="dd-rpc")
    health_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dd-health")
    open_streams = OpenStreams(OPEN_STREAMS)
    methods = f"/{SERVICE_NAME}/"
    interceptors: list[Interceptor] = [AccessLog(service.past_grace), AnswerSize(config.max_message, methods),
                                       open_streams]
    if config.token:
        interceptors.append(BearerToken(config.token))
    interceptors.append(MessageCheck(methods))
    server = grpc.server(
        handlers,
        interceptors=interceptors,
        options=[
            ("grpc.max_receive_message_length", config.max_message),
            ("grpc.max_send_message_length", -1),   # the service's answers: AnswerSize
            ("grpc.so_reuseport", 0),   # a second server on a busy port fails instead of sharing it
        ],
        maximum_concurrent_rpcs=calls,
    )
    pb_grpc.add_DoubleDummyServicer_to_server(service, server)
    health_servicer = health.HealthServicer(experimental_non_blocking=True,
                                            experimental_thread_pool=health_pool)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((SERVICE_NAME, HEALTH_SERVICE, reflection.SERVICE_NAME), server)
    try:
        if credentials is not None:
            port = server.add_secure_port(config.address, credentials)
        else:
            port = server.add_insecure_port(config.address)
    except RuntimeError as e:
        service.close()
        raise OSError(f"cannot listen on {config.address}: {e}") from None
    if port == 0:   # older gRPC reports a failed bind this way
        service.close()
        raise OSError(f"cannot listen on {config.address}")
    server.start()
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    running = Running(server, service, health_servicer, open_streams, config, port, [handlers, health_pool])
    log.info("malilla-dd %s serving %s on %s: %s of %s, %d MiB table each, at most %d calls "
             "at once, %s, messages up to %d bytes, TLS %s, token %s", __version__, SERVICE_NAME, running.address,
             counted(config.workers, "worker"), counted(config.threads, "thread"), config.memory >> 20,
             config.concurrency,
             f"each for {config.max_call_seconds:g} s at most" if config.max_call_seconds else "no time limit",
             config.max_message, "on" if config.tls_cert else "off", "on" if config.token else "off")
    return running


def serve(config: Config) -> int:
    """Run until SIGTERM or SIGINT, then stop gracefully; returns the exit status."""
    logging.basicConfig(level=config.log_level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        running = start(config)
    except (OSError, ValueError) as e:
        print(f"malilla-dd serve: {e}", file=sys.stderr)
        return 1
    try:
        print(f"malilla-dd: serving {SERVICE_NAME} on {running.address}", flush=True)
    except OSError:   # standard output's reader has gone: the service is for its clients
        settle_stdout()
    requested = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        if requested.is_set():   # a second signal: no more grace
            log.warning("%s again: cancelling the calls in flight", signal.Signals(signum).name)
            running.stop(0)
            return
        log.info("%s received", signal.Signals(signum).name)
        requested.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        while not requested.wait(1.0):
            pass
        running.stop(drain=config.drain)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="python -m server", description="The malilla-dd gRPC service.")
    add_arguments(parser)
    return parser


def run_args(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        config = config_from_args(args)
    except ValueError as e:
        parser.error(str(e))
    return serve(config)


def main(argv: list[str] | None = None) -> int:
    """`python -m server` (as `malilla-dd serve`): serve until stopped; the exit status."""
    parser = build_parser()
    return run_args(parse(parser, argv), parser)
