"""The Dask cluster a batch run works on: an embedded one, or a client of a scheduler at an address,
and Ctrl-C and Dask's logs kept in order around them."""
from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # Dask is imported only when a batch runs
    import distributed

__all__ = ["CONNECT_SECONDS", "MAX_WORKERS", "WORKERS_PER_CORE", "client_at", "local_workers", "local_cluster",
           "HeldCtrlC", "dask_logs_silenced", "dask_setup"]

WORKERS_PER_CORE = 4
MAX_WORKERS = WORKERS_PER_CORE * (os.cpu_count() or 1)
"""The most workers of an embedded cluster."""

CONNECT_SECONDS = 30
"""How long a scheduler at `--address` has to take a client."""


def client_at(address: str) -> distributed.Client:
    """A client of the Dask scheduler at `address`, or ValueError naming the address when none
    takes it within CONNECT_SECONDS: a peer that is no scheduler can leave Dask's own connection
    waiting for ever, or failing on the bytes it sends, so the client is made in a thread of its own."""
    from distributed import Client

    made: dict[str, distributed.Client | Exception] = {}

    def connect() -> None:
        try:
            made["client"] = Client(address, timeout=CONNECT_SECONDS)
        except Exception as e:   # whatever a peer that is no scheduler makes Dask raise
            made["error"] = e

    thread = threading.Thread(target=connect, name="dask-connect", daemon=True)
    thread.start()
    thread.join(CONNECT_SECONDS + 5)
    client = made.get("client")
    if isinstance(client, Client):
        return client
    problem = f"{type(made['error']).__name__}: {made['error']}" if "error" in made else \
        f"no answer within {CONNECT_SECONDS} s"
    raise ValueError(f"address: {address} is no Dask scheduler that takes a client ({problem})")


def local_workers(workers: int | None = None) -> int:
    """The worker processes of an embedded cluster: `workers`, by default one per core."""
    return workers or os.cpu_count() or 1


def local_cluster(workers: int | None = None) -> distributed.LocalCluster:
    """An embedded Dask cluster: `workers` processes (default one per core), one thread each, with
    no memory limit of Dask's (each search's table is bounded by its own option). Its
    scheduler's HTTP routes take a free port, not Dask's fixed one, which another cluster on this
    machine may hold. A Ctrl-C while the workers start is held until they have, since Dask cannot
    close a cluster half started; the cluster is then closed and KeyboardInterrupt raised. Its
    workers ignore Ctrl-C (`dask_setup`)."""
    from distributed import LocalCluster

    with HeldCtrlC() as ctrl_c:
        cluster = LocalCluster(n_workers=local_workers(workers), threads_per_worker=1, processes=True,
                               dashboard_address=":0", memory_limit=0, silence_logs=40,
                               preload=[__name__])
    if ctrl_c.held:
        cluster.close()
        raise KeyboardInterrupt
    return cluster


class HeldCtrlC:
    """Within it, a Ctrl-C is held (`held`) rather than raised in the middle of Dask's work,
    which Dask cannot cut cleanly (a cluster half started; a blocking call into its event loop,
    cut there, logs a failed callback); only while `next_done` waits for a finished chunk is it
    raised at once, and one held before is raised there. It acts only where a Ctrl-C raises
    KeyboardInterrupt: in the main thread, under Python's own handler (a program's own handler
    is left in place)."""

    def __init__(self) -> None:
        self.held = self.waiting = False
        self.active = (threading.current_thread() is threading.main_thread()
                       and signal.getsignal(signal.SIGINT) is signal.default_int_handler)

    def __enter__(self) -> HeldCtrlC:
        if self.active:
            signal.signal(signal.SIGINT, self._pressed)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.active:
            signal.signal(signal.SIGINT, signal.default_int_handler)

    def _pressed(self, *_: object) -> None:
        if self.waiting:
            raise KeyboardInterrupt
        self.held = True

    def next_done(self, running: Iterator[Any]) -> Any:
        """The next finished future of `running`, or None when there is none left."""
        self.waiting = True
        try:
            if self.held:
                raise KeyboardInterrupt
            return next(running, None)
        finally:
            self.waiting = False


@contextlib.contextmanager
def dask_logs_silenced() -> Iterator[None]:
    """Dask's loggers in this process, where an embedded cluster's scheduler runs, say nothing
    meanwhile (a gather that a Ctrl-C cut short is logged as an error)."""
    loggers = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)
               if name == "distributed" or name.startswith("distributed.")]
    was = [logger.disabled for logger in loggers]
    for logger in loggers:
        logger.disabled = True
    try:
        yield
    finally:
        for logger, disabled in zip(loggers, was):
            logger.disabled = disabled


def dask_setup(worker: Any) -> None:
    """Dask's preload hook, run as each embedded worker process starts: a Ctrl-C at the terminal
    reaches the whole process group, and the batch itself stops and closes the cluster, so its
    workers ignore it rather than each print a KeyboardInterrupt traceback."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
