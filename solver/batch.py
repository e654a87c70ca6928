"""Batch runs on a Dask `distributed` cluster: `solve`, `table`, `analyze`, `puzzles` over many deals.

Items come from a JSON-lines file (item ``i`` is its i-th non-blank line) or
from a generated stream (``generated_item(job, game, seed, i)``: deal ``i`` of
the seed; `analyze` and `puzzles` get a whole deal of random legal play).
Items are sent in chunks; each worker process keeps one `Solver` (created on
first use, so its transposition table's memory serves every later task; a
task of another deal starts it empty) and searches with the GIL released.
Every output line is
``{"index": i, "position": <the item>, ...the job's result...}`` where the
result is what the single-machine command prints for the item (`solve`: its
``value``, ``values``, ...; `table`: the table JSON; `analyze`: the analysis
JSON; `puzzles`: ``{"puzzles": [...]}``, the puzzles mined at the item's trick
boundaries), or ``{"error": ...}``.

Resuming: the output file is read first; the indices of its complete lines are
skipped and a trailing partial line is cut off. Its lines must be of the same run, and
for an input file, of the same items at those indices. A chunk's lines are written in
one write and flushed, and the writer drops any index already written, so a
task retried after a worker died never writes a line twice.
"""
from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import os
import random
import signal
import sys
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from .checks import check_whole
from .failures import writing
from .jsonlines import blank_line, count_lines, input_lines, json_object, without_surrogates
from .position import Position, read_dealer
from .profiles import get_profile
from .puzzles import MARGIN, MAX_TRICKS, MIN_TRICKS
from .quoting import quoted
from .solve import DEFAULT_MEMORY, SearchStopped, Solver

if TYPE_CHECKING:   # Dask is imported only when a batch runs
    import distributed

__all__ = ["JOBS", "run_job", "run_chunk", "generated_item", "read_done", "run_batch", "BatchStats",
           "local_cluster", "prepare_worker"]

JOBS = ("solve", "table", "analyze", "puzzles")

# ------------------------------------------------------------ worker side

_solver: Solver | None = None
_solver_memory = 0


def worker_solver(memory: int = DEFAULT_MEMORY) -> Solver:
    """This process's solver: made on first use and kept, so its table's memory serves every later task."""
    global _solver, _solver_memory
    if _solver is None or _solver_memory != memory:
        _solver, _solver_memory = Solver(memory), memory
    return _solver


def prepare_worker(memory: int = DEFAULT_MEMORY) -> int:
    """Make this worker's solver now (`client.run(prepare_worker)`); returns its table bytes."""
    return worker_solver(memory).memory


def run_job(job: str, item: dict[str, Any], solver: Solver, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The result of one item, as the single-machine command prints it."""
    options = options or {}
    timeout = options.get("timeout")
    if job == "solve":
        run = run_of(job, options)   # the options with their defaults
        return solver.solve(item, mode=run["mode"], objective=run["objective"], target=run.get("target"),
                            timeout=timeout).to_json()
    if job == "table":
        from .table import table_of
        return table_of(item, solver, timeout, options.get("trumps")).to_json()
    if job == "analyze":
        from .analysis import analyze
        return analyze(item, solver, timeout=timeout, objective=options.get("objective", "points")).to_json()
    if job == "puzzles":
        from .puzzles import mine
        return {"puzzles": [p.to_json() for p in mine(item, *_puzzle_options(options), solver)]}
    raise ValueError(f"job: {quoted(job)} is not one of {', '.join(JOBS)}")


def _puzzle_options(options: dict[str, Any]) -> tuple[int, int, int]:
    """The puzzles job's min_tricks, max_tricks and margin."""
    return options.get("min_tricks", MIN_TRICKS), options.get("max_tricks", MAX_TRICKS), options.get("margin", MARGIN)


def run_of(job: str, options: dict[str, Any], generate: tuple[str, int] | None = None) -> dict[str, Any]:
    """What decides a run's answers, kept on each output line: the job, its options (solve's
    mode, objective and target, the table's trumps, analyze's objective when not points, the puzzles'
    trick range and margin) and the
    generated stream."""
    run: dict[str, Any] = {"job": job}
    if job == "solve":
        run.update(mode=options.get("mode", "all"), objective=options.get("objective", "points"))
        if options.get("target") is not None:
            run["target"] = options["target"]
    elif job == "table":
        if options.get("trumps") is not None:
            run["trumps"] = list(options["trumps"])
    elif job == "analyze":
        if options.get("objective", "points") != "points":
            run["objective"] = options["objective"]
    elif job == "puzzles":
        run.update(zip(("min_tricks", "max_tricks", "margin"), _puzzle_options(options)))
    if generate is not None:
        run.update(game=generate[0], seed=generate[1])
    return run


def generated_item(job: str, game: str, seed: int, index: int) -> dict[str, Any]:
    """Item `index` of the generated stream of `seed`: the start of a deal (a random dealer);
    for `analyze` and `puzzles`, with a whole deal of random legal play in ``play``."""
    from .deal import deal, random_play
    rng = random.Random(f"malilla-dd batch {game} {seed} {index}")
    d = deal(get_profile(game), rng.randrange(1 << 31), dealer=rng.randrange(4))
    if job not in ("analyze", "puzzles"):
        return d.to_position_json()
    item = d.to_deal_json()
    item["play"] = random_play(Position.from_json(item), rng)
    return item


def run_chunk(job: str, items: list[tuple[int, Any]], options: dict[str, Any],
              generate: tuple[str, int] | None = None) -> list[tuple[int, str]]:
    """A task: each (index, item) to its output line (JSON text without newline).

    With `generate` = (game, seed) the items are indices only and are dealt here.
    """
    solver = worker_solver(options.get("memory", DEFAULT_MEMORY))
    run = run_of(job, options, generate)
    out = []
    for index, item in items:
        line: dict[str, Any] = {"index": index, "run": run}
        try:
            if generate is not None:
                item = generated_item(job, generate[0], generate[1], index)
            else:
                item = dict(json_object(item))
            line["position"] = item
            line.update(run_job(job, item, solver, options))
        except (ValueError, SearchStopped) as e:
            line.setdefault("position", _as_text(item))
            line["error"] = str(e)
        out.append((index, json.dumps(line)))
    return out


# ------------------------------------------------------------ output and resuming


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


CONNECT_SECONDS = 30
"""How long a scheduler at `--address` has to take a client."""


def _client_at(address: str) -> distributed.Client:
    """A client of the Dask scheduler at `address`, or ValueError naming the address when none
    takes it within CONNECT_SECONDS: a peer that is no scheduler can leave Dask's own connection
    waiting for ever, or failing on the bytes it sends, so the client is made in a thread of its own."""
    from distributed import Client

    made: dict[str, Any] = {}

    def connect() -> None:
        try:
            made["client"] = Client(address, timeout=CONNECT_SECONDS)
        except Exception as e:   # whatever a peer that is no scheduler makes Dask raise
            made["error"] = e

    thread = threading.Thread(target=connect, name="dask-connect", daemon=True)
    thread.start()
    thread.join(CONNECT_SECONDS + 5)
    if "client" in made:
        return made["client"]
    problem = f"{type(made['error']).__name__}: {made['error']}" if "error" in made else \
        f"no answer within {CONNECT_SECONDS} s"
    raise ValueError(f"address: {address} is no Dask scheduler that takes a client ({problem})")


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


class BatchStats:
    """Aggregates of a run's results: per game and trump, the distribution of the dealer's side's
    double-dummy deal score, the dealer's side's win rate, and the par choices (from `table`);
    the dealer's side's double-dummy points (from `solve` of deal starts that name their dealer)."""

    def __init__(self) -> None:
        self.items = 0
        self.errors = 0
        self.scores: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
        self.wins: dict[str, Counter] = defaultdict(Counter)
        self.par: dict[str, Counter] = defaultdict(Counter)
        self.points: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))

    def add(self, job: str, line: dict[str, Any]) -> None:
        self.items += 1
        if "error" in line:
            self.errors += 1
            return
        position = line.get("position") or {}
        game = str(position.get("game", "?")).lower()   # answered, so a game's name in some case
        if job == "table":
            for par in line.get("par", []):
                for choice in par["choices"]:
                    self.scores[game][choice["trump"]][choice["dealer_score"]] += 1
                    if choice["trump"] == line.get("trump"):
                        self._win(game, "deal_trump", choice["dealer_score"])
                if par["names_trump"]:
                    self._win(game, "par", par["score"])
                    self.par[game]["/".join(par["best"])] += 1
        elif job == "solve" and line.get("run", {}).get("objective") == "points" and "value" in line:
            start = _dealt_start(position)
            if start is not None:   # the dealer sits before the leader: the other side
                self.points[start.profile.name][start.trump][start.profile.total_points - line["value"]] += 1

    def _win(self, game: str, key: str, score: int) -> None:
        self.wins[game][key + "_deals"] += 1
        self.wins[game][key + "_wins"] += score > 0
        self.wins[game][key + "_ties"] += score == 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"items": self.items, "errors": self.errors}
        if self.scores:
            out["deal_scores"] = {g: {t: _dist(c) for t, c in sorted(by.items())} for g, by in self.scores.items()}
        if self.wins:
            rates: dict[str, dict[str, dict[str, Any]]] = {}
            for g, w in self.wins.items():
                rates[g] = {}
                for key in ("deal_trump", "par"):
                    n = w[key + "_deals"]
                    if n:
                        rates[g][key] = {"deals": n, "win_rate": round(w[key + "_wins"] / n, 4),
                                         "tie_rate": round(w[key + "_ties"] / n, 4)}
            out["dealer_side"] = rates
        if self.par:
            out["par_choices"] = {g: dict(c.most_common()) for g, c in self.par.items()}
        if self.points:
            out["dealer_side_points"] = {g: {t: _dist(c) for t, c in sorted(by.items())}
                                         for g, by in self.points.items()}
        return out

    def format(self) -> str:
        return json.dumps(self.to_json(), indent=1)


def _dealt_start(position: dict[str, Any]) -> Position | None:
    """`position` read, if it is the start of a deal (no card played) with its `dealer`, the seat
    before the leader; else None."""
    try:
        start = Position.from_json(position)
        dealt = start.played_field is None and read_dealer(position.get("dealer"), start.leader,
                                                            start.profile) is not None
    except ValueError:
        return None
    return start if dealt else None


def _dist(counter: Counter) -> dict[str, Any]:
    n = sum(counter.values())
    mean = sum(k * v for k, v in counter.items()) / n if n else 0.0
    return {"deals": n, "mean": round(mean, 3), "counts": {str(k): counter[k] for k in sorted(counter)}}


# ------------------------------------------------------------ the driver


WORKERS_PER_CORE = 4
MAX_WORKERS = WORKERS_PER_CORE * (os.cpu_count() or 1)
"""The most workers of an embedded cluster."""
MAX_CHUNK = 10_000
"""The most items of one task."""


def local_cluster(workers: int | None = None, memory_limit: str | int = 0) -> distributed.LocalCluster:
    """An embedded Dask cluster: `workers` processes (default one per core), one thread each. Its
    scheduler's HTTP routes take a free port, not Dask's fixed one, which another cluster on this
    machine may hold. A Ctrl-C while the workers start is held until they have, since Dask cannot
    close a cluster half started; the cluster is then closed and KeyboardInterrupt raised. Its
    workers ignore Ctrl-C (`dask_setup`)."""
    from distributed import LocalCluster

    with _HeldCtrlC() as ctrl_c:
        cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                               dashboard_address=":0", memory_limit=memory_limit, silence_logs=40,
                               preload=[__name__])
    if ctrl_c.held:
        cluster.close()
        raise KeyboardInterrupt
    return cluster


class _HeldCtrlC:
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

    def __enter__(self) -> _HeldCtrlC:
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


def _chunks(items: Iterable[tuple[int, Any]], size: int) -> Iterator[list[tuple[int, Any]]]:
    chunk: list[tuple[int, Any]] = []
    for pair in items:
        chunk.append(pair)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _file_items(stream: TextIO) -> Iterator[tuple[int, str]]:
    index = 0
    for line in input_lines(stream):
        if not blank_line(line):
            yield index, line
            index += 1


def _digest(item: Any) -> bytes:
    """A short digest of an output line's `position`: the item, or its text (without its line
    ending, which the input's last line may lack) when it is no JSON object."""
    if isinstance(item, str):
        item = item.rstrip("\r\n")
    return hashlib.blake2b(json.dumps(item, sort_keys=True).encode(), digest_size=16).digest()


def _unanswered(source: TextIO, answered: dict[int, bytes], out_path: str | None) -> Iterable[tuple[int, str]]:
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
            elif answered[i] != _digest(_position_of(line)):
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
        return _as_text(line)


def _as_text(item: Any) -> Any:
    """An input line kept in an output line, its undecodable bytes (read as lone surrogates) as
    U+FFFD: JSON text holds no lone surrogate. Anything else as it is."""
    return without_surrogates(item) if isinstance(item, str) else item


def _check_run(job: str, source: TextIO | None, game: str | None, deals: int | None, chunk: int,
               workers: int | None, *, cluster_given: bool, out_path: str | None) -> None:
    """Refuse a batch run's arguments that no item could be run with, naming the argument."""
    if job not in JOBS:
        raise ValueError(f"job: {quoted(job)} is not one of {', '.join(JOBS)}")
    if source is None and deals is None:
        raise ValueError("give an input file, or --deals N (with --game and --seed)")
    if source is not None and deals is not None:
        raise ValueError("give an input file or --deals N, not both")
    if deals is not None and game is None:
        raise ValueError("game: missing: the game of the generated deals")
    if deals is not None:
        check_whole("deals", deals, 1)
    check_whole("chunk", chunk, 1)
    if chunk > MAX_CHUNK:
        raise ValueError(f"chunk: {chunk:,} is more than {MAX_CHUNK:,} items (a chunk is built in memory, and "
                         "written only once it is done)")
    if workers is not None:
        check_whole("workers", workers, 1)
        if cluster_given:
            raise ValueError("workers: no effect with a cluster of its own (an address or a client)")
        if workers > MAX_WORKERS:
            raise ValueError(f"workers: {workers} is more than {MAX_WORKERS}, {WORKERS_PER_CORE} per core of this "
                             "machine (each worker is a process with its own table)")
    if out_path is not None and os.path.exists(out_path) and not os.path.isfile(out_path):
        raise ValueError(f"output: {out_path} is not a regular file (a batch run reads it to go on from it)")


def run_batch(job: str, out_path: str | None, *, client: distributed.Client | None = None,
              address: str | None = None, workers: int | None = None, source: TextIO | None = None,
              game: str | None = None,
              deals: int | None = None, seed: int = 0, chunk: int = 8, options: dict[str, Any] | None = None,
              progress: bool = False, stats: BatchStats | None = None, retries: int = 3,
              out: TextIO | None = None) -> dict[str, int]:
    """Run `job` over `source` (JSON lines) or `deals` generated deals of `game`, appending to `out_path`
    (or writing to `out`, standard output by default). Uses `client`, else a client of the
    cluster at `address`, else an embedded `local_cluster(workers)`.

    Returns {"done": lines written now, "skipped": finished before, "total": items}. `stats`
    aggregates every line of the output file, those of an earlier run included.
    """
    from distributed import Client, as_completed

    _check_run(job, source, game, deals, chunk, workers, cluster_given=client is not None or address is not None,
               out_path=out_path)
    options = dict(options or {})
    if job == "puzzles":
        from .puzzles import check_options
        check_options(*_puzzle_options(options), profile=None if game is None else get_profile(game))
        if options.get("timeout") is not None:
            raise ValueError("timeout: no effect with the puzzles job (its searches run to their end)")
    if options.get("trumps") is not None:
        if job != "table":
            raise ValueError(f"trumps: no effect with the {job} job")
        from .table import table_trumps
        options["trumps"] = table_trumps(options["trumps"], None if game is None else get_profile(game))
    generate: tuple[str, int] | None = None
    if source is None:
        assert game is not None   # checked above: generated deals are of a game
        generate = (get_profile(game).name, seed)
    answered: dict[int, bytes] = {}   # an input file's items answered before: their digests

    def on_line(line: dict[str, Any]) -> None:
        if source is not None:
            answered[int(line["index"])] = _digest(line.get("position"))
        if stats is not None:
            stats.add(job, line)
    done = read_done(out_path, on_line, run_of(job, options, generate)) if out_path else set()
    if source is None:
        assert deals is not None   # checked above: without an input file, the deals are generated
        total: int | None = deals
        pending: Iterable[tuple[int, Any]] = ((i, None) for i in range(deals) if i not in done)
    else:
        total = count_lines(source)
        pending = _unanswered(source, answered, out_path)
    skipped = len(done) if total is None else len([i for i in done if i < total])

    own_cluster = own_client = None
    if client is None:
        if address is None:
            own_cluster = local_cluster(workers)
            client = own_client = Client(own_cluster)
        else:
            client = own_client = _client_at(address)
    sink = open(out_path, "a", encoding="utf-8") if out_path else (out or sys.stdout)
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=None if total is None else total - skipped, unit="deal", file=sys.stderr,
                   dynamic_ncols=True, smoothing=0.1)
    written = 0
    interrupted = False
    try:
        nworkers = max(1, len(client.scheduler_info().get("workers", {})))
        window = max(4, 3 * nworkers)
        chunks = _chunks(pending, chunk)
        running = as_completed()
        for c in chunks:
            running.add(client.submit(run_chunk, job, c, options, generate, pure=False, retries=retries))
            if running.count() >= window:
                break
        with _HeldCtrlC() as ctrl_c:
            while (future := ctrl_c.next_done(running)) is not None:
                lines = [(i, text) for i, text in future.result() if i not in done]
                future.release()
                if lines:
                    with writing(out_path) if out_path else contextlib.nullcontext():
                        sink.write("".join(text + "\n" for _, text in lines))
                        sink.flush()
                    for i, text in lines:
                        done.add(i)
                        if stats is not None:
                            stats.add(job, json.loads(text))
                    written += len(lines)
                    if bar is not None:
                        bar.update(len(lines))
                more = next(chunks, None)
                if more is not None:
                    running.add(client.submit(run_chunk, job, more, options, generate, pure=False, retries=retries))
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        if bar is not None:
            bar.close()
        if out_path:
            sink.close()
        # after a Ctrl-C the work in flight is dropped: what the embedded scheduler says of that is noise
        with dask_logs_silenced() if interrupted and own_cluster is not None else contextlib.nullcontext():
            if own_client is not None:
                own_client.close()
            if own_cluster is not None:
                own_cluster.close()
    return {"done": written, "skipped": skipped, "total": total if total is not None else skipped + written}
