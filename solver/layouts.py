"""The layouts of the cards a view (`solver.view.View`) has not seen: counted, and drawn uniformly.

A layout deals the unseen cards to the three hidden seats with their sizes.
Among layouts respecting the view's "cannot hold" masks, one is drawn exactly
uniformly: the unseen cards are grouped by the set of seats allowed to hold
them, the number of completions is counted by dynamic programming over the
groups (how many cards of each group go to each seat), each group's split is
drawn with probability proportional to its completions, then the group's
cards are shuffled into the chosen counts. A drawn layout is then replayed in
full with the rules engine and rejected if any past card would have been
illegal (combinations of cards that the single-card masks cannot see); since
the masks are necessary conditions, the accepted layouts are uniform among
all layouts consistent with the public play. Rejection is capped
(`max_attempts`); `solver.advice.Advice.rejected` counts the rejected draws.
"""
from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .cards import cards_of
from .checks import check_whole
from .deal import seeded

if TYPE_CHECKING:   # a view counts its layouts as it is read
    from .view import View

__all__ = ["AdviceError", "LayoutTables", "count_layouts", "sample_layout", "drawn_layouts", "draw_limit",
           "consistent_layouts"]

Hands = tuple[int, int, int, int]
"""A layout: the current hand of each seat (masks)."""

Split = tuple[int, int, int]
"""Cards for each hidden seat, in the order of `View.hidden`."""

ATTEMPTS_PER_LAYOUT = 100
"""Draws allowed for each consistent layout asked for, unless `max_attempts` says otherwise."""


class AdviceError(ValueError):
    """No layout of the unseen cards fits the public play (or none was found in the attempts)."""


def _groups(view: View) -> list[tuple[tuple[int, ...], list[int]]]:
    """The unseen cards grouped by the hidden seats allowed to hold them (sorted, deterministic)."""
    by: dict[tuple[int, ...], list[int]] = {}
    for u in sorted(cards_of(view.unseen)):
        allowed = tuple(s for s in view.hidden if not view.excluded[s] >> u & 1)
        by.setdefault(allowed, []).append(u)
    return sorted(by.items())


def _needs(view: View) -> Split:
    """Unseen cards each hidden seat must receive."""
    a, b, c = (view.sizes[s] - bin(view.fixed[s]).count("1") for s in view.hidden)
    return a, b, c


def _splits(n: int, allowed: tuple[int, ...], hidden: tuple[int, ...]) -> Iterator[Split]:
    ok = [s in allowed for s in hidden]
    for a in range(n + 1 if ok[0] else 1):
        for b in range(n - a + 1 if ok[1] else 1):
            c = n - a - b
            if c and not ok[2]:
                continue
            yield a, b, c


def _ways(n: int, split: Split) -> int:
    return math.factorial(n) // (math.factorial(split[0]) * math.factorial(split[1]) * math.factorial(split[2]))


def _completions(view: View) -> tuple[list[tuple[tuple[int, ...], list[int]]], list[dict[Split, int]]]:
    """Groups and, per group index g, a dict (need_a, need_b, need_c) -> layouts of groups g.. that fill them."""
    groups = _groups(view)
    tables: list[dict[Split, int]] = [dict() for _ in range(len(groups) + 1)]
    tables[len(groups)][(0, 0, 0)] = 1

    def count(g: int, need: Split) -> int:
        if min(need) < 0:
            return 0
        table = tables[g]
        if need in table:
            return table[need]
        allowed, cards = groups[g]
        total = 0
        for split in _splits(len(cards), allowed, view.hidden):
            rest = (need[0] - split[0], need[1] - split[1], need[2] - split[2])
            if min(rest) >= 0:
                total += _ways(len(cards), split) * count(g + 1, rest)
        table[need] = total
        return total

    count(0, _needs(view))
    return groups, tables


class LayoutTables:
    """A view's unseen cards in groups (`groups`), the layouts of groups g.. that fill each
    seat's needs (`tables[g]`), and the splits of a group a draw picks among, kept as the
    draws ask for them."""

    def __init__(self, view: View) -> None:
        self.hidden = view.hidden
        self.groups, self.tables = _completions(view)
        self._choices: dict[tuple[int, Split], tuple[list[Split], list[int]]] = {}

    def choices(self, g: int, need: Split) -> tuple[list[Split], list[int]]:
        """How group g's cards can split among the hidden seats when they still need `need`, and
        the layouts of groups g.. each split leaves (its weight in a uniform draw)."""
        key = (g, need)
        if key not in self._choices:
            allowed, cards = self.groups[g]
            splits, weights = [], []
            for split in _splits(len(cards), allowed, self.hidden):
                rest = (need[0] - split[0], need[1] - split[1], need[2] - split[2])
                if min(rest) >= 0:
                    w = _ways(len(cards), split) * self.tables[g + 1].get(rest, 0)
                    if w:
                        splits.append(split)
                        weights.append(w)
            self._choices[key] = (splits, weights)
        return self._choices[key]


def _read_view(view: View | dict[str, Any] | str | bytes) -> View:
    """`view` itself, or the View its JSON reads as."""
    from .view import View   # view.py imports this module

    return view if isinstance(view, View) else View.from_json(view)


def count_layouts(view: View | dict[str, Any] | str | bytes) -> int:
    """Layouts of the unseen cards respecting the sizes and the per-card inferences."""
    view = _read_view(view)
    return view.layout_tables.tables[0].get(_needs(view), 0)


def sample_layout(view: View, rng: random.Random) -> Hands:
    """One layout drawn uniformly among those `count_layouts` counts (current hands, all four seats)."""
    layout_tables = view.layout_tables
    need = _needs(view)
    hands = list(view.fixed)
    hands[view.seat] = view.hand
    for g, (_, cards) in enumerate(layout_tables.groups):
        splits, weights = layout_tables.choices(g, need)
        pick = rng.randrange(sum(weights))
        for split, w in zip(splits, weights):
            if pick < w:
                break
            pick -= w
        order = list(cards)
        rng.shuffle(order)
        k = 0
        for seat, n in zip(view.hidden, split):
            for c in order[k:k + n]:
                hands[seat] |= 1 << c
            k += n
        need = (need[0] - split[0], need[1] - split[1], need[2] - split[2])
    return hands[0], hands[1], hands[2], hands[3]


def draw_limit(max_attempts: int | None, wanted: int) -> int:
    """The draws allowed for `wanted` consistent layouts: `max_attempts`, or ATTEMPTS_PER_LAYOUT each."""
    return max_attempts if max_attempts is not None else ATTEMPTS_PER_LAYOUT * wanted


def drawn_layouts(view: View, rng: random.Random, limit: int) -> Iterator[Hands | None]:
    """`limit` layouts drawn as `sample_layout` draws them, each replayed against the play: the
    consistent ones, and None for each the play contradicts (a rejected draw)."""
    for _ in range(limit):
        hands = sample_layout(view, rng)
        yield hands if view.consistent(hands) else None


def consistent_layouts(view: View | dict[str, Any] | str | bytes, count: int, seed: int = 0,
                       max_attempts: int | None = None) -> list[Hands]:
    """`count` layouts drawn uniformly among those consistent with the play (no solving)."""
    view = _read_view(view)
    check_whole("count", count, 1)
    check_whole("seed", seed)
    if max_attempts is not None:
        check_whole("max_attempts", max_attempts, 1)
    limit = draw_limit(max_attempts, count)
    out: list[Hands] = []
    for hands in drawn_layouts(view, seeded(seed), limit):
        if hands is not None:
            out.append(hands)
            if len(out) == count:
                return out
    raise AdviceError(f"only {len(out)} consistent layouts in {limit} draws")
