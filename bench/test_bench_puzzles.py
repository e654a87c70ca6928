"""Puzzle generation throughput: `python -m pytest bench/test_bench_puzzles.py`.

Puzzles per minute for each game on one core and on two (two processes, one
generator each with its own seed: the generator is mostly Python between short
searches, so processes rather than threads use the second core), and the spread
of the ratings and tags of 200 puzzles. `extra_info` holds the figures;
bench/conftest.py prints them.
"""
from __future__ import annotations

import collections
import multiprocessing
import time

import pytest

from solver import get_profile
from solver.puzzles import generate

SEED = 20261129
PER_WORKER = 100


def _run(args: tuple[str, int, int]) -> list[tuple[int, tuple[str, ...]]]:
    game, seed, count = args
    return [(p.rating, p.tags) for p in generate(get_profile(game), count, seed)]


def rate(game: str, workers: int, per_worker: int) -> tuple[float, list[tuple[int, tuple[str, ...]]]]:
    """(puzzles per minute, ratings and tags) with `workers` processes."""
    jobs = [(game, SEED + w, per_worker) for w in range(workers)]
    start = time.perf_counter()
    if workers == 1:
        results = [_run(jobs[0])]
    else:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(_run, jobs)
    seconds = time.perf_counter() - start
    found = [r for rs in results for r in rs]
    return len(found) / seconds * 60, found


@pytest.mark.parametrize("game", ["malilla", "manille"])
def test_puzzles_per_minute(benchmark, game):
    one, _ = rate(game, 1, PER_WORKER)
    two, found = benchmark.pedantic(rate, args=(game, 2, PER_WORKER), rounds=1, iterations=1)
    ratings = collections.Counter(r for r, _ in found)
    tags = collections.Counter(t for _, ts in found for t in ts)
    benchmark.extra_info.update({
        "game": game,
        "puzzles_per_minute_1_core": round(one),
        "puzzles_per_minute_2_cores": round(two),
        "puzzles": len(found),
        "ratings": dict(sorted(ratings.items())),
        "tags": dict(tags.most_common()),
    })
    assert len(found) == 2 * PER_WORKER
    assert len(ratings) >= 5, "the ratings spread over the scale"
