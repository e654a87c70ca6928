"""Batch throughput on a Dask cluster: `python -m pytest bench/test_bench_batch.py`.

Deals per second of `batch solve` (mode "all", whole Malilla deals from the
first lead) with 1 and with 2 local worker processes, on the same generated
deals, and the overhead of the 1-worker batch (chunks, scheduling, pickling,
writing the JSON lines) against solving the same deals in one plain loop with
one `Solver` in this process. The 1.7 speed-up needs two cores that really
run two searches at full speed: the test also measures this machine's own
ceiling (two plain processes sharing the deals, no Dask) and reports an xfail,
not a pass, when that ceiling is itself below 1.75. The batches use the default
chunk (8 deals), which keeps Dask's scheduling small against the solves. The
clusters and the processes are started, and each one's solver made, before the
clock starts. Other load on this shared machine only ever slows a run, and it
comes and goes: the four ways of solving the deals take turns in each of three
rounds, and each figure is the best of its three. `extra_info` holds the figures;
bench/conftest.py prints them.
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import time
from collections.abc import Callable

import pytest

from solver import Position
from solver.batch import generated_item, run_batch, prepare_worker
from solver.cluster import local_cluster
from solver.solve import Solver

GAME, SEED, DEALS, CHUNK, MEMORY, ROUNDS = "malilla", 20261129, 192, 8, 32 << 20, 3

_pool_solver: Solver | None = None


def _pool_init() -> None:
    global _pool_solver
    _pool_solver = Solver(MEMORY)


def _pool_solve(i: int) -> int:
    return _pool_solver.solve(Position.from_json(generated_item("solve", GAME, SEED, i))).nodes


def seconds_of(run: Callable[[], object]) -> float:
    """Seconds one call of `run` takes."""
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def interleaved_rounds(out: str) -> dict[str, float]:
    """The best of ROUNDS seconds of each way of solving the deals, the ways taking turns within
    each round so that all of them meet the same load on this shared machine: a plain loop here
    with one solver, batches on 1 and on 2 workers, and two plain processes sharing the deals one
    at a time (no Dask: this machine's own ceiling for the 2-worker batch, measured rather than
    assumed)."""
    from distributed import Client

    positions = [Position.from_json(generated_item("solve", GAME, SEED, i)) for i in range(DEALS)]
    solver = Solver(MEMORY)
    outputs = itertools.count()

    def plain_loop() -> None:
        for p in positions:
            solver.solve(p)

    def batch(client) -> Callable[[], None]:
        def run() -> None:
            summary = run_batch("solve", f"{out}.{next(outputs)}", client=client, game=GAME, deals=DEALS,
                                seed=SEED, chunk=CHUNK, options={"memory": MEMORY})
            assert summary["done"] == DEALS
        return run

    # the pool forks before any Dask thread starts
    with multiprocessing.get_context("fork").Pool(2, initializer=_pool_init) as pool, \
            local_cluster(1) as cluster_one, Client(cluster_one) as one, \
            local_cluster(2) as cluster_two, Client(cluster_two) as two:
        pool.map(_pool_solve, [0, 1], chunksize=1)
        one.run(prepare_worker, MEMORY)
        two.run(prepare_worker, MEMORY)
        ways: dict[str, Callable[[], object]] = {
            "plain_loop": plain_loop,
            "one_worker": batch(one),
            "two_workers": batch(two),
            "two_processes": lambda: pool.map(_pool_solve, range(DEALS), chunksize=1),
        }
        rounds = [{name: seconds_of(run) for name, run in ways.items()} for _ in range(ROUNDS)]
    return {name: min(r[name] for r in rounds) for name in ways}


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs two cores")
def test_batch_deals_per_second(benchmark, tmp_path):
    best = benchmark.pedantic(interleaved_rounds, args=(str(tmp_path / "batch.jsonl"),), rounds=1, iterations=1)
    loop, one, two = best["plain_loop"], best["one_worker"], best["two_workers"]
    ratio = one / two
    ceiling = loop / best["two_processes"]
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
