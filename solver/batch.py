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

Resuming: the output file is read first (`solver.resume`); the indices of its complete
lines are skipped and a trailing partial line is cut off. Its lines must be of the same run,
and for an input file, of the same items at those indices. A chunk's lines are written in
one write and flushed, and the writer drops any index already written, so a
task retried after a worker died never writes a line twice.

The cluster is an embedded one or the one at an address (`solver.cluster`); a run's
aggregates are `solver.batch_stats.BatchStats`.
"""
from __future__ import annotations

import contextlib
import json
import os
import random
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, TextIO

from .batch_stats import BatchStats
from .checks import check_whole
from .cluster import (MAX_WORKERS, WORKERS_PER_CORE, HeldCtrlC, client_at, dask_logs_silenced, local_cluster,
                      local_workers)
from .failures import writing
from .jsonlines import count_lines, json_object
from .position import Position
from .profiles import get_profile
from .puzzles import MARGIN, MAX_TRICKS, MIN_TRICKS
from .quoting import quoted
from .resume import as_text, digest, read_done, unanswered
from .solve import DEFAULT_MEMORY, SearchStopped, Solver, check_memory

if TYPE_CHECKING:   # Dask is imported only when a batch runs
    import distributed

__all__ = ["JOBS", "run_job", "run_chunk", "generated_item", "run_batch", "prepare_worker"]

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
    trick range and margin) and the generated stream."""
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


ITEM_FIELDS = {"analyze": "deal", "puzzles": "deal"}
"""What a job's input line is called in its refusals, where it is not a position (as the
single-machine command calls it)."""


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
                item = dict(json_object(item, ITEM_FIELDS.get(job, "position")))
            line["position"] = item
            line.update(run_job(job, item, solver, options))
        except (ValueError, SearchStopped) as e:
            line.setdefault("position", as_text(item))
            line["error"] = str(e)
        out.append((index, json.dumps(line)))
    return out


# ------------------------------------------------------------ the driver


MAX_CHUNK = 10_000
"""The most items of one task."""


def _chunks(items: Iterable[tuple[int, Any]], size: int) -> Iterator[list[tuple[int, Any]]]:
    chunk: list[tuple[int, Any]] = []
    for pair in items:
        chunk.append(pair)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


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
    if client is None and address is None:   # an embedded cluster: each worker's table on this machine
        check_memory(options.get("memory", DEFAULT_MEMORY), local_workers(workers))
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
            answered[int(line["index"])] = digest(line.get("position"))
        if stats is not None:
            stats.add(job, line)
    done = read_done(out_path, on_line, run_of(job, options, generate)) if out_path else set()
    if source is None:
        assert deals is not None   # checked above: without an input file, the deals are generated
        total: int | None = deals
        pending: Iterable[tuple[int, Any]] = ((i, None) for i in range(deals) if i not in done)
    else:
        total = count_lines(source)
        pending = unanswered(source, answered, out_path)
    skipped = len(done) if total is None else len([i for i in done if i < total])

    own_cluster = own_client = None
    if client is None:
        if address is None:
            own_cluster = local_cluster(workers)
            client = own_client = Client(own_cluster)
        else:
            client = own_client = client_at(address)
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
        with HeldCtrlC() as ctrl_c:
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
