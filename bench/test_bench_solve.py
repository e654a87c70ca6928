"""Solver speed and memory: `python -m pytest bench` (pytest-benchmark).

Each benchmark asks a question (a mode, an objective, a target) of a fixed
set of whole deals (random deals from a fixed seed plus the shared vectors'
full deals) at the first lead and records, in `extra_info`, the per-question
median and 95th percentile, nodes per question and nodes per second. The
benchmark's own figures time the whole set.
"""
from __future__ import annotations

import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from solver import Position, get_profile
from solver.deal import deal
from solver.solve import Solution, Solver

VECTORS = Path(__file__).resolve().parents[1] / ".." / "shared" / "vectors"
SEED = 20261129
RANDOM_DEALS = 40


def deals_of(game: str) -> list[Position]:
    profile = get_profile(game)
    positions = [Position.from_json(deal(profile, seed=SEED + i, dealer=i % 4).to_position_json())
                 for i in range(RANDOM_DEALS)]
    for line in (VECTORS / "full.jsonl").read_text().splitlines():
        obj = json.loads(line)
        if obj["game"] == game:
            positions.append(Position.from_json(obj))
    return positions


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


Question = tuple[Position, dict]
"""A position and the keyword arguments of `Solver.solve` that ask about it."""


def solve_all(solver: Solver, questions: list[Question]) -> tuple[list[float], list[Solution]]:
    """Per-question seconds and solutions, each from an empty table."""
    seconds, solutions = [], []
    for position, asked in questions:
        solver.clear()
        start = time.perf_counter()
        solutions.append(solver.solve(position, **asked))
        seconds.append(time.perf_counter() - start)
    return seconds, solutions


def report(benchmark, questions: list[Question], threads: int = 1) -> list[Solution]:
    """Time every question twice (the better of the two counts) on a solver of
    `threads` threads and record the median, 95th percentile and maximum, the
    nodes and the nodes per second."""
    solver = Solver(threads=threads)
    runs: list[tuple[list[float], list[Solution]]] = []

    def run() -> None:
        runs.append(solve_all(solver, questions))

    benchmark.pedantic(run, rounds=2, iterations=1, warmup_rounds=0)
    seconds = [min(r[0][i] for r in runs) for i in range(len(questions))]
    solutions = runs[-1][1]
    nodes = [s.nodes for s in solutions]
    benchmark.extra_info.update({
        "threads": threads,
        "questions": len(questions),
        "median_ms": round(statistics.median(seconds) * 1000, 2),
        "p95_ms": round(percentile(seconds, 0.95) * 1000, 2),
        "max_ms": round(max(seconds) * 1000, 2),
        "median_nodes": statistics.median(nodes),
        "p95_nodes": percentile(nodes, 0.95),
        "nodes_per_second": round(sum(nodes) / sum(seconds)),
    })
    assert all(n > 0 for n in nodes)
    return solutions


@pytest.mark.parametrize("game,mode", [("malilla", "all"), ("malilla", "best"),
                                       ("manille", "all"), ("manille", "best")])
def test_full_deals(benchmark, game: str, mode: str) -> None:
    report(benchmark, [(p, {"mode": mode}) for p in deals_of(game)])


@pytest.mark.parametrize("game,mode", [("malilla", "all"), ("malilla", "best"), ("malilla", "optimal"),
                                       ("manille", "all"), ("manille", "best")])
def test_full_deals_on_two_threads(benchmark, game: str, mode: str) -> None:
    """The same questions, one deal at a time, each searched on two threads
    that share the table (`Solver(threads=2)`); the nodes are both threads'."""
    report(benchmark, [(p, {"mode": mode}) for p in deals_of(game)], threads=2)


def test_full_deals_on_more_threads_than_cores(benchmark) -> None:
    """Every card of each Malilla deal on two threads more than the machine has
    cores: the threads with nothing to do give up their cores."""
    report(benchmark, [(p, {"mode": "all"}) for p in deals_of("malilla")], threads=(os.cpu_count() or 1) + 2)


@pytest.mark.parametrize("game,mode,objective", [("malilla", "optimal", "points"), ("manille", "optimal", "points"),
                                                 ("manille", "all", "score"), ("manille", "best", "score")])
def test_other_questions(benchmark, game: str, mode: str, objective: str) -> None:
    """Every optimal card, and Manille's deal score (where a capot outranks a
    plain win; Malilla's deal score orders the outcomes as its points do)."""
    report(benchmark, [(p, {"mode": mode, "objective": objective}) for p in deals_of(game)])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("game", ["malilla", "manille"])
@pytest.mark.parametrize("mode", ["target", "targets"])
def test_target_questions(benchmark, mode: str, game: str, threads: int) -> None:
    """Can the side to move take at least T points, with which card (`target`)
    or every card that does (`targets`)? Asked at each deal's value (yes) and
    one point above it (no), each from an empty table, on one thread and on
    two."""
    solver = Solver()
    questions = [(p, {"mode": mode, "target": solver.solve(p, mode="best").value + more})
                 for p in deals_of(game) for more in (0, 1)]
    answers = report(benchmark, questions, threads)
    assert [a.reached for a in answers] == [True, False] * (len(questions) // 2)


def test_two_threads(benchmark) -> None:
    """Throughput of two solvers in two threads, each taking the next deal from
    one queue, against one solver: the median over three rounds, each timing
    one solver just before the two, so that a drift of the machine's speed
    moves both."""
    positions = deals_of("malilla")
    solvers = [Solver(), Solver()]

    def one_thread() -> float:
        start = time.perf_counter()
        solve_all(solvers[0], [(p, {}) for p in positions])
        return time.perf_counter() - start

    def two_threads() -> float:
        work: queue.SimpleQueue[Position] = queue.SimpleQueue()
        for p in positions:
            work.put(p)

        def drain(solver: Solver) -> None:
            while True:
                try:
                    p = work.get_nowait()
                except queue.Empty:
                    return
                solve_all(solver, [(p, {})])

        start = time.perf_counter()
        threads = [threading.Thread(target=drain, args=(s,)) for s in solvers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - start

    singles: list[float] = []
    benchmark.pedantic(two_threads, setup=lambda: singles.append(one_thread()), rounds=3, iterations=1)
    doubles = benchmark.stats.stats.data
    benchmark.extra_info["speedup"] = round(statistics.median(s / d for s, d in zip(singles, doubles)), 2)
    assert len(singles) == len(doubles) == 3 and min(doubles) > 0


MEMORY_PROBE = """
import sys
sys.path[:0] = [{root!r}, {bench!r}]
from test_bench_solve import deals_of
from solver.solve import Solver
solver = Solver({memory})
most = 0
for position in deals_of("malilla") + deals_of("manille"):
    solver.clear()
    solver.solve(position)
    most = max(most, solver.stats["bytes_in_use"])
# VmHWM: this address space's peak (ru_maxrss would inherit the parent's across exec)
peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(solver.memory, most, int(peak.split()[1]) * 1024)
"""


@pytest.mark.parametrize("memory,fills", [(256 * 2**20, False), (2 * 2**20, True)], ids=["256MiB", "2MiB-filled"])
def test_peak_memory(benchmark, memory: int, fills: bool) -> None:
    """Peak resident memory of a fresh process scoring every card of every
    deal, each from an empty table, stays under the table bound plus 100 MB:
    with the default bound (a deal uses a few MiB of it) and with one small
    enough that the hardest deals fill it."""
    code = MEMORY_PROBE.format(root=str(Path(__file__).resolve().parents[1]),
                               bench=str(Path(__file__).resolve().parent), memory=memory)

    def probe() -> tuple[int, int, int]:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        table, in_use, peak = out.stdout.split()[-3:]
        return int(table), int(in_use), int(peak)

    table, in_use, peak = benchmark.pedantic(probe, rounds=1, iterations=1)
    benchmark.extra_info.update({"peak_rss_mb": round(peak / 2**20), "table_in_use_mb": round(in_use / 2**20, 1),
                                 "bound_mb": memory // 2**20})
    assert in_use <= table <= memory and peak < memory + 100 * 2**20
    assert in_use == table if fills else in_use < table
