"""Puzzle generation: every property of generated and mined puzzles re-checked with a fresh solver,
determinism, the rating formula and each theme tag on hand-made positions, and the command line."""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest

from conftest import PROJECT, played_deal
from solver import IllegalPlay, Position, PositionError, get_profile
from solver.analysis import PlayedDeal
from solver.cards import card_points, parse_card
from solver import puzzles
from solver.puzzles import (TAGS, Puzzle, check_options, check_position, generate, mine, mined_shortfall,
                            natural_cards, pretty, rating_of, shortfall, tags_of)
from solver.solve import Solver

GAMES = ("malilla", "manille")


def hand_made(game: str, trump: str, hands: list[str], leader: str, led: str = "") -> Position:
    """Hands listed in playing order from N (Malilla N W S E, Manille N E S W)."""
    seats = "NWSE" if game == "malilla" else "NESW"
    obj = {"game": game, "trump": trump, "hands": dict(zip(seats, hands)), "leader": leader, "trick": []}
    if game == "malilla":
        obj["led_suits"] = led
    return Position.from_json(obj)


def unique_group(solution, goal: int, margin: int) -> tuple[str, ...]:
    """The one group reaching `goal`, asserting that every other card falls short by >= margin."""
    values = solution.values
    reaching = [g for g in solution.groups if values[g[0]] >= goal]
    assert len(reaching) == 1, (goal, values, solution.groups)
    for g in solution.groups:
        if g is not reaching[0]:
            for c in g:
                assert goal - values[c] >= margin, (c, goal, values)
    return reaching[0]


def recheck(puzzle: Puzzle, margin: int, min_tricks: int, max_tricks: int) -> None:
    """Every promised property, with a solver that never saw the puzzle."""
    solver = Solver(1 << 22)
    data = json.loads(json.dumps(puzzle.to_json()))
    assert set(data) == {"position", "goal", "line", "alternatives", "rating", "tags"}
    position = Position.from_json(data["position"])
    assert position == puzzle.position
    assert not position.trick
    left = position.profile.cards_per_hand - position.tricks_played
    assert min_tricks <= left <= max_tricks
    assert len(data["line"]) == 4 * left
    assert 1 <= data["rating"] <= 10
    assert all(t in TAGS for t in data["tags"])

    root = solver.solve(position, mode="all")
    goal = data["goal"]
    assert root.value == goal
    group = unique_group(root, goal, margin)
    assert data["line"][0] in group
    assert data["alternatives"] == {c: goal - v for c, v in root.values.items() if c not in group}
    assert all(s >= margin for s in data["alternatives"].values())
    assert data["alternatives"], "a puzzle offers a choice"

    side = position.to_move & 1
    need, taken, p = goal, 0, position
    for card in data["line"]:
        assert card in p.legal_moves()
        sol = solver.solve(p, mode="all")
        if (p.to_move & 1) == side:
            assert sol.value == need
            if len(sol.groups) > 1:
                assert card in unique_group(sol, need, margin)
        else:
            assert sol.values[card] == sol.value, "defenders resist best"
        before = p
        p = p.play(card)
        if not p.trick and (p.leader & 1) == side:
            trick = before.trick + (parse_card(card, p.profile),)
            points = sum(card_points(c, p.profile) for c in trick) + p.profile.trick_bonus
            need -= points
            taken += points
    assert p.is_over
    assert taken == goal and need == 0


@pytest.fixture(scope="module", params=GAMES)
def generated(request):
    game = request.param
    return game, list(generate(get_profile(game), 12, seed=11))


def test_generated_puzzles_hold_every_property(generated):
    game, puzzles = generated
    assert len(puzzles) == 12
    for puzzle in puzzles:
        assert puzzle.position.profile.name == game
        recheck(puzzle, margin=3, min_tricks=3, max_tricks=7)


def test_generated_puzzles_spread_and_vary(generated):
    _, puzzles = generated
    assert len({json.dumps(p.to_json()["position"]) for p in puzzles}) == len(puzzles)
    assert len({p.rating for p in puzzles}) >= 3


def test_puzzles_are_equal_and_hash_alike_by_their_answers(generated):
    _, puzzles = generated
    again = [replace(p, alternatives=dict(p.alternatives)) for p in puzzles]
    assert again == puzzles
    assert {hash(p) for p in again} == {hash(p) for p in puzzles}
    assert len(set(puzzles) | set(again)) == len(puzzles)
    changed = replace(puzzles[0], alternatives={**puzzles[0].alternatives, "XX": 0})
    assert changed != puzzles[0]


@pytest.mark.parametrize("game", GAMES)
def test_options_margin_and_tricks(game):
    puzzles = list(generate(get_profile(game), 4, seed=5, min_tricks=4, max_tricks=5, margin=5))
    assert len(puzzles) == 4
    for puzzle in puzzles:
        recheck(puzzle, margin=5, min_tricks=4, max_tricks=5)


@pytest.mark.parametrize("game", GAMES)
def test_deterministic_for_a_seed(game):
    profile = get_profile(game)
    a = [p.to_json() for p in generate(profile, 5, seed=99)]
    b = [p.to_json() for p in generate(profile, 5, seed=99, solver=Solver(1 << 20))]
    c = [p.to_json() for p in generate(profile, 5, seed=100)]
    assert a == b
    assert a != c


def test_bad_options():
    with pytest.raises(ValueError, match="tricks"):
        next(generate(get_profile("manille"), 1, seed=0, min_tricks=5, max_tricks=9))
    with pytest.raises(ValueError, match="margin"):
        next(generate(get_profile("malilla"), 1, seed=0, margin=0))
    with pytest.raises(ValueError, match="count: 0 must be at least 1"):
        next(generate(get_profile("malilla"), 0, seed=0))
    with pytest.raises(ValueError, match="max_attempts: 0 must be at least 1"):
        next(generate(get_profile("malilla"), 1, seed=0, max_attempts=0))
    position = next(iter(generate("manille", 1, seed=0))).position
    for margin, words in ((0, "margin: 0 must be at least 1"), (None, "margin: None is not a whole number"),
                          ("3", "margin: '3' is not a whole number"), (True, "margin: True is not a whole number")):
        with pytest.raises(ValueError, match=words):
            check_position(position, margin=margin)
    with pytest.raises(ValueError, match="^seed: 'x' is not a whole number$"):
        next(generate(get_profile("malilla"), 1, seed="x"))
    with pytest.raises(PositionError) as err:
        next(mine({**played_deal("malilla", 1), "play": [["7S"]]}))
    assert err.value.field == "play"


def test_the_bounds_of_the_options_are_allowed():
    """One number of tricks (min = max) and a margin of every point one trick holds are options that can be met."""
    manille = get_profile("manille")
    assert check_options(2, 2, 1, manille) is None
    assert check_options(1, 1, 20, manille) is None   # four 10s: 20 points
    with pytest.raises(ValueError) as err:
        check_options(1, 1, 21, manille)
    assert str(err.value) == "margin: 21 is more than the 20 points 1 trick of a manille deal can hold: no card " \
                             "falls short by it"


def test_a_shortfall_of_one_attempt_or_one_deal_is_worded_in_the_singular():
    assert shortfall(0, 2, 1, 1) == ("0 of 2 puzzles found in 1 attempt (the limit): a smaller --margin or other "
                                     "--min-tricks and --max-tricks find more")
    assert mined_shortfall(1, 2, 1).startswith("1 of 2 puzzles found in 1 played deal: ")
    assert mined_shortfall(1, 2, 3).startswith("1 of 2 puzzles found in 3 played deals: ")


def test_a_mined_puzzle_may_have_exactly_the_most_tricks_asked_for():
    """Manille deal 1 holds one puzzle, two tricks from the end: mined with 2 tricks as both bounds, it is found."""
    (puzzle,) = mine(played_deal("manille", 1), min_tricks=1, max_tricks=8)
    assert [len(puzzle.position.hand(seat)) for seat in "NESW"] == [2, 2, 2, 2]
    assert [p.to_json() for p in mine(played_deal("manille", 1), min_tricks=2, max_tricks=2)] == [puzzle.to_json()]


def test_an_illegal_card_in_a_mined_deal_names_its_place_in_the_play():
    played = played_deal("malilla", 1)
    play = list(played["play"])
    play[5], play[9] = play[9], play[5]
    with pytest.raises(IllegalPlay) as err:
        next(mine({**played, "play": play}))
    assert err.value.field == "play[5]" and play[5] in err.value.problem


def test_a_card_its_player_does_not_hold_in_a_mined_deal_is_bad_input():
    played = played_deal("malilla", 1)
    play = list(played["play"])
    play[4] = play[6]   # a card of the next trick's players, played twice
    with pytest.raises(PositionError) as err:
        next(mine({**played, "play": play}))
    assert err.value.field == "play[6]" and "appears twice" in err.value.problem
    with pytest.raises(PositionError) as err:
        next(mine({**played, "play": play[:5]}))
    assert err.value.field == "play[4]" and "which" in err.value.problem and not isinstance(err.value, IllegalPlay)


def test_attempts_bounded():
    seen = []
    out = list(generate(get_profile("malilla"), 50, seed=1, max_attempts=20,
                        progress=lambda attempts, found: seen.append((attempts, found))))
    assert len(seen) == 20 and seen[-1] == (20, len(out))


def test_mined_puzzles_lie_on_the_played_deal():
    found, solver = [], Solver(1 << 22)
    for seed in range(200):
        game = GAMES[seed % 2]
        played = played_deal(game, seed)
        positions = [Position.from_json({k: v for k, v in played.items() if k not in ("play", "dealer", "shown")})]
        for card in played["play"]:
            positions.append(positions[-1].play(card))
        for puzzle in mine(played, margin=3, solver=solver):
            assert puzzle.position in positions
            recheck(puzzle, margin=3, min_tricks=3, max_tricks=7)
            found.append(puzzle)
    assert len(found) >= 3
    assert {p.position.profile.name for p in found} == set(GAMES)


def test_each_entry_takes_the_objects_and_the_json_alike():
    """A game's name or its Profile, a Position or its JSON, a PlayedDeal or its JSON."""
    solver = Solver(1 << 22)
    assert [p.to_json() for p in generate("manille", 2, 7, solver=solver)] == \
        [p.to_json() for p in generate(get_profile("manille"), 2, 7, solver=solver)]
    puzzle = next(iter(generate("malilla", 1, 3, solver=solver)))
    assert check_position(puzzle.position.to_json(), solver=solver) == check_position(puzzle.position, solver=solver)
    played = next(d for d in (played_deal("manille", s) for s in range(200)) if list(mine(d, solver=solver)))
    assert [p.to_json() for p in mine(PlayedDeal.from_json(played), solver=solver)] == \
        [p.to_json() for p in mine(played, solver=solver)]


class Counting:
    """A node counter that keeps what it was asked: a stand-in for the service's, which keeps a budget."""

    def __init__(self) -> None:
        self.solver = Solver(puzzles.NODE_MEMORY)
        self.calls: list[tuple[str, int]] = []

    def clear(self) -> None:
        self.calls.append(("clear", 0))
        self.solver.clear()

    def solve(self, position, mode="all", objective="points", target=None, timeout=None):
        solution = self.solver.solve(position, mode, objective, target, timeout)
        self.calls.append(("solve", solution.nodes))
        return solution


def test_the_node_counts_come_from_the_node_solver_given():
    """Each puzzle's count is one search of the node solver given, from a cleared table, and
    the puzzles are those of the default counter."""
    solver = Solver(1 << 22)
    played = next(d for d in (played_deal("malilla", s) for s in range(200)) if list(mine(d, solver=solver)))
    runs = {
        "generate": lambda counter: list(generate("manille", 3, 11, solver=solver, node_solver=counter)),
        "mine": lambda counter: list(mine(played, solver=solver, node_solver=counter)),
    }
    for name, run in runs.items():
        counter = Counting()
        found = run(counter)
        assert [p.to_json() for p in found] == [p.to_json() for p in run(None)], name
        assert counter.calls == [c for p in found for c in (("clear", 0), ("solve", p.nodes))], name
    counter = Counting()
    puzzle = check_position(found[0].position, solver=solver, node_solver=counter)
    assert puzzle == found[0] and counter.calls == [("clear", 0), ("solve", puzzle.nodes)]


# ------------------------------------------------------------------ rating


def test_rating_formula():
    none = {"highest": False, "greedy": False, "cheapest": False}
    assert rating_of(1, none, 10) == 1
    assert rating_of(1, none, 1000) == 1
    # raw = 2 (only-moves beyond the first) + 2 (highest) + log2(8) = 7 -> 1 + round(5.25)
    assert rating_of(3, {**none, "highest": True}, 8000) == 6
    # raw = 0 + 2 + 2 + 1 + 0 = 5 -> 1 + round(3.75)
    assert rating_of(1, {"highest": True, "greedy": True, "cheapest": True}, 100) == 5
    assert rating_of(20, {"highest": True, "greedy": True, "cheapest": True}, 10**9) == 10
    ratings = [rating_of(n, none, 1000) for n in range(1, 14)]
    assert ratings == sorted(ratings) and ratings[0] == 1 and ratings[-1] == 10


def test_natural_cards():
    # Malilla, spades trump, N to follow E's QH: N holds KH 2H 3S -> must beat with KH
    p = Position.from_json({"game": "malilla", "trump": "S", "hands": {"N": "KH 2H 3S", "W": "5H 6H 7D",
                            "S": "4H 5S AD", "E": "6D 4S"}, "leader": "E", "trick": ["QH"], "led_suits": "H"})
    assert natural_cards(p) == {"highest": "KH", "greedy": "KH", "cheapest": "KH"}
    lead = hand_made("malilla", "D", ["KH 3S 2D", "AH 2H 3D", "4H 5S 4D", "6H 4S 5D"], "N")
    assert natural_cards(lead) == {"highest": "2D", "greedy": "KH", "cheapest": "3S"}
    follow = lead.play("KH")   # W holds AH 2H: must beat
    assert natural_cards(follow) == {"highest": "AH", "greedy": "AH", "cheapest": "AH"}
    assert natural_cards(follow.to_json()) == natural_cards(follow)   # as check_position, the JSON too
    after = follow.play("AH")  # S: partner N lost the lead to AH; S follows with 4H
    assert natural_cards(after)["cheapest"] == "4H"


def test_natural_cards_that_tie_are_taken_in_suit_order():
    """N leads holding KC 2C KH 2H, no trump: the kings tie for the highest and the greedy card, the
    twos for the lowest; spades, hearts, diamonds, clubs is the order that settles each tie."""
    lead = hand_made("malilla", "D", ["KC 2C KH 2H", "AH 3H 4D 5D", "AC 3C 4S 5S", "QS 6S 6H 6C"], "N")
    assert natural_cards(lead) == {"highest": "KH", "greedy": "KH", "cheapest": "2H"}


def test_rating_on_hand_made_position():
    # W must beat N's KH with AH; N's 3S lead keeps the king: one only-move; the highest card and the
    # greedy card (KH) fail, the cheapest (on lead: the lowest, 3S) succeeds
    p = hand_made("malilla", "D", ["KH 3S", "AH 2H", "4H 5S", "6H 4S"], "N")
    puzzle = check_position(p, margin=1, solver=Solver(1 << 20))
    assert puzzle is not None
    assert puzzle.goal == 1 and puzzle.line[0] == "3S" and puzzle.alternatives == {"KH": 1}
    fails = {name: card != "3S" for name, card in natural_cards(p).items()}
    assert fails == {"highest": True, "greedy": True, "cheapest": False}
    assert puzzle.nodes < 1000
    assert puzzle.rating == rating_of(1, fails, puzzle.nodes) == 4   # raw 0 + 2 + 2 -> 1 + round(3)
    recheck(puzzle, margin=1, min_tricks=2, max_tricks=2)
    assert check_position(p, margin=2) is None   # KH falls short by 1 only


def test_the_default_node_solver_is_made_for_a_puzzle_only(monkeypatch):
    """A position that is no puzzle is never counted, so it costs no 16 MiB solver."""
    solver = Solver(1 << 20)
    made: list[int] = []

    class Tracked(Solver):
        def __init__(self, memory, *args, **kwargs) -> None:
            super().__init__(memory, *args, **kwargs)
            made.append(memory)

    monkeypatch.setattr(puzzles, "Solver", Tracked)
    p = hand_made("malilla", "D", ["KH 3S", "AH 2H", "4H 5S", "6H 4S"], "N")
    assert check_position(p, margin=2, solver=solver) is None and made == []
    assert check_position(p, margin=1, solver=solver) is not None and made == [puzzles.NODE_MEMORY]


def test_no_puzzle_without_a_choice():
    p = hand_made("malilla", "D", ["KH", "AH", "4H", "6H"], "N")
    assert check_position(p) is None


# ------------------------------------------------------------------ tags


TAG_CASES = {
    # W may not discard 7C (clubs never led): seven protection
    "seven-protection": (("malilla", "S", ["2H 4H", "7C 3D", "5H 6H", "AH KH"], "N"),
                         "2H 3D 5H AH KH 4H 7C 6H"),
    # W (a defender) holding AH 2H must beat N's KH
    "forced-overtake": (("malilla", "D", ["KH 3S", "AH 2H", "4H 5S", "6H 4S"], "N"),
                        "KH AH 4H 6H 2H 5S 4S 3S"),
    # S overtrumps W's 3S with 4S; E, a defender holding 5S 6D, must overtrump with 5S
    "overtrump": (("malilla", "S", ["2H 3H", "3S QD", "4S 4D", "5S 6D"], "N"),
                  "2H 3S 4S 5S 6D 3H QD 4D"),
    # Manille: E trumps N's AS with 9H; S holds 7H 9C and may not undertrump
    "undertrump-ban": (("manille", "H", ["AS QD", "9H 8C", "7H 9C", "KS JD"], "N"),
                       "AS 9H 9C KS 8C 7H JD QD"),
    # W wins the first trick and must lead a king into S's trumps
    "throw-in": (("malilla", "S", ["2C 2H 2D", "AC KH KD", "3C 7S 6S", "4C 3H 3D"], "N"),
                 "2C AC 3C 4C KH 6S 3H 2H 7S 3D 2D KD"),
    # W keeps the protected 7H through the discard and loses it to N's trump
    "seven-squeeze": (("malilla", "S", ["AD 2S", "2C 7H", "3D 4D", "5D 6D"], "N"),
                      "AD 2C 3D 5D 2S 7H 4D 6D"),
}


@pytest.mark.parametrize("tag", TAGS)
def test_each_tag_on_a_hand_made_position(tag):
    args, line = TAG_CASES[tag]
    p = hand_made(*args)
    tags = tags_of(p, line.split(), Solver(1 << 20))
    assert tag in tags
    expected = {tag} | ({"seven-protection"} if tag == "seven-squeeze" else set())
    assert set(tags) == expected
    assert tags_of(p.to_json(), line.split(), Solver(1 << 20)) == tags   # the position JSON too


def test_tags_need_a_defender_or_a_real_restriction():
    # S (the solving side) must overtrump, E's trumps are all higher: no defender was restricted
    p = hand_made("malilla", "S", ["2H 3H", "3S QD", "4S 4D", "5S 6S"], "N")
    assert tags_of(p, "2H 3S 4S 5S 6S 3H QD 4D".split(), Solver(1 << 20)) == ()
    # a defender on lead with one card only is no throw-in; without a solver no throw-in is looked for
    args, line = TAG_CASES["throw-in"]
    assert tags_of(hand_made(*args), line.split()) == ()
    # W cannot follow but trumps (no discard), then loses the seven it kept: no seven-squeeze
    p = hand_made("malilla", "S", ["AD 2S", "3S 7H", "3D 4D", "5D 6D"], "N")
    assert tags_of(p, "AD 3S 3D 5D 7H 4D 6D 2S".split(), Solver(1 << 20)) == ()
    # following suit freely: nothing
    p = hand_made("malilla", "D", ["KH 3S", "2H QH", "4H 5S", "6H 4S"], "N")
    assert tags_of(p, "KH 2H 4H 6H 3S QH 5S 4S".split(), Solver(1 << 20)) == ()


# ------------------------------------------------------------------ output


def test_to_json_and_pretty(generated):
    _, puzzles = generated
    puzzle = puzzles[0]
    text = pretty(puzzle)
    assert f"Rating {puzzle.rating}/10" in text
    assert f"at least {puzzle.goal}" in text
    assert puzzle.line[0] in text
    assert Position.from_json(puzzle.to_json()["position"]) == puzzle.position


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver.cli", "puzzles", *args], input=stdin,
                          capture_output=True, text=True, cwd=PROJECT, timeout=120)


@pytest.mark.parametrize("threads", ["1", "2"])
def test_cli_json_lines_match_the_library(threads):
    """The command's puzzles are the library's on one thread, with its searches on one thread or two."""
    out = run_cli("--game", "manille", "--count", "3", "--seed", "4", "--threads", threads)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines == [p.to_json() for p in generate(get_profile("manille"), 3, seed=4)]


def test_cli_says_when_the_attempts_ran_out():
    out = run_cli("--count", "1", "--margin", "60")
    assert out.returncode == 0 and out.stdout == ""
    assert out.stderr.strip() == ("malilla-dd puzzles: 0 of 1 puzzles found in 2000 attempts (the limit, 2000 a "
                                  "puzzle): a smaller --margin or other --min-tricks and --max-tricks find more")
    assert run_cli("--count", "2", "--seed", "4").stderr == ""
    out = run_cli("--count", "3", "--margin", "60", "--max-attempts", "7", "--progress")
    assert out.returncode == 0 and out.stdout == ""
    assert "7/7" in out.stderr and "found=0" in out.stderr   # the progress bar of the attempts
    assert out.stderr.strip().splitlines()[-1] == ("malilla-dd puzzles: 0 of 3 puzzles found in 7 attempts (the "
                                                   "limit): a smaller --margin or other --min-tricks and "
                                                   "--max-tricks find more")


def test_cli_pretty_and_from(tmp_path):
    out = run_cli("--game", "malilla", "--count", "2", "--seed", "4", "--pretty", "--min-tricks", "3",
                  "--max-tricks", "4")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("Rating ") == 2 and "Solution:" in out.stdout
    deals = [played_deal(GAMES[s % 2], s) for s in range(40)]
    source = tmp_path / "played.jsonl"
    source.write_text("".join(json.dumps(d) + "\n" for d in deals) + "{\"game\": \"nope\"}\n")
    out = run_cli("--from", str(source), "--count", "1000")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    solver = Solver(1 << 22)
    expected = [p.to_json() for d in deals for p in mine(d, solver=solver)]
    assert lines[:-1] == expected and expected
    assert "error" in lines[-1] and "game" in lines[-1]["error"]
    # the deals ran out first: stderr says how many were found, the bad line not counted as a deal
    assert out.stderr.strip() == (f"malilla-dd puzzles: {len(expected)} of 1000 puzzles found in 40 played deals: "
                                  "a smaller --margin or other --min-tricks and --max-tricks find more")
    assert run_cli("--from", str(source), "--count", "1").stderr == ""   # one found: the input is left
    out = run_cli("--min-tricks", "9", "--max-tricks", "2")
    assert out.returncode == 2 and "tricks" in out.stderr


def test_cli_from_refuses_a_progress_bar_of_attempts(tmp_path):
    """Played deals are mined, not attempted: --progress would show nothing, so it is refused."""
    source = tmp_path / "played.jsonl"
    source.write_text(json.dumps(played_deal("manille", 1)) + "\n")
    out = run_cli("--from", str(source), "--progress")
    assert out.returncode == 2 and out.stdout == ""
    assert "--progress: no effect with --from FILE" in out.stderr


def test_cli_from_refuses_more_tricks_than_any_deal_has(tmp_path):
    """No line of either game could be mined: the option is refused before any is read."""
    source = tmp_path / "played.jsonl"
    source.write_text(json.dumps(played_deal("malilla", 1)) + "\n")
    out = run_cli("--from", str(source), "--max-tricks", "11")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.splitlines()[-1] == ("malilla-dd puzzles: error: --max-tricks: 11 is more than the 10 "
                                           "tricks of a malilla deal")
    out = run_cli("--game", "manille", "--max-tricks", "9")   # random deals: of the game asked for
    assert out.returncode == 2
    assert out.stderr.splitlines()[-1].endswith("--max-tricks: 9 is more than the 8 tricks of a manille deal")


def test_cli_from_answers_a_bad_deal_and_goes_on(tmp_path):
    """A played deal that cannot be read gets its error line, and the deals after it are still mined."""
    deals = [played_deal(GAMES[s % 2], s) for s in range(20)]
    bad = [{**deals[0], "play": 7}, {**deals[0], "play": [["7S"]]}, {**deals[0], "play": ["ZZ"]},
           {**deals[0], "dealer": "X"}, [1, 2]]
    source = tmp_path / "played.jsonl"
    source.write_text("".join(json.dumps(d) + "\n" for d in bad + deals))
    out = run_cli("--from", str(source), "--count", "1000")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["error"].split(":")[0] for line in lines[:5]] == ["play", "play", "play[0]", "dealer", "deal"]
    expected = [p.to_json() for d in deals for p in mine(d, solver=Solver(1 << 22))]
    assert lines[5:] == expected and expected
    pretty_out = run_cli("--from", str(source), "--count", "1", "--pretty")
    assert pretty_out.stdout.split("\n\n")[:5] == [f"error: {line['error']}" for line in lines[:5]]
