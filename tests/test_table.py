"""What-if tables and par: against the vectors, fresh searches and the scoring rules."""
from __future__ import annotations

import dataclasses
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import CountingSolver, capot_thrown, load_vectors, played_deal, start_of
from solver import MALILLA, MANILLE, Position, PositionError, get_profile
from solver.cards import SEATS
from solver.cards import trump_choices
from solver.deal import deal
from solver.scoring import deal_multiplier
from solver.solve import Solver
from solver.table import dd_table, read_table_input, table_of, table_trumps

SMALL = 1 << 22


def seeded(game: str, seed: int, dealer: int) -> dict:
    return deal(get_profile(game), seed=seed, dealer=dealer).to_position_json()


@pytest.fixture(scope="module")
def manille_capot_table():
    """A Manille deal where N-S make a capot under some trumps (dealer W, so N leads)."""
    return table_of(seeded("manille", 103, 3), Solver())


class TestTable:
    @pytest.mark.parametrize("obj", [played_deal("malilla", 4), capot_thrown()], ids=["malilla", "manille-capot"])
    def test_nodes_count_every_search_of_the_table_and_par(self, obj: dict) -> None:
        solver = CountingSolver(SMALL)
        table = table_of(start_of(obj), solver)
        assert table.nodes == solver.searched > 0

    @pytest.mark.parametrize("index", range(12))
    def test_the_vectors_cell_is_the_vector_value(self, index: int) -> None:
        line = load_vectors("full")[index]
        values = line.pop("values")
        table = table_of(line, Solver())
        cell = table.entry(line["trump"], line["leader"])
        assert cell.value == max(values.values())
        ns = cell.value if SEATS.index(line["leader"]) % 2 == 0 else table.profile.total_points - cell.value
        assert table.grid()[line["trump"]][line["leader"]] == ns == cell.ns

    @pytest.mark.parametrize("game,trumps", [("malilla", "SHDC"), ("manille", ["S", "H", "D", "C", "NT"])])
    def test_every_trump_and_leader_against_fresh_searches(self, game: str, trumps) -> None:
        obj = seeded(game, 7 if game == "malilla" else 5, 1)
        table = table_of(obj, Solver())
        assert table.trumps == tuple(trumps)
        assert len(table.entries) == 4 * len(trumps)
        total = table.profile.total_points
        for e in table.entries:
            variant = {**obj, "trump": e.trump, "leader": e.leader, "to_move": e.leader}
            fresh = Solver(SMALL).solve(Position.from_json(variant), mode="best").value
            assert e.value == fresh
            assert e.ns + e.ew == total
            assert e.ns == (fresh if SEATS.index(e.leader) % 2 == 0 else total - fresh)

    def test_json_and_pretty(self) -> None:
        table = table_of(seeded("manille", 5, 1), Solver())
        out = json.loads(json.dumps(table.to_json()))
        assert out["game"] == "manille" and out["dealer"] == "E" and out["trump"] == table.position.trump
        assert {(c["trump"], c["leader"]) for c in out["table"]} == \
            {(t, s) for t in ["S", "H", "D", "C", "NT"] for s in SEATS}
        assert out["grid"]["NT"]["W"] == table.entry("NT", "W").ns
        text = table.pretty()
        row = next(line for line in text.splitlines() if line.startswith("NT "))
        assert row.split()[1:] == [str(table.entry("NT", s).ns) for s in SEATS]
        assert "lead N" in text and "Par, dealer E" in text


class TestParManille:
    def test_each_choice_is_the_deal_score_search(self, manille_capot_table) -> None:
        table = manille_capot_table
        (par,) = table.par
        assert (par.dealer, par.leader, par.names_trump, par.side) == ("W", "N", True, "E-W")
        start = Position.from_json(seeded("manille", 103, 3))
        for choice in par.choices:
            variant = Position.from_json({**start.to_json(), "trump": choice.trump})
            signed = Solver(SMALL).solve(variant, mode="best", objective="score").value   # N leads: N-S's score
            assert choice.dealer_score == -signed
            assert choice.points == (table.entry(choice.trump, "N").ns, table.entry(choice.trump, "N").ew)
        assert par.score == max(c.dealer_score for c in par.choices)
        assert set(par.best) == {c.trump for c in par.choices if c.dealer_score == par.score}

    def test_the_par_of_each_dealer_is_its_best_choice_the_last_included(self) -> None:
        """Without a dealer, par is read from every seat's chair; each one's score is the best of
        its choices, no-trump, the last of them, included: here it is N's and S's par."""
        obj = {k: v for k, v in seeded("manille", 103, 3).items() if k not in ("trump", "leader", "to_move", "dealer")}
        table = table_of(obj, Solver())
        for par in table.par:
            assert par.score == max(c.dealer_score for c in par.choices)
            assert par.best == tuple(c.trump for c in par.choices if c.dealer_score == par.score)
        assert [par.best for par in table.par if par.dealer in "NS"] == [("NT",), ("NT",)]

    def test_multipliers(self, manille_capot_table) -> None:
        (par,) = manille_capot_table.par
        capots = [c for c in par.choices if c.capot]
        assert {c.trump for c in capots} >= {"D", "NT"}
        for c in par.choices:
            winner = 0 if c.points[0] > 30 else 1
            if c.capot:   # 60 points, every trick: 30 x2, and x2 again at no-trump
                assert c.score[winner] == 30 * 2 * deal_multiplier(MANILLE, c.trump)
            elif c.points[0] != 30:
                assert c.score[winner] == (c.points[winner] - 30) * deal_multiplier(MANILLE, c.trump)
            assert c.score[1 - winner] == 0
        nt = par.worth("NT")
        assert nt.score[0] == 120

    def test_a_position_at_the_first_lead_is_read_as_its_json(self) -> None:
        position = Position.from_json(deal("manille", 3).to_position_json())
        assert table_of(position, Solver(1 << 20)).to_json() == table_of(position.to_json(), Solver(1 << 20)).to_json()

    def test_a_cell_or_choice_it_lacks_is_a_key_error(self, manille_capot_table) -> None:
        """Not StopIteration, which a generator or map() around the lookup would swallow."""
        (par,) = manille_capot_table.par
        with pytest.raises(KeyError, match="no cell for trump 'X' and leader 'N'"):
            manille_capot_table.entry("X", "N")
        with pytest.raises(KeyError):
            manille_capot_table.entry("S", 0)
        with pytest.raises(KeyError, match="trump: 'X' is not one of"):
            par.worth("X")
        with pytest.raises(KeyError):
            list(map(lambda t: manille_capot_table.entry(t, "X"), manille_capot_table.trumps))

    def test_pending_doubling_doubles_every_choice(self, manille_capot_table) -> None:
        position, _, dealers = read_table_input({**seeded("manille", 103, 3), "pending_doubling": True})
        doubled = dd_table(position, Solver(), dealers)
        (plain,), (twice,) = manille_capot_table.par, doubled.par
        assert twice.pending_doubling
        assert [c.dealer_score * 2 for c in plain.choices] == [c.dealer_score for c in twice.choices]
        assert "x2: the previous deal was tied" in doubled.pretty()


class TestParMalilla:
    def test_worth_under_each_trump(self) -> None:
        obj = seeded("malilla", 7, 2)   # dealer S: E leads (counterclockwise)
        table = table_of(obj, Solver())
        (par,) = table.par
        assert (par.dealer, par.leader, par.names_trump) == ("S", "E", False)
        assert [c.trump for c in par.choices] == ["S", "H", "D", "C"]
        for c in par.choices:
            assert c.points == (table.entry(c.trump, "E").ns, table.entry(c.trump, "E").ew)
            winner = 0 if c.points[0] > 35 else 1
            assert c.score[winner] == max(0, c.points[winner] - 35) and c.score[1 - winner] == 0
            assert c.capot == (max(c.points) == 70)
            assert c.dealer_score == c.score[0] - c.score[1]   # S deals: N-S
        assert "the shown card fixes trump" in table.pretty() and "(this deal)" in table.pretty()


class TestInput:
    def test_the_par_dealer_defaults_to_the_seat_before_the_leader(self) -> None:
        """Manille is dealt clockwise: S deals, so W leads and S is the par's dealer when none is given."""
        position = Position.from_json(seeded("manille", 3, 2))
        assert SEATS[position.leader] == "W"
        assert [par.dealer for par in dd_table(position, Solver(SMALL)).par] == ["S"]

    def test_a_position_after_whole_tricks_is_refused_naming_its_history(self) -> None:
        """After a completed trick nothing is in progress: the history is the field that shows the play."""
        position = Position.from_json(seeded("manille", 3, 2))
        for _ in range(4):
            position = position.play(position.legal_moves()[0])
        assert position.trick == () and len(position.history) == 1
        with pytest.raises(PositionError) as err:
            dd_table(position, Solver(SMALL))
        assert (err.value.field, err.value.problem) == ("history", "a table needs a full deal: four full hands "
                                                                   "and no card played")

    def test_trump_and_leader_are_optional(self) -> None:
        obj = seeded("malilla", 2, 0)
        bare = {k: v for k, v in obj.items() if k not in ("trump", "leader", "to_move", "dealer")}
        position, trump, dealers = read_table_input(bare)
        assert trump is None and dealers == (0, 1, 2, 3) and position.pending_doubling is False
        table = table_of(json.dumps(bare), Solver())
        assert table.trump is None and table.dealer is None and len(table.par) == 4
        full = table_of(obj, Solver())
        assert full.entries == table.entries
        assert full.par[0] == table.par[0]   # dealer N
        assert [p.dealer for p in table.par] == list(SEATS)

    @pytest.mark.parametrize("dealers, error", [
        ((), "dealers: empty"),
        ([0], "dealers: [0] is not a tuple"),
        ((4,), "dealers[0]: "),
        ((1, 3, 1), "dealers[2]: E is given twice"),
    ])
    def test_bad_dealers_are_refused(self, dealers, error) -> None:
        position = Position.from_json(seeded("manille", 1, 0))
        with pytest.raises(ValueError, match=re.escape(error)):
            dd_table(position, Solver(), dealers)

    @pytest.mark.parametrize("fields, field", [
        (dict(leader=4), "leader"), (dict(profile=None), "game"), (dict(hands=(1, 2, 4)), "hands"),
    ])
    def test_a_position_built_with_a_bad_field_is_refused_by_name(self, fields, field) -> None:
        """As `Solver.solve` refuses it, not an error from inside."""
        position = dataclasses.replace(Position.from_json(seeded("manille", 1, 0)), **fields)
        for call in (dd_table, table_of):
            with pytest.raises(PositionError) as err:
                call(position, Solver(), trumps=["S"])
            assert err.value.field == field

    def test_a_table_of_something_else_than_a_position_is_refused(self) -> None:
        with pytest.raises(ValueError, match="^position: .* is not a Position$"):
            dd_table(seeded("manille", 1, 0), Solver())   # its JSON goes to table_of

    def test_dealer_from_the_leader_or_given(self) -> None:
        obj = seeded("manille", 3, 2)
        assert read_table_input({k: v for k, v in obj.items() if k != "dealer"})[2] == (2,)
        no_leader = {k: v for k, v in obj.items() if k not in ("leader", "to_move")}
        assert read_table_input(no_leader)[2] == (2,)
        with pytest.raises(PositionError, match="dealer: S deals, so W leads the first trick, not E"):
            read_table_input({**obj, "dealer": "S", "leader": "E", "to_move": "E"})

    def test_a_played_deal_is_tabled_from_its_start(self) -> None:
        obj = played_deal("manille", 4, 10)
        assert table_of(obj, Solver()).to_json() == table_of(start_of(obj).to_json(), Solver()).to_json()

    @pytest.mark.parametrize("change, field, problem", [
        ({"play": 12345}, "play", "expected a space-separated string or a list of card strings"),
        ({"play": ["ZZ"]}, "play[0]", "'ZZ' is not a card: 'Z' is not a suit"),
        ({"play": "4C 4C"}, "play[1]", "4C appears twice (also in play[0])"),
        ({"shown": 123}, "shown", "expected a card string"),
        ({"shown": "ZZ"}, "shown", "'ZZ' is not a card: 'Z' is not a suit"),
        ({"shown": "KS"}, "shown", "KS is not in the dealer E's hand"),
    ])
    def test_a_played_deal_and_a_shown_card_are_checked(self, change, field, problem) -> None:
        obj = played_deal("malilla", 1)
        assert obj["dealer"] == "E" and "KS" not in start_of(obj).hand("E")
        with pytest.raises(PositionError) as err:
            read_table_input({**obj, **change})
        assert (err.value.field, err.value.problem) == (field, problem)

    @pytest.mark.parametrize("drop, change, field, problem", [
        (("trump", "leader"), {}, None, None),
        (("trump", "leader"), {"shown": "ZZ"}, "shown", "'ZZ' is not a card: 'Z' is not a suit"),
        (("trump", "leader"), {"shown": "KS"}, "shown", "KS is not in the dealer E's hand"),
        (("trump", "leader", "dealer"), {"shown": "KS"}, None, None),   # no dealer: any seat may hold it
        (("leader",), {"trump": "H"}, "shown", "3S would make S trump, not H"),
    ])
    def test_a_shown_card_is_checked_as_far_as_trump_and_dealer_are_given(self, drop, change, field, problem):
        obj = {k: v for k, v in played_deal("malilla", 1).items() if k not in ("play",) + drop}
        assert obj["shown"] == "3S" and obj.get("dealer", "E") == "E"
        if field is None:
            read_table_input({**obj, **change})
            return
        with pytest.raises(PositionError) as err:
            read_table_input({**obj, **change})
        assert (err.value.field, err.value.problem) == (field, problem)

    def test_a_seat_to_move_without_a_leader_is_checked(self) -> None:
        obj = {k: v for k, v in played_deal("malilla", 1).items() if k not in ("play", "leader")}
        with pytest.raises(PositionError) as err:
            read_table_input({**obj, "to_move": "Q"})
        assert (err.value.field, err.value.problem) == ("to_move", "'Q' is not a seat (N E S W)")
        assert read_table_input({**obj, "to_move": "S"})[2] == read_table_input(obj)[2]

    def test_not_a_full_deal(self) -> None:
        obj = seeded("manille", 3, 2)
        started = Position.from_json(obj)
        started = started.play(started.legal_moves()[0])
        with pytest.raises(PositionError, match="full deal") as err:
            read_table_input(started.to_json())
        assert err.value.field == "trick"
        short = {**obj, "hands": {seat: " ".join(cards.split()[:3]) for seat, cards in obj["hands"].items()}}
        with pytest.raises(PositionError, match="full deal") as err:
            read_table_input(short)
        assert err.value.field == "hands"
        with pytest.raises(PositionError, match="full deal"):
            dd_table(started, Solver())
        full = Position.from_json(obj)
        for dealers, message in (((5,), r"dealers\[0\]: 5 is not a seat index"),
                                 ((0, "N"), r"dealers\[1\]: 'N' is not a seat index"),
                                 ((True,), r"dealers\[0\]: True is not a seat index"),
                                 ((), "dealers: empty"), ([0], r"dealers: \[0\] is not a tuple")):
            with pytest.raises(ValueError, match=message):
                dd_table(full, Solver(), dealers)
        with pytest.raises(PositionError, match="no no-trump deals"):
            read_table_input({**seeded("malilla", 1, 0), "trump": "NT"})
        with pytest.raises(PositionError, match="pending_doubling"):
            read_table_input({**obj, "pending_doubling": "yes"})
        assert MALILLA.no_trump_allowed is False


def test_a_cell_and_a_trump_of_par_are_found_in_any_case():
    table = table_of(deal("manille", 3).to_position_json(), Solver(1 << 22))
    assert table.entry("s", "n") == table.entry("S", "N")
    assert table.par[0].worth("nt") == table.par[0].worth("NT")
    with pytest.raises(KeyError, match="no cell for trump 'X'"):
        table.entry("X", "N")


def test_malilla_par_weighs_only_the_trumps_the_dealer_could_show():
    """RULES.md: the dealer's last card is shown and its suit is trump, so a suit the dealer
    lacks is no trump of the deal, and par neither lists it nor names it best."""
    start = deal("malilla", 68, dealer=0).to_deal_json()
    held = {card[-1] for card in start["hands"]["N"].split()}
    assert held != set("SHDC")   # the dealer N lacks a suit
    (par,) = table_of(start, Solver(1 << 22)).par
    assert {c.trump for c in par.choices} == held and set(par.best) <= held
    (manille_par,) = table_of(deal("manille", 68, dealer=0).to_deal_json(), Solver(1 << 22)).par
    assert len(manille_par.choices) == 5   # the dealer names trump: every suit and no-trump


def test_a_malilla_trump_the_dealer_could_not_have_shown_is_refused():
    start = deal("malilla", 68, dealer=0).to_position_json()   # without its shown card
    assert not any(card.endswith("H") for card in start["hands"]["N"].split())
    with pytest.raises(PositionError) as err:
        read_table_input({**start, "trump": "H"})
    assert (err.value.field, err.value.problem) == \
        ("trump", "H, but the dealer N holds none: the dealer's shown card, whose suit is trump, goes back to "
                  "the dealer's hand")
    read_table_input({k: v for k, v in start.items() if k not in ("dealer", "leader")} | {"trump": "H"})



class TestTrumpsAskedFor:
    def test_only_they_are_solved_and_par_picks_among_them(self, manille_capot_table) -> None:
        full = manille_capot_table
        (full_par,) = full.par
        best = full_par.best[0]
        asked = [t.lower() for t in reversed(trump_choices(MANILLE)) if t != best][:2]
        table = table_of(seeded("manille", 103, 3), Solver(), trumps=asked)
        wanted = tuple(t for t in full.trumps if t.lower() in asked)   # in the game's order
        assert table.trumps == wanted and len(table.entries) == 8
        assert table.entries == tuple(e for e in full.entries if e.trump in wanted)
        assert table.grid() == {t: full.grid()[t] for t in wanted}
        (par,) = table.par
        assert par.choices == tuple(c for c in full_par.choices if c.trump in wanted)
        assert set(par.best) <= set(wanted)
        assert par.score == max(c.dealer_score for c in par.choices) < full_par.score
        assert table.to_json()["par"][0]["choices"] == [c.to_json() for c in par.choices]
        text = table.pretty()
        assert f"by trump and leader (only the trumps asked for: {' '.join(wanted)}):" in text
        assert f"Par among the trumps asked for, dealer W (E-W), N leads: name {' or '.join(par.best)}," in text
        assert not any(line.startswith(f"{best} ") for line in text.splitlines())

    def test_every_trump_of_the_game_is_the_table_without_them(self) -> None:
        obj = seeded("manille", 5, 1)
        assert table_of(obj, Solver(), trumps=["nt", "c", "D", "h", "S"]).to_json() == table_of(obj, Solver()).to_json()

    def test_malilla_par_weighs_those_the_dealer_could_show(self) -> None:
        start = deal("malilla", 68, dealer=0).to_deal_json()   # the dealer N holds no heart
        assert not any(card.endswith("H") for card in start["hands"]["N"].split())
        (par,) = table_of(start, Solver(1 << 22), trumps=["H", "D"]).par
        assert [c.trump for c in par.choices] == ["D"] and par.best == ("D",)
        table = table_of(start, Solver(1 << 22), trumps=["H"])
        (par,) = table.par
        assert (par.choices, par.best, par.score) == ((), (), None)
        assert table.to_json()["par"][0] == {"dealer": "N", "side": "N-S", "leader": "W", "names_trump": False,
                                             "best": [], "score": None, "choices": []}
        assert table.grid()["H"] == table_of(start, Solver(1 << 22)).grid()["H"]
        assert "Dealer N (N-S), W leads: the shown card fixes trump, and the dealer holds none of the trumps " \
               "asked for" in table.pretty()

    @pytest.mark.parametrize("game, trumps, error", [
        ("manille", ["D", "X"], "trumps[1]: 'X' is not a trump (S H D C or NT)"),
        ("manille", ["D", "NT", "d"], "trumps[2]: D is given twice"),
        ("manille", [], "trumps: empty; a table needs at least one trump (S H D C NT)"),
        ("manille", "D", "trumps: 'D' is not a sequence of trumps (S H D C NT)"),
        ("malilla", ["S", "NT"], "trumps[1]: malilla has no no-trump deals (S H D C)"),
        ("malilla", [None], "trumps[0]: missing (S H D C)"),
    ])
    def test_a_bad_one_is_refused_naming_its_place(self, game, trumps, error) -> None:
        class Refusing(Solver):
            def solve(self, *args, **kwargs):
                raise AssertionError("a search ran")

        with pytest.raises(ValueError) as err:
            table_of(seeded(game, 1, 0), Refusing(1 << 20), trumps=trumps)
        assert str(err.value) == error
        with pytest.raises(ValueError) as err:
            dd_table(Position.from_json(seeded(game, 1, 0)), Refusing(1 << 20), trumps=trumps)
        assert str(err.value) == error

    @given(st.sampled_from([MALILLA, MANILLE, None]).flatmap(lambda profile: st.tuples(
        st.just(profile), st.lists(st.sampled_from(trump_choices(profile or MANILLE)), min_size=1, unique=True),
        st.lists(st.booleans(), min_size=5, max_size=5))))
    def test_any_order_and_case_gives_the_game_order(self, asked) -> None:
        profile, trumps, lower = asked
        spelt = [t.lower() if low else t for t, low in zip(trumps, lower)]
        assert table_trumps(spelt, profile) == tuple(t for t in trump_choices(profile or MANILLE) if t in trumps)
        assert table_trumps(None, profile) == trump_choices(profile or MANILLE)
