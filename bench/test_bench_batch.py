"""Batch throughput on a Dask cluster: `python -m pytest bench/test_bench_batch.py`.

Deals per second of `batch solve` (mode "all", whole Malilla deals from the
first lead) with 1 and with 2 local worker processes, on the same generated
deals, and the overhead of the 1-worker batch (chunks, scheduling, pickling,
writing the JSON lines) against solving the same deals in one plain loop with
one `Solver` in this process. The 1.7 speed-up needs two cores that really
run two searches at full speed: the test also measures this machine's own
ceiling (two plain processes sharing the deals, no Dask) and reports an xfail,
not a pass, when that ceiling is itself below 1.75. The batches use the default chunk (8
deals), which keeps Dask's scheduling small against the solves. The clusters are started, and
each worker's solver made, before the clock starts. Other load on this shared machine only ever
slows a run, so each figure is the best of three rounds. `extra_info` holds the figures;
bench/conftest.py prints them.
"""
from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable

import pytest

from solver import Position
from solver.batch import generated_item, local_cluster, run_batch, prepare_worker
from solver.solve import Solver

GAME, SEED, DEALS, CHUNK, MEMORY, ROUNDS = "malilla", 20261129, 192, 8, 32 << 20, 3


def best_seconds(run: Callable[[int], None]) -> float:
    """The fastest of ROUNDS timed calls `run(round)`."""
    rounds = []
    for r in range(ROUNDS):
        start = time.perf_counter()
        run(r)
        rounds.append(time.perf_counter() - start)
    return min(rounds)


def plain_loop() -> float:
    """Seconds to solve the deals one after the other here, with one solver."""
    positions = [Position.from_json(generated_item("solve", GAME, SEED, i)) for i in range(DEALS)]
    solver = Solver(MEMORY)

    def run(_: int) -> None:
        for p in positions:
            solver.solve(p)

    return best_seconds(run)


_pool_solver: Solver | None = None


def _pool_init() -> None:
    global _pool_solver
    _pool_solver = Solver(MEMORY)


def _pool_solve(i: int) -> int:
    return _pool_solver.solve(Position.from_json(generated_item("solve", GAME, SEED, i))).nodes


def machine_ceiling(seconds_one: float) -> float:
    """The speed-up this machine gives two processes on the same deals, one deal at a time
    (no Dask): the bound for the 2-worker batch, measured rather than assumed."""
    with multiprocessing.get_context("fork").Pool(2, initializer=_pool_init) as pool:
        pool.map(_pool_solve, [0, 1], chunksize=1)
        start = time.perf_counter()
        pool.map(_pool_solve, range(DEALS), chunksize=1)
        return seconds_one / (time.perf_counter() - start)


def batch_seconds(workers: int, out: str) -> float:
    from distributed import Client

    def run(r: int) -> None:
        summary = run_batch("solve", f"{out}.{r}", client=client, game=GAME, deals=DEALS, seed=SEED,
                            chunk=CHUNK, options={"memory": MEMORY})
        assert summary["done"] == DEALS

    with local_cluster(workers) as cluster, Client(cluster) as client:
        client.run(prepare_worker, MEMORY)
        return best_seconds(run)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs two cores")
def test_batch_deals_per_second(benchmark, tmp_path):
    loop = plain_loop()
    one = batch_seconds(1, str(tmp_path / "one.jsonl"))
    two = benchmark.pedantic(batch_seconds, args=(2, str(tmp_path / "two.jsonl")), rounds=1, iterations=1)
    ratio = one / two
    ceiling = machine_ceiling(loop)
    overhead = one / loop - 1
    benchmark.extra_info.update({
        "game": GAME, "deals": DEALS, "chunk": CHUNK, "table_bytes": MEMORY,
        "deals_per_second_plain_loop": round(DEALS / loop, 2),
        "deals_per_second_1_worker": round(DEALS / one, 2),
        "deals_per_second_2_workers": round(DEALS / two, 2),
        "speedup_2_workers": round(ratio, 3),
        "overhead_vs_plain_loop": round(overhead, 4),
        "two_process_ceiling_of_this_machine": round(ceiling, 3),
    })
    assert overhead <= 0.10, f"the batch costs {overhead:.1%} more than a plain loop"
    if ratio < 1.7 and ceiling < 1.75:
        pytest.xfail(f"2 workers are {ratio:.2f} times 1 worker, but this machine gives two plain processes "
                     f"only {ceiling:.2f} times one (shared or throttled cores)")
    assert ratio >= 1.7, f"2 workers are {ratio:.2f} times 1 worker"
