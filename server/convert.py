"""Translations between the proto messages and the library's objects.

No game logic here: a `Position` message becomes the position JSON (a dict)
that `solver.Position.from_json` reads and checks, and a `solver.Solution`
becomes a `Solution` message field for field. Likewise a `PlayedDeal` or `Deal`
message becomes the JSON that `solver.analysis.PlayedDeal.from_json` or
`solver.table.read_table_input` reads, and an `Analysis` or `DDTable` becomes a
message built from its `to_json()`, key for key (``{"N-S": a, "E-W": b}`` is a
`SidePair` ``ns``/``ew``; seats ``N E S W`` are fields ``n e s w``), and a
`solver.perft.Perft` a `PerftResponse` with a `CardCount` per card. The client
uses the reverse directions, back to the library's JSON.
"""
from __future__ import annotations

import json
import re
from typing import Any

from solver.advice import Advice
from solver.analysis import Analysis, PlayedDeal
from solver.cards import SEATS, parse_card, sort_key
from solver.jsonlines import json_object
from solver.perft import Perft
from solver.position import Position, check_history_length
from solver.profiles import LONGEST_DEAL, PROFILES
from solver.puzzles import Puzzle
from solver.solve import CardValue, Solution
from solver.table import DDTable
from solver.view import VIEW_KEYS, View

from ._proto import pb

__all__ = ["MODES", "OBJECTIVES", "mode_name", "objective_name", "position_dict", "position_message",
           "solution_message", "solution_from_message", "perft_message", "perft_from_message", "field_path",
           "played_deal_dict", "played_deal_message", "deal_dict", "deal_message", "analysis_message",
           "analysis_json", "table_message", "table_json", "puzzle_message", "puzzle_json", "view_dict", "view_message",
           "advice_message", "advice_json"]

MODES = {"all": pb.MODE_ALL, "optimal": pb.MODE_OPTIMAL, "best": pb.MODE_BEST, "target": pb.MODE_TARGET,
         "targets": pb.MODE_TARGETS}
OBJECTIVES = {"points": pb.OBJECTIVE_POINTS, "score": pb.OBJECTIVE_SCORE}
# by number: a field of an enum is the number sent, which may be one the proto does not define
_MODE_NAMES: dict[int, str] = {**{v: k for k, v in MODES.items()}, pb.MODE_UNSPECIFIED: "all"}
_OBJECTIVE_NAMES: dict[int, str] = {**{v: k for k, v in OBJECTIVES.items()}, pb.OBJECTIVE_UNSPECIFIED: "points"}


def mode_name(value: int) -> str:
    """The library's mode for a `Mode` value (ValueError for a number the proto does not define)."""
    try:
        return _MODE_NAMES[value]
    except KeyError:
        raise ValueError(f"{value} is not a Mode (MODE_ALL, MODE_OPTIMAL, MODE_BEST, MODE_TARGET or "
                         "MODE_TARGETS)") from None


def objective_name(value: int) -> str:
    """The library's objective ("points" or "score") of the proto's Objective value."""
    try:
        return _OBJECTIVE_NAMES[value]
    except KeyError:
        raise ValueError(f"{value} is not an Objective (OBJECTIVE_POINTS or OBJECTIVE_SCORE)") from None


# ---------------------------------------------------------------- positions

def _given(msg: Any, *names: str) -> dict[str, str]:
    """The message's plain string fields among `names` that are set: proto3 reads an unset one
    as "", which the library is to report as missing."""
    return {name: getattr(msg, name) for name in names if getattr(msg, name)}


def position_dict(msg: pb.Position) -> dict[str, Any]:
    """The position JSON of a `Position` message, for `Position.from_json`.

    Unset message fields are left out, so the library reports them as missing;
    unset optional strings (`led_suits`, `to_move`) are absent as in the JSON.
    """
    obj: dict[str, Any] = {**_given(msg, "game", "trump", "leader"), "trick": list(msg.trick)}
    if msg.HasField("hands"):
        obj["hands"] = {seat: getattr(msg.hands, seat.lower()) for seat in SEATS}
    if msg.HasField("led_suits"):
        obj["led_suits"] = msg.led_suits
    if msg.HasField("to_move"):
        obj["to_move"] = msg.to_move
    if msg.HasField("history"):
        tricks = msg.history.tricks
        # one too long for its game (or, when the game is not known, for every game) is refused by its
        # count before its tricks are copied
        check_history_length(len(tricks), PROFILES.get(msg.game.lower(), LONGEST_DEAL))
        obj["history"] = [list(t.cards) for t in tricks]
    if msg.pending_doubling:
        obj["pending_doubling"] = True
    return obj


def _text(value: Any) -> str:
    """A string field from a JSON value: a string as it is, anything else as its JSON text, which the
    server then refuses by the field's name."""
    return value if isinstance(value, str) else json.dumps(value)


def _field(obj: dict[str, Any], key: str) -> str:
    return "" if obj.get(key) is None else _text(obj[key])


def _texts(value: Any) -> list[str]:
    """A repeated string field: a list's items, or a string's words."""
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    return [_text(v) for v in value] if isinstance(value, list) else [_text(value)]


def _cards_text(value: Any) -> str:
    return value if isinstance(value, str) else " ".join(_texts(value))


def _hands_dict(msg: pb.Hands) -> dict[str, str]:
    return {seat: getattr(msg, seat.lower()) for seat in SEATS}


def _set_hands(msg: pb.Hands, hands: Any) -> None:
    """Copy the position JSON's `hands` (seat letters in any case) into a `Hands` message, if it is an object."""
    if isinstance(hands, dict):
        upper = {str(k).upper(): v for k, v in hands.items()}
        msg.SetInParent()
        for seat in SEATS:
            if seat in upper:
                setattr(msg, seat.lower(), _cards_text(upper[seat]))


def position_message(position: Position | dict[str, Any] | str | bytes) -> pb.Position:
    """A `Position` message from a `Position`, the position JSON, or its text.

    The values are copied as they are (the server checks them).
    """
    obj = position.to_json() if isinstance(position, Position) else json_object(position)
    msg = pb.Position(game=_field(obj, "game"), trump=_field(obj, "trump"), leader=_field(obj, "leader"),
                      trick=_texts(obj.get("trick")), pending_doubling=obj.get("pending_doubling") is True)
    _set_hands(msg.hands, obj.get("hands"))
    if obj.get("led_suits") is not None:
        msg.led_suits = _text(obj["led_suits"])
    if obj.get("to_move") is not None:
        msg.to_move = _text(obj["to_move"])
    if obj.get("history") is not None:
        msg.history.SetInParent()
        for trick in obj["history"] if isinstance(obj["history"], list) else [obj["history"]]:
            msg.history.tricks.add(cards=_texts(trick))
    return msg


_HAND = re.compile(r"hands\.([NESW])")
_HISTORY_CARD = re.compile(r"history\[(\d+)\]\[(\d+)\]")
_HISTORY_TRICK = re.compile(r"history\[(\d+)\]")


def field_path(field: str, prefix: str = "position") -> str:
    """The request field path of a `PositionError.field` (``hands.E`` -> ``position.hands.e``;
    with ``prefix="deal"``, ``play[3]`` -> ``deal.play[3]``)."""
    if field in ("position", "deal"):   # the whole object
        return prefix
    if m := _HAND.fullmatch(field):
        return f"{prefix}.hands.{m[1].lower()}"
    if m := _HISTORY_CARD.fullmatch(field):
        return f"{prefix}.history.tricks[{m[1]}].cards[{m[2]}]"
    if m := _HISTORY_TRICK.fullmatch(field):
        return f"{prefix}.history.tricks[{m[1]}]"
    return f"{prefix}.{field}"


# ---------------------------------------------------------------- solutions

def solution_message(solution: Solution, to_move: str = "") -> pb.Solution:
    """The library's Solution as a message; `to_move`: the seat whose side's values they are."""
    msg = pb.Solution(
        side=solution.side,
        to_move=to_move,
        cards=[pb.CardValue(card=cv.card, value=cv.value, margin=cv.margin) for cv in solution.cards],
        best=solution.best,
        groups=[pb.CardGroup(cards=g) for g in solution.groups],
        line=solution.line,
        nodes=solution.nodes,
        mode=MODES[solution.mode],
        objective=OBJECTIVES[solution.objective],
    )
    if solution.value is not None:
        msg.value = solution.value
    if solution.target is not None:
        msg.target = solution.target
    if solution.reached is not None:
        msg.reached = solution.reached
    return msg


def solution_from_message(msg: pb.Solution) -> Solution:
    """The library's `Solution` of a `Solution` message."""
    return Solution(
        value=msg.value if msg.HasField("value") else None,
        side=msg.side,
        cards=tuple(CardValue(cv.card, cv.value, cv.margin) for cv in msg.cards),
        groups=tuple(tuple(g.cards) for g in msg.groups),
        line=tuple(msg.line),
        nodes=msg.nodes,
        mode=mode_name(msg.mode),
        objective=objective_name(msg.objective),
        target=msg.target if msg.HasField("target") else None,
        reached=msg.reached if msg.HasField("reached") else None,
    )


# ---------------------------------------------------------------- perft

def perft_message(perft: Perft) -> pb.PerftResponse:
    """The library's Perft as a message."""
    return pb.PerftResponse(depth=perft.depth, total=perft.total,
                            cards=[pb.CardCount(card=card, count=n) for card, n in perft.cards.items()])


def perft_from_message(msg: pb.PerftResponse) -> Perft:
    """The library's `Perft` of a `PerftResponse`."""
    return Perft(msg.depth, msg.total, {cc.card: cc.count for cc in msg.cards})


# ---------------------------------------------------------------- deals (analysis and tables)

def played_deal_dict(msg: pb.PlayedDeal) -> dict[str, Any]:
    """The played-deal JSON of a `PlayedDeal` message, for `PlayedDeal.from_json` (unset fields left out)."""
    obj: dict[str, Any] = {**_given(msg, "game", "trump", "leader"), "play": list(msg.play)}
    if msg.HasField("hands"):
        obj["hands"] = _hands_dict(msg.hands)
    if msg.HasField("dealer"):
        obj["dealer"] = msg.dealer
    if msg.HasField("shown"):
        obj["shown"] = msg.shown
    if msg.pending_doubling:
        obj["pending_doubling"] = True
    return obj


def played_deal_message(deal: PlayedDeal | dict[str, Any] | str | bytes) -> pb.PlayedDeal:
    """A `PlayedDeal` message from a `PlayedDeal`, the played-deal JSON, or its text (values copied as
    they are: the server checks them; `play` may be a list or a space-separated string)."""
    obj = deal.to_json() if isinstance(deal, PlayedDeal) else json_object(deal, "deal")
    msg = pb.PlayedDeal(game=_field(obj, "game"), trump=_field(obj, "trump"), leader=_field(obj, "leader"),
                        play=_texts(obj.get("play")), pending_doubling=obj.get("pending_doubling") is True)
    _set_hands(msg.hands, obj.get("hands"))
    for name in ("dealer", "shown"):
        if obj.get(name) is not None:
            setattr(msg, name, _text(obj[name]))
    return msg


def deal_dict(msg: pb.Deal) -> dict[str, Any]:
    """The table input JSON of a `Deal` message, for `solver.table.read_table_input` and `table_of`."""
    obj: dict[str, Any] = _given(msg, "game")
    if msg.HasField("hands"):
        obj["hands"] = _hands_dict(msg.hands)
    for name in ("trump", "leader", "dealer", "shown"):
        if msg.HasField(name):
            obj[name] = getattr(msg, name)
    if msg.pending_doubling:
        obj["pending_doubling"] = True
    return obj


def deal_message(deal: Position | dict[str, Any] | str | bytes) -> pb.Deal:
    """A `Deal` message from a `Position` at the start of a deal, the table input JSON, or its text."""
    obj = deal.to_json() if isinstance(deal, Position) else json_object(deal, "deal")
    msg = pb.Deal(game=_field(obj, "game"), pending_doubling=obj.get("pending_doubling") is True)
    _set_hands(msg.hands, obj.get("hands"))
    for name in ("trump", "leader", "dealer", "shown"):
        if obj.get(name) is not None:
            setattr(msg, name, _text(obj[name]))
    return msg


def _pair(obj: dict[str, int]) -> pb.SidePair:
    return pb.SidePair(ns=obj["N-S"], ew=obj["E-W"])


def _pair_json(msg: pb.SidePair) -> dict[str, int]:
    return {"N-S": msg.ns, "E-W": msg.ew}


def analysis_message(analysis: Analysis) -> pb.PlayAnalysis:
    """A `PlayAnalysis` message of the library's `Analysis`, from its `to_json()`."""
    obj = analysis.to_json()
    msg = pb.PlayAnalysis(game=obj["game"], trump=obj["trump"], objective=OBJECTIVES[obj["objective"]],
                          nodes=analysis.nodes)
    for c in obj["cards"]:
        item = msg.cards.add(card=c["card"], seat=c["seat"], before=c["before"], after=c["after"], cost=c["cost"],
                             best=c["best"], deal=_pair(c["deal"]), loses_capot=c.get("loses_capot", False),
                             values=[pb.CardValue(card=card, value=value, margin=c["before"] - value)
                                     for card, value in c["values"].items()])
        if "single_dummy" in c:
            item.single_dummy.CopyFrom(pb.SingleDummyVerdict(**c["single_dummy"]))
    for t in obj["tricks"]:
        trick = msg.tricks.add(leader=t["leader"], cards=t["cards"], points=t["points"])
        if t["winner"] is not None:
            trick.winner = t["winner"]
    for seat, summary in obj["seats"].items():
        getattr(msg.seats, seat.lower()).CopyFrom(pb.SeatSummary(**summary))
    r = obj["result"]
    result = msg.result
    result.complete = r["complete"]
    actual = r["actual"]
    result.actual.points.CopyFrom(_pair(actual["points"]))
    result.actual.tricks.CopyFrom(_pair(actual["tricks"]))
    if "match_points" in actual:
        result.actual.match_points.CopyFrom(_pair(actual["match_points"]))
        result.actual.multiplier = actual["multiplier"]
        result.actual.capot = actual["capot"]
        result.actual.tied = actual["tied"]
    dd = r["double_dummy"]
    result.double_dummy.CopyFrom(pb.DoubleDummyResult(points=_pair(dd["points"]),
                                                      match_points=_pair(dd["match_points"]), capot=dd["capot"]))
    result.projected.CopyFrom(_pair(r["projected"]))
    result.dealer = r["dealer"]
    result.pending_doubling = r.get("pending_doubling", False)
    if "dealer_bonus" in r:
        result.bonus_rule = True
        if r["dealer_bonus"] is not None:
            result.dealer_bonus.CopyFrom(pb.DealerBonus(**r["dealer_bonus"]))
    if r.get("penalty") is not None:
        result.penalty.CopyFrom(pb.Penalty(**r["penalty"]))
    result.notes.extend(r.get("notes", []))
    if "illegal" in obj:
        msg.illegal.CopyFrom(pb.IllegalCard(**obj["illegal"]))
    return msg


def analysis_json(msg: pb.PlayAnalysis) -> dict[str, Any]:
    """The library's `Analysis.to_json()` of a `PlayAnalysis` message (`nodes` left out, as there)."""
    out: dict[str, Any] = {
        "game": msg.game,
        "trump": msg.trump,
        "objective": objective_name(msg.objective),
        "cards": [_card_json(c) for c in msg.cards],
        "tricks": [{"leader": t.leader, "cards": list(t.cards),
                    "winner": t.winner if t.HasField("winner") else None, "points": t.points} for t in msg.tricks],
        "seats": {seat: _seat_json(getattr(msg.seats, seat.lower())) for seat in SEATS},
    }
    r = msg.result
    actual: dict[str, Any] = {"points": _pair_json(r.actual.points), "tricks": _pair_json(r.actual.tricks)}
    if r.actual.HasField("match_points"):
        actual.update({"match_points": _pair_json(r.actual.match_points), "multiplier": r.actual.multiplier,
                       "capot": r.actual.capot, "tied": r.actual.tied})
    result: dict[str, Any] = {
        "complete": r.complete,
        "actual": actual,
        "double_dummy": {"points": _pair_json(r.double_dummy.points),
                         "match_points": _pair_json(r.double_dummy.match_points), "capot": r.double_dummy.capot},
        "projected": _pair_json(r.projected),
        "dealer": r.dealer,
    }
    if r.pending_doubling:
        result["pending_doubling"] = True
    if r.bonus_rule:
        b = r.dealer_bonus
        result["dealer_bonus"] = ({"card": b.card, "side": b.side, "points": b.points, "rule": b.rule}
                                  if r.HasField("dealer_bonus") else None)
    if r.HasField("penalty"):
        result["penalty"] = {"side": r.penalty.side, "winner": r.penalty.winner, "text": r.penalty.text}
    if r.notes:
        result["notes"] = list(r.notes)
    out["result"] = result
    if msg.HasField("illegal"):
        i = msg.illegal
        out["illegal"] = {"index": i.index, "card": i.card, "seat": i.seat, "rule": i.rule}
    return out


def _card_json(msg: pb.CardAnalysis) -> dict[str, Any]:
    out: dict[str, Any] = {"card": msg.card, "seat": msg.seat, "before": msg.before, "after": msg.after,
                           "cost": msg.cost, "best": list(msg.best), "values": {v.card: v.value for v in msg.values},
                           "deal": _pair_json(msg.deal)}
    if msg.loses_capot:
        out["loses_capot"] = True
    if msg.HasField("single_dummy"):
        sd = msg.single_dummy
        out["single_dummy"] = {"mean": sd.mean, "best_mean": sd.best_mean, "loss": sd.loss, "loss_se": sd.loss_se,
                               "best": list(sd.best), "samples": sd.samples, "verdict": sd.verdict}
    return out


def _seat_json(msg: pb.SeatSummary) -> dict[str, int]:
    return {"cards": msg.cards, "cost": msg.cost, "mistakes": msg.mistakes}


def table_message(table: DDTable) -> pb.DoubleDummyTable:
    """A `DoubleDummyTable` message of the library's `DDTable`, from its `to_json()`."""
    obj = table.to_json()
    msg = pb.DoubleDummyTable(game=obj["game"], nodes=table.nodes)
    _set_hands(msg.hands, obj["hands"])
    if obj["trump"] is not None:
        msg.trump = obj["trump"]
    if obj["dealer"] is not None:
        msg.dealer = obj["dealer"]
    for e in obj["table"]:
        msg.table.add(trump=e["trump"], leader=e["leader"], value=e["value"], ns=e["N-S"], ew=e["E-W"])
    for trump, row in obj["grid"].items():
        msg.grid.add(trump=trump, **{seat.lower(): row[seat] for seat in SEATS})
    for p in obj["par"]:
        msg.par.add(dealer=p["dealer"], side=p["side"], leader=p["leader"], names_trump=p["names_trump"],
                    best=p["best"], score=p["score"], pending_doubling=p.get("pending_doubling", False),
                    choices=[pb.TrumpWorth(trump=c["trump"], points=_pair(c["points"]),
                                           match_points=_pair(c["match_points"]), capot=c["capot"],
                                           dealer_score=c["dealer_score"]) for c in p["choices"]])
    return msg


def table_json(msg: pb.DoubleDummyTable) -> dict[str, Any]:
    """The library's `DDTable.to_json()` of a `DoubleDummyTable` message (`nodes` left out, as there)."""
    par = []
    for p in msg.par:
        item: dict[str, Any] = {
            "dealer": p.dealer, "side": p.side, "leader": p.leader, "names_trump": p.names_trump,
            "best": list(p.best), "score": p.score if p.choices else None,
            "choices": [{"trump": c.trump, "points": _pair_json(c.points), "match_points": _pair_json(c.match_points),
                         "capot": c.capot, "dealer_score": c.dealer_score} for c in p.choices]}
        if p.pending_doubling:
            item["pending_doubling"] = True
        par.append(item)
    return {
        "game": msg.game,
        "hands": _hands_dict(msg.hands),
        "trump": msg.trump if msg.HasField("trump") else None,
        "dealer": msg.dealer if msg.HasField("dealer") else None,
        "table": [{"trump": e.trump, "leader": e.leader, "value": e.value, "N-S": e.ns, "E-W": e.ew}
                  for e in msg.table],
        "grid": {row.trump: {seat: getattr(row, seat.lower()) for seat in SEATS} for row in msg.grid},
        "par": par,
    }


def puzzle_message(puzzle: Puzzle) -> pb.Puzzle:
    """The library's `Puzzle` as a message (its to_json(), field for field)."""
    obj = puzzle.to_json()
    return pb.Puzzle(position=position_message(obj["position"]), goal=obj["goal"], line=obj["line"],
                     alternatives=obj["alternatives"], rating=obj["rating"], tags=obj["tags"])


def puzzle_json(msg: pb.Puzzle) -> dict[str, Any]:
    """A Puzzle message as the library's `Puzzle.to_json()`, `alternatives` in the library's order
    (the least shortfall first, then in card order), which a map does not keep on the wire."""
    position = Position.from_json(position_dict(msg.position))
    profile = position.profile
    alternatives = sorted(msg.alternatives.items(), key=lambda item: (item[1], sort_key(parse_card(item[0], profile))))
    return {"position": position.to_json(), "goal": msg.goal, "line": list(msg.line),
            "alternatives": dict(alternatives), "rating": msg.rating, "tags": list(msg.tags)}


# ---------------------------------------------------------------- single-dummy advice

def view_dict(msg: pb.View) -> dict[str, Any]:
    """The view JSON of a `View` message, for `solver.view.View.from_json` (unset fields left out)."""
    obj: dict[str, Any] = {**_given(msg, "game", "trump", "seat", "leader"), "hand": msg.hand,
                           "play": list(msg.play)}
    for name in ("dealer", "shown"):
        if msg.HasField(name):
            obj[name] = getattr(msg, name)
    return obj


def view_message(view: View | dict[str, Any] | str | bytes) -> pb.View:
    """A `View` message from a library View, the view JSON or its text (values copied as they are)."""
    obj = view.to_json() if isinstance(view, View) else json_object(view, "view", VIEW_KEYS)
    msg = pb.View(game=_field(obj, "game"), trump=_field(obj, "trump"), seat=_field(obj, "seat"),
                  hand=_cards_text(obj.get("hand") or ""), leader=_field(obj, "leader"), play=_texts(obj.get("play")))
    for name in ("dealer", "shown"):
        if obj.get(name) is not None:
            setattr(msg, name, _text(obj[name]))
    return msg


def advice_message(advice: Advice) -> pb.AdviseResponse:
    """The library's `solver.advice.Advice` as a message (its to_json(), field for field)."""
    obj = advice.to_json()
    msg = pb.AdviseResponse(seat=obj["seat"], samples=obj["samples"], best=obj["best"], rejected=obj["rejected"],
                            layouts=obj["layouts"], done=obj["done"])
    if "goal" in obj:
        msg.goal = obj["goal"]
    for c in obj["cards"]:
        msg.cards.add(**c)
    return msg


def advice_json(msg: pb.AdviseResponse) -> dict[str, Any]:
    """An AdviseResponse as the library's `Advice.to_json()`."""
    cards = []
    for c in msg.cards:
        item = {"card": c.card, "mean": c.mean, "sd": c.sd, "se": c.se}
        if c.HasField("goal"):
            item.update(goal=c.goal, goal_se=c.goal_se)
        cards.append(item)
    out: dict[str, Any] = {"seat": msg.seat, "samples": msg.samples, "best": list(msg.best), "cards": cards,
                           "rejected": msg.rejected, "layouts": msg.layouts, "done": msg.done}
    if msg.HasField("goal"):
        out["goal"] = msg.goal
    return out
