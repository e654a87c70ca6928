"""The aggregates of a batch run's output lines (`malilla-dd batch --stats`)."""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

from .position import Position, read_dealer

__all__ = ["BatchStats"]


class BatchStats:
    """Aggregates of a run's results: per game and trump, the distribution of the dealer's side's
    double-dummy deal score, the dealer's side's win rate, and the par choices (from `table`);
    the dealer's side's double-dummy points (from `solve` of deal starts that name their dealer).
    `to_json` is the same whatever order the lines were added in: games and trumps in the order
    of their names, par choices most often first (equal ones by name)."""

    def __init__(self) -> None:
        self.items = 0
        self.errors = 0
        self.scores: dict[str, dict[str, Counter[int]]] = defaultdict(lambda: defaultdict(Counter))
        self.wins: dict[str, Counter[str]] = defaultdict(Counter)
        self.par: dict[str, Counter[str]] = defaultdict(Counter)
        self.points: dict[str, dict[str, Counter[int]]] = defaultdict(lambda: defaultdict(Counter))

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
            out["deal_scores"] = {g: {t: _dist(c) for t, c in sorted(by.items())}
                                  for g, by in sorted(self.scores.items())}
        if self.wins:
            rates: dict[str, dict[str, dict[str, Any]]] = {}
            for g, w in sorted(self.wins.items()):
                rates[g] = {}
                for key in ("deal_trump", "par"):
                    n = w[key + "_deals"]
                    if n:
                        rates[g][key] = {"deals": n, "win_rate": round(w[key + "_wins"] / n, 4),
                                         "tie_rate": round(w[key + "_ties"] / n, 4)}
            out["dealer_side"] = rates
        if self.par:
            out["par_choices"] = {g: _most_first(c) for g, c in sorted(self.par.items())}
        if self.points:
            out["dealer_side_points"] = {g: {t: _dist(c) for t, c in sorted(by.items())}
                                         for g, by in sorted(self.points.items())}
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


def _most_first(counter: Counter[str]) -> dict[str, int]:
    """The counts, the largest first and equal ones in the order of their keys."""
    return dict(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


def _dist(counter: Counter[int]) -> dict[str, Any]:
    n = sum(counter.values())
    mean = sum(k * v for k, v in counter.items()) / n if n else 0.0
    return {"deals": n, "mean": round(mean, 3), "counts": {str(k): counter[k] for k in sorted(counter)}}
