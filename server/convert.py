"""Translations between the proto messages and the library's objects.

No game logic here: a `Position` message becomes the position JSON (a dict)
that `solver.Position.from_json` reads and checks, and a `solver.solve.Solution`
becomes a `Solution` message field for field. The client uses the reverse
directions.
"""
from __future__ import annotations

import json
import re
from typing import Any

from solver.cards import SEATS
from solver.position import Position
from solver.solve import CardValue, Solution

from ._proto import pb

__all__ = ["MODES", "OBJECTIVES", "mode_name", "objective_name", "position_dict", "position_message",
           "solution_message", "solution_from_message", "field_path"]

MODES = {"all": pb.MODE_ALL, "optimal": pb.MODE_OPTIMAL, "best": pb.MODE_BEST, "target": pb.MODE_TARGET}
OBJECTIVES = {"points": pb.OBJECTIVE_POINTS, "score": pb.OBJECTIVE_SCORE}
_MODE_NAMES = {v: k for k, v in MODES.items()} | {pb.MODE_UNSPECIFIED: "all"}
_OBJECTIVE_NAMES = {v: k for k, v in OBJECTIVES.items()} | {pb.OBJECTIVE_UNSPECIFIED: "points"}


def mode_name(value: int) -> str:
    """The library's mode for a `Mode` value (ValueError for a number the proto does not define)."""
    try:
        return _MODE_NAMES[value]
    except KeyError:
        raise ValueError(f"{value} is not a Mode (MODE_ALL, MODE_OPTIMAL, MODE_BEST or MODE_TARGET)") from None


def objective_name(value: int) -> str:
    try:
        return _OBJECTIVE_NAMES[value]
    except KeyError:
        raise ValueError(f"{value} is not an Objective (OBJECTIVE_POINTS or OBJECTIVE_SCORE)") from None


# ---------------------------------------------------------------- positions

def position_dict(msg: pb.Position) -> dict[str, Any]:
    """The position JSON of a `Position` message, for `Position.from_json`.

    Unset message fields are left out, so the library reports them as missing;
    unset optional strings (`led_suits`, `to_move`) are absent as in the JSON.
    """
    obj: dict[str, Any] = {"game": msg.game, "trump": msg.trump, "leader": msg.leader,
                           "trick": list(msg.trick)}
    if msg.HasField("hands"):
        obj["hands"] = {seat: getattr(msg.hands, seat.lower()) for seat in SEATS}
    if msg.HasField("led_suits"):
        obj["led_suits"] = msg.led_suits
    if msg.HasField("to_move"):
        obj["to_move"] = msg.to_move
    if msg.HasField("history"):
        obj["history"] = [list(t.cards) for t in msg.history.tricks]
    return obj


def _cards_text(value: Any) -> str:
    return value if isinstance(value, str) else " ".join(value)


def position_message(position: Position | dict[str, Any] | str) -> pb.Position:
    """A `Position` message from a `Position`, the position JSON, or its text.

    The values are copied as they are (the server checks them).
    """
    if isinstance(position, Position):
        obj = position.to_json()
    elif isinstance(position, (str, bytes)):
        obj = json.loads(position)
    else:
        obj = position
    msg = pb.Position(game=obj.get("game") or "", trump=obj.get("trump") or "",
                      leader=obj.get("leader") or "", trick=list(obj.get("trick") or []))
    hands = obj.get("hands")
    if isinstance(hands, dict):
        upper = {str(k).upper(): v for k, v in hands.items()}
        msg.hands.SetInParent()
        for seat in SEATS:
            if seat in upper:
                setattr(msg.hands, seat.lower(), _cards_text(upper[seat]))
    if obj.get("led_suits") is not None:
        msg.led_suits = obj["led_suits"]
    if obj.get("to_move") is not None:
        msg.to_move = obj["to_move"]
    if obj.get("history") is not None:
        msg.history.SetInParent()
        for trick in obj["history"]:
            msg.history.tricks.add(cards=trick.split() if isinstance(trick, str) else list(trick))
    return msg


_HAND = re.compile(r"hands\.([NESW])")
_HISTORY_CARD = re.compile(r"history\[(\d+)\]\[(\d+)\]")
_HISTORY_TRICK = re.compile(r"history\[(\d+)\]")


def field_path(field: str, prefix: str = "position") -> str:
    """The request field path of a `PositionError.field` (``hands.E`` -> ``position.hands.e``)."""
    if field == "position":
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
