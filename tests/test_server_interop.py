"""Interoperability: a client that is not ours (Node's @grpc/grpc-js with
@grpc/proto-loader, tests/interop/client.js) calls the service.

The Node packages are installed by .ci/run (`npm ci --prefix tests/interop`);
without node or the packages this test fails, it does not skip.
"""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from conftest import PROJECT
from server_fixtures import full_deal, played_deal, running_server, strip, vector_positions
from solver import Position
from solver.analysis import analyze
from solver.solve import Solver
from solver.table import table_of

INTEROP = PROJECT / "tests" / "interop"
PROTO = PROJECT / "proto" / "malilla" / "dd" / "v1" / "double_dummy.proto"


def node_client(port: int, calls: list[dict]) -> list[dict]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: the interop test needs Node.js (and npm ci --prefix tests/interop)")
    for package in ("@grpc/grpc-js", "@grpc/proto-loader", "protobufjs"):
        if not (INTEROP / "node_modules" / package / "package.json").is_file():
            pytest.fail(f"{package} is missing: run `npm ci --prefix tests/interop` (as .ci/run does)")
    proc = subprocess.run([node, str(INTEROP / "client.js"), str(port), str(PROTO)], input=json.dumps(calls),
                          capture_output=True, text=True, timeout=60, cwd=INTEROP)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == len(calls), proc.stdout
    return lines


def test_node_client():
    position = strip(vector_positions("endgames6", 2)[1])   # a Malilla endgame
    expected = Solver(1 << 20).solve(Position.from_json(position))
    request = {"position": {"game": position["game"], "trump": position["trump"],
                            "hands": {k.lower(): v for k, v in position["hands"].items()},
                            "leader": position["leader"], "trick": position["trick"],
                            "led_suits": position["led_suits"]},
               "mode": "MODE_ALL", "id": "node-1"}
    bad = json.loads(json.dumps(request))
    bad["position"]["hands"]["e"] += " " + position["hands"]["N"].split()[0]   # a card held twice
    calls = [
        {"method": "Solve", "request": request},
        {"method": "Solve", "request": bad},
        {"method": "LegalMoves", "request": {"position": request["position"]}},
        {"method": "SolveStream", "requests": [dict(request, id="s1"), dict(bad, id="s2"), dict(request, id="s3")]},
        {"method": "Solve", "request": dict(request, mode="MODE_TARGET")},
        {"method": "Perft", "request": {"position": request["position"], "depth": 5}},
        {"method": "Perft", "request": {"position": request["position"], "depth": 24}},
    ]
    with running_server(workers=2) as server:
        solved, refused, legal, streamed, no_target, counted, too_deep = node_client(server.port, calls)

    assert solved["ok"], solved
    answer = solved["response"]
    assert answer["id"] == "node-1" and answer["result"] == "solution"
    solution = answer["solution"]
    assert solution["value"] == expected.value
    assert {c["card"]: (c["value"], c["margin"]) for c in solution["cards"]} == \
        {c.card: (c.value, c.margin) for c in expected.cards}
    assert solution["best"] == expected.best and solution["line"][0] in expected.best
    assert solution["mode"] == "MODE_ALL" and solution["side"] == expected.side and int(solution["nodes"]) > 0

    first_north = position["hands"]["N"].split()[0]
    assert not refused["ok"]
    assert refused["code_name"] == "INVALID_ARGUMENT"
    assert refused["status"]["code"] == 3
    assert refused["status"]["violations"] == [["position.hands.e", f"{first_north} appears twice (also in hands.N)"]]
    assert refused["details"] == f"position.hands.e: {first_north} appears twice (also in hands.N)"

    assert legal["ok"] and legal["response"]["legal"] == Position.from_json(position).legal_moves()

    assert streamed["ok"]
    items = streamed["responses"]
    assert [r["id"] for r in items] == ["s1", "s2", "s3"]
    assert [r["result"] for r in items] == ["solution", "error", "solution"]
    assert items[1]["error"]["field_violations"][0]["field"] == "position.hands.e"
    assert items[2]["solution"]["value"] == expected.value

    assert not no_target["ok"] and no_target["status"]["violations"] == [["target", "MODE_TARGET needs a target"]]

    expected_count = Solver(1 << 20).perft(position, 5)
    assert counted["ok"], counted
    assert counted["response"]["depth"] == 5 and int(counted["response"]["total"]) == expected_count.total
    assert {c["card"]: int(c["count"]) for c in counted["response"]["cards"]} == expected_count.cards
    assert not too_deep["ok"] and too_deep["status"]["violations"] == \
        [["depth", "24 is more than the 23 cards left to play"]]


def test_node_client_table_and_analysis():
    deal = full_deal("manille", 5)
    played = played_deal("manille", 2, cards=6)
    expected_table = table_of(deal, Solver(1 << 22))
    expected_analysis = analyze(played, Solver(1 << 22))
    hands = {k.lower(): v for k, v in deal["hands"].items()}
    calls = [
        {"method": "Table", "request": {"deal": {"game": "manille", "hands": hands, "leader": deal["leader"]}}},
        {"method": "AnalyzePlay", "request": {"deal": {
            "game": "manille", "trump": played["trump"], "hands": {k.lower(): v for k, v in played["hands"].items()},
            "leader": played["leader"], "dealer": played["dealer"], "play": played["play"]}}},
        {"method": "Table", "request": {"deal": {"game": "manille", "hands": dict(hands, n="")}}},
    ]
    with running_server(workers=2) as server:
        table, analysis, refused = node_client(server.port, calls)

    assert table["ok"], table
    entries = table["response"]["table"]["table"]
    assert len(entries) == 20   # 5 trumps x 4 leaders
    assert {(e["trump"], e["leader"], e["value"], e["ns"], e["ew"]) for e in entries} == \
        {(e.trump, e.leader, e.value, e.ns, e.ew) for e in expected_table.entries}
    [par] = table["response"]["table"]["par"]
    assert par["dealer"] == expected_table.par[0].dealer and par["best"] == list(expected_table.par[0].best)

    assert analysis["ok"], analysis
    cards = analysis["response"]["analysis"]["cards"]
    assert [(c["card"], c["seat"], c["before"], c["after"], c["cost"]) for c in cards] == \
        [(c.card, c.seat, c.before, c.after, c.cost) for c in expected_analysis.cards]

    assert not refused["ok"] and refused["code_name"] == "INVALID_ARGUMENT"
    assert refused["status"]["violations"][0][0] == "deal.hands"
