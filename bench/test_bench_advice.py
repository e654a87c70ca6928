"""Single-dummy advice: `python -m pytest bench/test_bench_advice.py`.

Samples per second (a sample is one consistent layout drawn and solved in mode
"all", one solver reused) for each game at three stages of a deal: early (the
second trick), middle and late (three tricks left), on views from seeded deals
and random legal play. Stability: for each view, advice is taken sample by
sample up to `STABLE_MAX` samples; the figure is the sample count after which
the best card by mean no longer changes, on views of a leader and of the
second player (median, 90th percentile and worst
over the views with two legal cards or more).
`extra_info` holds the figures; bench/conftest.py prints them.
"""
from __future__ import annotations

import random
import statistics
import time

import pytest

from solver import Position, get_profile
from solver.advice import advise_iter
from solver.deal import deal, random_play
from solver.layouts import consistent_layouts
from solver.solve import Solver
from solver.view import View, view_of

SEED = 20261129
VIEWS = 6
SAMPLES = 40
STABLE_MAX = 200


def played(game: str, i: int) -> dict:
    obj = deal(get_profile(game), seed=SEED + i, dealer=i % 4).to_deal_json()
    obj["play"] = random_play(Position.from_json(obj), random.Random(SEED + i))
    return obj


def views(game: str, stage: str, offset: int = 1) -> list[dict]:
    """The views of the player to move `offset` cards into the second, the middle or the third-last trick."""
    out = []
    tricks = get_profile(game).tricks
    at = {"early": 4, "middle": 4 * (tricks // 2), "late": 4 * (tricks - 3)}[stage] + offset
    for i in range(VIEWS):
        obj = played(game, i)
        out.append(view_of(obj, obj["play"][:at]))
    return out


@pytest.mark.parametrize("game", ["malilla", "manille"])
@pytest.mark.parametrize("stage", ["early", "middle", "late"])
def test_samples_per_second(benchmark, game, stage):
    vs = [View.from_json(v) for v in views(game, stage)]
    solver = Solver(64 << 20)

    def run():
        for v in vs:
            solver.clear()
            for _ in advise_iter(v, SAMPLES, seed=1, solver=solver, every=SAMPLES):
                pass

    began = time.perf_counter()
    benchmark.pedantic(run, rounds=1, iterations=1)
    seconds = time.perf_counter() - began
    rate = len(vs) * SAMPLES / seconds
    benchmark.extra_info.update({"game": game, "stage": stage, "samples_per_second": round(rate, 1),
                                 "views": len(vs), "samples_per_view": SAMPLES})
    assert rate > 5


@pytest.mark.parametrize("game", ["malilla", "manille"])
def test_samples_for_a_stable_best_card(benchmark, game):
    solver = Solver(64 << 20)
    settled = []

    def run():
        for stage, offset in [(s, o) for s in ("early", "middle", "late") for o in (0, 1)]:
            for v in views(game, stage, offset):
                view = View.from_json(v)
                if len(view.position(consistent_layouts(view, 1)[0]).legal_moves()) < 2:
                    continue   # a forced card is stable from the start
                last_change, best = 0, None
                for advice in advise_iter(view, STABLE_MAX, seed=2, solver=solver, every=1):
                    top = advice.cards[0].card
                    if top != best:
                        best, last_change = top, advice.samples
                settled.append(last_change)

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update({"game": game, "views": len(settled), "max_samples": STABLE_MAX,
                                 "stable_after_median": statistics.median(settled),
                                 "stable_after_p90": sorted(settled)[int(0.9 * (len(settled) - 1))],
                                 "stable_after_max": max(settled), "each": settled})
