"""Play analysis and what-if tables: `python -m pytest bench/test_bench_analysis.py`.

The analysis of a whole Malilla deal (40 cards, one search per card, one
solver for the deal) is timed against one search of the deal's first lead in
mode "all" from an empty table; the issue's bound is 10 times. The played
deals come from random legal play and from the solver's own principal line.
The table (every trump and leader, plus par) is timed for both games.
`extra_info` holds the figures; bench/conftest.py prints them.
"""
from __future__ import annotations

import random
import statistics
import time

import pytest

from solver import Position, get_profile
from solver.analysis import PlayedDeal, analyze
from solver.deal import deal, random_play
from solver.solve import Solver
from solver.table import table_of

SEED = 20261129
DEALS = 12
BOUND = 10.0


def start_of(game: str, i: int) -> dict:
    return deal(get_profile(game), seed=SEED + i, dealer=i % 4).to_deal_json()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(solver: Solver, obj: dict) -> tuple[float, float, int]:
    """(seconds of one first-lead search, seconds of the whole analysis, cards), each from an empty table."""
    start = PlayedDeal.from_json(obj).start
    solver.clear()
    t0 = time.perf_counter()
    solver.solve(start, mode="all")
    one = time.perf_counter() - t0
    solver.clear()
    t0 = time.perf_counter()
    analysis = analyze(obj, solver)
    whole = time.perf_counter() - t0
    return one, whole, len(analysis.cards)


@pytest.mark.parametrize("play", ["random", "principal"])
def test_malilla_analysis_against_one_solve(benchmark, play: str) -> None:
    solver = Solver()
    deals = []
    for i in range(DEALS):
        obj = start_of("malilla", i)
        if play == "random":
            obj["play"] = random_play(Position.from_json(obj), random.Random(SEED + i))
        else:
            obj["play"] = list(solver.solve(Position.from_json(obj), mode="best").line)
        deals.append(obj)
    runs: list[list[tuple[float, float, int]]] = []

    def run() -> None:
        runs.append([measure(solver, obj) for obj in deals])

    benchmark.pedantic(run, rounds=2, iterations=1, warmup_rounds=0)
    one = [min(r[i][0] for r in runs) for i in range(DEALS)]
    whole = [min(r[i][1] for r in runs) for i in range(DEALS)]
    cards = runs[-1][0][2]
    ratios = [w / o for w, o in zip(whole, one)]
    aggregate = sum(whole) / sum(one)
    benchmark.extra_info.update({
        "deals": DEALS,
        "cards_per_deal": cards,
        "ratio_total": round(aggregate, 2),
        "ratio_median": round(statistics.median(ratios), 2),
        "ratio_max": round(max(ratios), 2),
        "one_solve_median_ms": round(statistics.median(one) * 1000, 1),
        "analysis_median_ms": round(statistics.median(whole) * 1000, 1),
        "analysis_max_ms": round(max(whole) * 1000, 1),
    })
    assert cards == 40
    assert aggregate <= BOUND, f"analysing a deal costs {aggregate:.1f} solves (bound {BOUND})"


@pytest.mark.parametrize("game", ["malilla", "manille"])
def test_table_time(benchmark, game: str) -> None:
    solver = Solver()
    deals = [start_of(game, i) for i in range(DEALS)]
    runs: list[list[float]] = []

    def run() -> None:
        times = []
        for obj in deals:
            solver.clear()
            t0 = time.perf_counter()
            table = table_of(obj, solver)
            times.append(time.perf_counter() - t0)
            assert len(table.entries) == 4 * len(table.trumps)
        runs.append(times)

    benchmark.pedantic(run, rounds=2, iterations=1, warmup_rounds=0)
    seconds = [min(r[i] for r in runs) for i in range(DEALS)]
    benchmark.extra_info.update({
        "deals": DEALS,
        "solves_per_table": 4 * (5 if game == "manille" else 4) + (5 if game == "manille" else 0),
        "median_ms": round(statistics.median(seconds) * 1000, 1),
        "p95_ms": round(percentile(seconds, 0.95) * 1000, 1),
        "max_ms": round(max(seconds) * 1000, 1),
    })
    assert all(s > 0 for s in seconds)
