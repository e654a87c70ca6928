"""Single-dummy advice: the best card for a player who sees only their own hand.

The player's knowledge is a view (`solver.view.View`: its hand, the public play and
what the play shows of the hidden hands); layouts of the unseen cards are drawn
uniformly among those consistent with the play (`solver.layouts`).

Each accepted layout is solved double dummy (mode "all", one `Solver`); per
legal card the advice gives the mean points of the viewer's side from the
remaining play (trick in progress included), the standard deviation, the
standard error of the mean and, with a goal, how often the card reaches the
goal and that frequency's standard error. The same view, seed and sample count
give the same advice.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .cards import SEATS, card_name, cards_of, parse_card, sort_key
from .checks import check_whole
from .deal import seeded
from .layouts import AdviceError, count_layouts, draw_limit, drawn_layouts, sample_layout
from .quoting import quoted
from .solve import Searcher, check_timeout, default_solver, solver_given
from .view import View

__all__ = ["CardAdvice", "Advice", "advise", "advise_iter", "advice_steps", "verdict", "VERDICTS"]


@dataclass(frozen=True)
class CardAdvice:
    """One legal card's points over the sampled layouts (for the side to move): their mean and
    spread, and how often it reaches the goal."""

    card: str
    mean: float
    sd: float
    se: float
    """Standard error of the mean."""
    goal: float | None = None
    """How often the card reaches the goal (a frequency), with a goal."""
    goal_se: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"card": self.card, "mean": round(self.mean, 4), "sd": round(self.sd, 4),
                               "se": round(self.se, 4)}
        if self.goal is not None:
            out["goal"] = round(self.goal, 4)
            out["goal_se"] = round(self.goal_se, 4) if self.goal_se is not None else None
        return out


@dataclass(frozen=True)
class Advice:
    """Advice after `samples` layouts: the legal cards, best first (by mean, or with a goal by how
    often they reach it, then by mean)."""

    seat: str
    samples: int
    cards: tuple[CardAdvice, ...]
    goal: int | None
    rejected: int
    layouts: int
    """Layouts respecting the per-card inferences (an upper bound of the consistent ones)."""
    done: bool = True

    @property
    def best(self) -> list[str]:
        """The cards with the best mean (or, with a goal, the best frequency, then mean)."""
        if not self.cards:
            return []
        top = self.cards[0]
        return [c.card for c in self.cards if _rank(c, self.goal) == _rank(top, self.goal)]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "samples": self.samples, "best": self.best,
                               "cards": [c.to_json() for c in self.cards], "rejected": self.rejected,
                               "layouts": self.layouts, "done": self.done}
        if self.goal is not None:
            out["goal"] = self.goal
        return out


def _rank(c: CardAdvice, goal: int | None) -> tuple[float, ...]:
    if goal is None:
        return (round(c.mean, 9),)
    assert c.goal is not None   # with a goal every sampled card has its frequency
    return round(c.goal, 9), round(c.mean, 9)


@dataclass
class _Tally:
    """One card's values so far, as running sums: a summary costs the same after any number."""

    n: int = 0
    total: int = 0
    squares: int = 0
    reached: int = 0
    """Values at or above the goal."""

    def add(self, value: int, goal: int | None) -> None:
        self.n += 1
        self.total += value
        self.squares += value * value
        self.reached += goal is not None and value >= goal

    def advice(self, card: str, goal: int | None) -> CardAdvice:
        n = self.n
        mean = self.total / n if n else 0.0
        # the sample variance from whole-number sums: exact up to the one division
        sd = math.sqrt((n * self.squares - self.total ** 2) / (n * (n - 1))) if n > 1 else 0.0
        g = gse = None
        if goal is not None and n:
            g = self.reached / n
            gse = math.sqrt(g * (1 - g) / n)
        return CardAdvice(card, mean, sd, sd / math.sqrt(n) if n else 0.0, g, gse)


def _summarise(view: View, tallies: dict[str, _Tally], samples: int, goal: int | None, rejected: int,
               layouts: int, done: bool) -> Advice:
    out = [tally.advice(card, goal) for card, tally in tallies.items()]
    profile = view.profile
    out.sort(key=lambda c: tuple(-x for x in _rank(c, goal)) + (sort_key(parse_card(c.card, profile)),))
    return Advice(SEATS[view.seat], samples, tuple(out), goal, rejected, layouts, done)


def advise_iter(view: View | dict[str, Any] | str | bytes, samples: int = 100, seed: int = 0, goal: int | None = None,
                solver: Searcher | None = None, every: int = 10, max_attempts: int | None = None,
                timeout: float | None = None) -> Iterator[Advice]:
    """Partial advice every `every` samples (`done=False`), then the final advice (`done=True`).
    A bad view or option is refused at the call, before any advice is asked for."""
    steps = advice_steps(view, samples, seed, goal, solver, every, max_attempts, timeout)
    return (advice for advice in steps if advice is not None)


def advice_steps(view: View | dict[str, Any] | str | bytes, samples: int = 100, seed: int = 0, goal: int | None = None,
                 solver: Searcher | None = None, every: int = 10, max_attempts: int | None = None,
                 timeout: float | None = None) -> Iterator[Advice | None]:
    """As `advise_iter`, with None after each drawn layout that gives no advice: a caller
    that works in short steps can pause between any two layouts."""
    if not isinstance(view, View):
        view = View.from_json(view)
    check_whole("samples", samples, 1)
    check_whole("seed", seed)
    if goal is not None:
        check_whole("goal", goal, 0)
    check_whole("every", every, 1)
    if max_attempts is not None:
        check_whole("max_attempts", max_attempts, 1)
        if max_attempts < samples:   # each sample is one layout drawn at least
            raise ValueError(f"max_attempts: {max_attempts} is fewer than the {samples} samples asked for")
    check_timeout(timeout)
    return _advice_steps(view, samples, seed, goal, solver_given(solver, default_solver), every,
                         max_attempts, timeout)


def _advice_steps(view: View, samples: int, seed: int, goal: int | None, solver: Searcher, every: int,
                  max_attempts: int | None, timeout: float | None) -> Iterator[Advice | None]:
    layouts = count_layouts(view)
    legal, _, _ = view.position(sample_layout(view, seeded(seed))).legal_mask()
    tallies = {card_name(c, view.profile): _Tally() for c in cards_of(legal)}
    limit = draw_limit(max_attempts, samples)
    rejected = n = 0
    for hands in drawn_layouts(view, seeded(seed), limit):
        if hands is None:
            rejected += 1
            yield None
            continue
        sol = solver.solve(view.position(hands), mode="all", timeout=timeout)
        for card, v in sol.values.items():
            tallies[card].add(v, goal)
        n += 1
        if n == samples:
            break
        yield _summarise(view, tallies, n, goal, rejected, layouts, False) if n % every == 0 else None
    if n < samples:
        raise AdviceError(f"{rejected} of {limit} drawn layouts contradicted the play "
                          f"(max_attempts {limit}): too few consistent layouts were found")
    yield _summarise(view, tallies, n, goal, rejected, layouts, True)


def advise(view: View | dict[str, Any] | str | bytes, samples: int = 100, seed: int = 0, goal: int | None = None,
           solver: Searcher | None = None, progress: Callable[[int], object] | None = None,
           max_attempts: int | None = None, timeout: float | None = None) -> Advice:
    """The advice after `samples` layouts (see the module's docstring); `progress(n)` after each sample."""
    last = None
    for last in advise_iter(view, samples, seed, goal, solver, 1, max_attempts, timeout):
        if progress is not None:
            progress(last.samples)
    assert last is not None   # the steps end with the final advice
    return last


# ---------------------------------------------------------------- verdicts for the play analysis

VERDICTS = ("good", "unlucky", "mistake", "lucky")


def verdict(card: str, advice: Advice, cost: int) -> dict[str, Any]:
    """The single-dummy verdict of a played card beside its double-dummy `cost`.

    `loss` is the best card's mean minus the played card's mean (what the card
    gave away on average with what its player could see). A loss is
    significant when it exceeds both half a point and twice its standard error
    (the two means' errors combined, the same layouts being solved for both, so
    this is conservative). "good": no double-dummy cost and no significant
    loss; "unlucky": a double-dummy cost but no significant loss (the right
    card on what was visible); "mistake": a significant loss; "lucky" is a
    significant loss without a double-dummy cost.
    """
    cards = {c.card: c for c in advice.cards}
    if card not in cards:
        raise ValueError(f"card: {quoted(card)} is not one of the advice's cards ({', '.join(cards)})")
    top, mine = advice.cards[0], cards[card]
    loss = top.mean - mine.mean
    se = math.hypot(top.se, mine.se)
    significant = loss > 0.5 and loss > 2 * se
    kind = ("mistake" if cost > 0 else "lucky") if significant else ("unlucky" if cost > 0 else "good")
    return {"mean": round(mine.mean, 4), "best_mean": round(top.mean, 4), "loss": round(loss, 4),
            "loss_se": round(se, 4), "best": advice.best, "samples": advice.samples, "verdict": kind}
