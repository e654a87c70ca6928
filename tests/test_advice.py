"""Single-dummy advice: each inference rule on played histories (no sampled layout contradicts it),
uniformity by counting on a small case, determinism, the fully determined case against double
dummy, and the `advise` command."""
from __future__ import annotations

import itertools
import json
import random
import statistics
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import played_deal, start_of
from solver import Position, get_profile
from solver import advice as advice_module
from solver import layouts as layouts_module
from solver.advice import advice_steps, advise, advise_iter
from solver.layouts import consistent_layouts, count_layouts
from solver.cards import SEATS, card_name, cards_of, deck, mask_of, parse_card
from solver.errors import IllegalPlay, PositionError
from solver.rules import trump_index
from solver import _core
from solver.solve import Solver
from solver.view import View, view_of

SOLVER = Solver(16 << 20)


def _trick_state(profile, trump, trick):
    """(index of the winning card, winning card) of a trick in progress."""
    w = _core.trick_winner(tuple(trick), trump_index(trump))
    return w, trick[w]


def triggers(obj: dict) -> list[tuple[str, int, int]]:
    """The inferences that the public play of `obj` gives, as (rule, play index, seat), with each
    rule stated from RULES.md independently of the library's inference code."""
    start = start_of(obj)
    profile, trump = start.profile, start.trump
    t = None if trump == "NT" else "SHDC".index(trump)
    pos, out = start, []
    for i, name in enumerate(obj["play"]):
        c = parse_card(name, profile)
        s = pos.to_move
        trick = list(pos.trick)
        if trick:
            lead = trick[0] >> 4
            w, win = _trick_state(profile, trump, trick)
            wseat = (pos.leader + w * profile.step) % 4
            rival = (wseat - s) % 2 == 1
            suit = c >> 4
            if suit != lead:
                out.append(("void", i, s))
                if rival and t is not None and win >> 4 != t and suit != t:
                    out.append(("no-trump", i, s))
                if rival and t is not None and lead != t and win >> 4 == t and not (suit == t and c > win):
                    out.append(("no-overtrump", i, s))
                if (profile.protected_rank is not None and name.startswith("7") and suit != t
                        and not pos.led >> suit & 1):
                    out.append(("protected-seven", i, s))
                if profile.undertrump_ban and t is not None and lead != t and win >> 4 == t \
                        and suit == t and c < win:
                    out.append(("undertrump", i, s))
            elif rival and win >> 4 == lead and c < win:
                out.append(("no-beat", i, s))
        pos = pos.play(name)
    return out


def holds_then(obj: dict, hands, index: int, seat: int) -> list[int]:
    """The hand `seat` held before playing card `index`: its sampled current hand plus what it played
    from then on."""
    profile = get_profile_of(obj)
    start = start_of(obj)
    pos, later = start, 0
    for i, name in enumerate(obj["play"]):
        if i >= index and pos.to_move == seat:
            later |= 1 << parse_card(name, profile)
        pos = pos.play(name)
    return cards_of(hands[seat] | later)


def get_profile_of(obj):
    return start_of(obj).profile


def forbidden(rule: str, obj: dict, index: int) -> int:
    """The cards that inference `rule` of card `index` says its player did not hold then (a mask),
    stated from RULES.md."""
    start = start_of(obj)
    profile, trump = start.profile, start.trump
    t = None if trump == "NT" else "SHDC".index(trump)
    pos = start
    for name in obj["play"][:index]:
        pos = pos.play(name)
    c = parse_card(obj["play"][index], profile)
    lead = pos.trick[0] >> 4
    _, win = _trick_state(profile, trump, pos.trick)
    if rule == "void":
        bad = lambda h: h >> 4 == lead
    elif rule == "no-beat":
        bad = lambda h: h >> 4 == lead and h > win
    elif rule == "no-trump":
        bad = lambda h: h >> 4 == t
    elif rule == "no-overtrump":
        bad = lambda h: h >> 4 == t and h > win
    elif rule == "protected-seven":
        bad = lambda h: not (card_name(h, profile).startswith("7") and h >> 4 != t and not pos.led >> (h >> 4) & 1)
    elif rule == "undertrump":
        bad = lambda h: not (h >> 4 == t and h < win)
    else:
        raise AssertionError(rule)
    return sum(1 << h for h in deck(profile) if h != c and bad(h))


def check(rule: str, obj: dict, hands, index: int, seat: int) -> bool:
    """Whether the sampled layout agrees with the inference `rule` of card `index`."""
    return not forbidden(rule, obj, index) & mask_of(holds_then(obj, hands, index, seat))


def steered_deal(game: str, seed: int, style: str) -> dict:
    """A seeded deal played legally by a simple style, to make rare obligations happen:
    "hoard" keeps the plain sevens and leads trumps or suits whose seven is gone (Malilla's
    protected seven ends up discarded); "low" plays the lowest card and keeps trumps (Manille's
    undertrump)."""
    obj = played_deal(game, seed, cards=0)
    pos = start_of(obj)
    t, rng, play = pos.trump, random.Random(seed), []
    while not pos.is_over:
        gone = {c[-1] for c in play if c.startswith("7")}

        def key(c: str):
            if style == "low":
                return (c[-1] == t, parse_card(c, pos.profile) & 15, rng.random())
            seven = c.startswith("7") and c[-1] != t
            return (seven, not pos.trick and c[-1] != t and c[-1] not in gone, rng.random())

        card = min(pos.legal_moves(), key=key)
        play.append(card)
        pos = pos.play(card)
    obj["play"] = play
    return obj


STYLES = {"protected-seven": "hoard", "undertrump": "low"}


def occurrences(game: str, rule: str, wanted: int = 3):
    """Views of the seat to move a few cards after a play that gives `rule`, from played deals."""
    found = []
    for seed in range(300):
        obj = steered_deal(game, seed, STYLES[rule]) if rule in STYLES else played_deal(game, seed)
        play = obj["play"]
        players = [p for p in _players(obj)]
        for r, i, s in triggers(obj):
            if r != rule:
                continue
            for k in range(i + 1, min(i + 6, len(play))):
                if players[k] != s:
                    view = View.from_json(view_of(obj, play[:k]))
                    if forbidden(rule, obj, i) & view.unseen:   # the rule tells something not yet public
                        found.append((obj, i, s, k))
                    break
            if len(found) >= wanted:
                return found
    return found


def _players(obj):
    pos = start_of(obj)
    for name in obj["play"]:
        yield pos.to_move
        pos = pos.play(name)


RULES = [("malilla", "void"), ("manille", "void"), ("malilla", "no-beat"), ("manille", "no-beat"),
         ("malilla", "no-trump"), ("manille", "no-trump"), ("malilla", "no-overtrump"),
         ("manille", "no-overtrump"), ("malilla", "protected-seven"), ("manille", "undertrump")]


@pytest.mark.parametrize("game, rule", RULES)
def test_no_sampled_layout_contradicts_an_inference(game, rule):
    cases = occurrences(game, rule)
    assert cases, f"no {rule} in {game} play"
    for obj, i, s, k in cases:
        view = View.from_json(view_of(obj, obj["play"][:k]))
        for hands in consistent_layouts(view, 25, seed=i):
            assert check(rule, obj, hands, i, s), (rule, obj["play"][:k], SEATS[s])
            # and the layout replays: the library's own check of every card of the history
            Position.from_json({**view.position(hands).to_json()})
        # the library inferred at least what the rule says about the unseen cards
        told = forbidden(rule, obj, i) & view.unseen
        assert told and view.excluded[s] & told == told


def test_the_real_layout_is_always_consistent():
    for game in ("malilla", "manille"):
        for seed in range(6):
            obj = played_deal(game, seed)
            pos = start_of(obj)
            for k, name in enumerate(obj["play"][:-1]):
                pos = pos.play(name)
                if k % 5:
                    continue
                view = View.from_json(view_of(obj, obj["play"][:k + 1]))
                assert view.consistent(pos.hands)
                assert all(not (view.excluded[s] & pos.hands[s]) for s in range(4))


def _enumerate(view: View) -> list[tuple[int, ...]]:
    """Every layout of the unseen cards with the right sizes that the library's strict position check
    accepts (independent of the inference masks)."""
    unseen = cards_of(view.unseen)
    hidden = view.hidden
    needs = [view.sizes[s] - bin(view.fixed[s]).count("1") for s in hidden]
    out = []
    for first in itertools.combinations(unseen, needs[0]):
        rest = [c for c in unseen if c not in first]
        for second in itertools.combinations(rest, needs[1]):
            third = [c for c in rest if c not in second]
            hands = list(view.fixed)
            hands[view.seat] = view.hand
            for s, cs in zip(hidden, (first, second, third)):
                for c in cs:
                    hands[s] |= 1 << c
            try:
                Position.from_json(view.position(tuple(hands)).to_json())
            except PositionError:
                continue
            out.append(tuple(hands))
    return out


def _small_view():
    """A view with several consistent layouts and a few excluded by the play."""
    for seed in range(100):
        obj = played_deal("malilla", seed)
        k = len(obj["play"]) - 12
        view = View.from_json(view_of(obj, obj["play"][:k]))
        n = count_layouts(view)
        if any(view.excluded) and 20 <= n <= 80:
            return view
    pytest.fail("no small view")


def test_the_layout_helpers_take_the_view_json_as_advise_does():
    obj = played_deal("manille", 2)
    json_view = view_of(obj, obj["play"][:9])
    view = View.from_json(json_view)
    assert count_layouts(json.dumps(json_view)) == count_layouts(view)
    assert consistent_layouts(json_view, 3, seed=4) == consistent_layouts(view, 3, seed=4)
    with pytest.raises(PositionError, match="^seat: 'Q' is not a seat"):
        count_layouts({**json_view, "seat": "Q"})


def test_sampling_is_uniform_among_consistent_layouts():
    view = _small_view()
    layouts = _enumerate(view)
    assert 2 <= len(layouts) <= count_layouts(view)
    draws = 100 * len(layouts)
    counts = Counter(consistent_layouts(view, draws, seed=3))
    assert set(counts) == set(layouts), "exactly the consistent layouts are drawn"
    expected = draws / len(layouts)
    chi2 = sum((counts[h] - expected) ** 2 / expected for h in layouts)
    dof = len(layouts) - 1
    # chi-square with dof degrees of freedom: mean dof, sd sqrt(2 dof); 5 sd is far out
    assert chi2 < dof + 5 * (2 * dof) ** 0.5, (chi2, dof)


def test_a_view_works_out_its_layout_tables_once(monkeypatch):
    """Counting and every draw read the tables the view keeps; the draws stay those of the seed."""
    view = _small_view()
    before = consistent_layouts(view, 30, seed=5)
    fresh = replace(view)   # the same view, with nothing worked out yet
    calls = []
    counted = layouts_module._completions

    def counting(v):
        calls.append(v)
        return counted(v)

    monkeypatch.setattr(layouts_module, "_completions", counting)
    assert count_layouts(fresh) == count_layouts(view)
    assert consistent_layouts(fresh, 30, seed=5) == before
    assert len(calls) == 1


def test_the_same_seed_gives_the_same_advice():
    obj = played_deal("manille", 4)
    view = view_of(obj, obj["play"][:9])
    a = advise(view, samples=12, seed=7, goal=20, solver=SOLVER)
    b = advise(view, samples=12, seed=7, goal=20, solver=SOLVER)
    assert a.to_json() == b.to_json()
    assert a.samples == 12 and a.done
    cards = {c.card for c in a.cards}
    assert cards == set(View.from_json(view).position(
        consistent_layouts(View.from_json(view), 1)[0]).legal_moves())
    for c in a.cards:
        assert 0 <= c.goal <= 1 and c.se == pytest.approx(c.sd / 12 ** 0.5)


def test_partial_results_accumulate():
    obj = played_deal("malilla", 2)
    items = list(advise_iter(view_of(obj, obj["play"][:13]), samples=10, seed=1, every=3, solver=SOLVER))
    assert [a.samples for a in items] == [3, 6, 9, 10]
    assert [a.done for a in items] == [False, False, False, True]


def test_the_steps_pause_after_every_layout_that_gives_no_advice():
    obj = played_deal("malilla", 2)
    view = view_of(obj, obj["play"][:13])
    steps = list(advice_steps(view, samples=10, seed=1, every=3, solver=SOLVER))
    advice = [a for a in steps if a is not None]
    assert [a.to_json() for a in advice] == [a.to_json() for a in advise_iter(view, 10, 1, every=3, solver=SOLVER)]
    assert steps[-1] is advice[-1]
    # samples 1, 2, 4, 5, 7 and 8 and each rejected draw end with a pause
    assert len(steps) - len(advice) == 6 + advice[-1].rejected


def _determined():
    for game in ("malilla", "manille"):
        for seed in range(40):
            obj = played_deal(game, seed)
            n = len(obj["play"])
            for k in range(n - 10, n - 1):
                view = View.from_json(view_of(obj, obj["play"][:k]))
                if count_layouts(view) == 1:
                    pos = start_of(obj)
                    for name in obj["play"][:k]:
                        pos = pos.play(name)
                    if len(pos.legal_moves()) >= 2 and bin(view.unseen).count("1") >= 4:
                        yield obj, k, pos


def test_a_fully_determined_layout_gives_the_double_dummy_values():
    cases = list(itertools.islice(_determined(), 4))
    assert len(cases) >= 3
    for obj, k, pos in cases:
        advice = advise(view_of(obj, obj["play"][:k]), samples=3, seed=0, solver=SOLVER)
        dd = SOLVER.solve(pos).values
        assert {c.card: c.mean for c in advice.cards} == dd
        assert all(c.sd == 0 for c in advice.cards)
        assert set(advice.best) == {c for c, v in dd.items() if v == max(dd.values())}


@pytest.mark.parametrize("bad, field", [
    ({"seat": "E"}, "seat"),
    ({"hand": "7S"}, "hand"),
    ({"play": ["ZZ"]}, "play[0]"),
    ({"play": "7S ZZ"}, "play[1]"),
    ({"play": 7}, "play"),
    ({"dealer": "Q"}, "dealer"),
    ({"dealer": 5}, "dealer"),
    ({"dealer": "N"}, "dealer"),   # the dealer sits before the first leader
    ({"game": "bridge"}, "game"),
    ({"hands": "7S"}, "view"),
])
def test_bad_views_name_the_field(bad, field):
    obj = played_deal("malilla", 1)
    view = {k: v for k, v in {**view_of(obj, obj["play"][:6]), **bad}.items() if v is not None}
    with pytest.raises(PositionError) as e:
        View.from_json(view)
    assert e.value.field == field


def test_an_illegal_card_of_the_viewer_in_the_play_is_refused():
    """The viewer knows its own hand at every card: a card it could not play is an error, not a layout."""
    view = {"game": "malilla", "trump": "H", "seat": "E", "leader": "W", "hand": "AH 3H KD 6D 4D 3D 7C 5C 4C",
            "play": ["5D", "4H", "KS", "QD", "KC"]}   # E had four diamonds when it played KS
    with pytest.raises(IllegalPlay) as e:
        View.from_json(view)
    assert (e.value.field, e.value.problem) == ("play[2]", "E may not play KS: must follow diamonds with KD, 6D, "
                                                           "4D or 3D")
    legal = {**view, "hand": "KS AH 3H KD 4D 3D 7C 5C 4C", "play": ["5D", "4H", "6D", "QD", "KC"]}
    assert View.from_json(legal).seat == 1


def test_a_hidden_card_illegal_in_every_layout_is_refused():
    """W shows out of hearts, then plays a heart: the discard was illegal whatever W held besides."""
    view = {"game": "manille", "trump": "S", "seat": "N", "hand": "8S 10H 10D KD QD QC", "leader": "E",
            "play": ["QH", "KH", "9C", "AH", "JH", "9H", "7H", "8H"]}
    with pytest.raises(IllegalPlay) as e:
        View.from_json(view)
    assert (e.value.field, e.value.problem) == ("play[2]", "W may not play 9C: must follow hearts with 8H")
    legal = {**view, "play": ["QH", "KH", "8H", "AH", "JH", "9H", "7H", "9C"]}
    assert View.from_json(legal).seat == 0


@given(st.lists(st.integers(0, 70), max_size=60), st.one_of(st.none(), st.integers(0, 70)))
def test_a_cards_running_sums_give_the_statistics_of_its_values(values, goal):
    tally = advice_module._Tally()
    for v in values:
        tally.add(v, goal)
    card = tally.advice("AS", goal)
    n = len(values)
    assert card.mean == pytest.approx(statistics.mean(values) if n else 0.0)
    assert card.sd == pytest.approx(statistics.stdev(values) if n > 1 else 0.0)
    assert card.se == pytest.approx(card.sd / n ** 0.5 if n else 0.0)
    if goal is None or not n:
        assert card.goal is None and card.goal_se is None
    else:
        reached = sum(v >= goal for v in values) / n
        assert card.goal == pytest.approx(reached)
        assert card.goal_se == pytest.approx((reached * (1 - reached) / n) ** 0.5)


@pytest.mark.parametrize("change, field, problem", [
    ({"hand": "ZZ " * 33}, "hand", "more than 32 cards; the manille deck has 32"),
    ({"hand": ["ZZ"] * 33}, "hand", "33 cards; the manille deck has 32"),
    ({"play": ["ZZ"] * 32}, "play", "the deal is over: nothing is left to play"),
])
def test_too_many_cards_of_a_view_are_refused_by_their_count_before_any_is_read(change, field, problem):
    obj = played_deal("manille", 1)
    view = {**view_of(obj, obj["play"][:5]), **change}
    with pytest.raises(PositionError) as e:
        View.from_json(view)
    assert (e.value.field, e.value.problem) == (field, problem)


def test_a_misspelt_key_of_a_view_is_named_with_the_key_it_resembles():
    obj = played_deal("malilla", 1)
    view = view_of(obj, obj["play"][:6])
    view["Dealer"] = view.pop("dealer")
    with pytest.raises(PositionError, match=r"^view: unknown key 'Dealer' \(did you mean dealer\?\)$"):
        View.from_json(view)


@pytest.mark.parametrize("options, message", [
    ({"samples": 0}, "samples: 0 must be at least 1"),
    ({"every": 0}, "every: 0 must be at least 1"),
    ({"max_attempts": 0}, "max_attempts: 0 must be at least 1"),
    ({"goal": "30"}, "goal: '30' is not a whole number"),
    ({"goal": -5}, "goal: -5 must be at least 0"),
    ({"goal": float("nan")}, "goal: nan is not a whole number"),
    ({"seed": "x"}, "seed: 'x' is not a whole number"),
    ({"samples": 3, "max_attempts": 2}, "max_attempts: 2 is fewer than the 3 samples asked for"),
])
def test_bad_options_name_the_option(options, message):
    obj = played_deal("malilla", 1)
    with pytest.raises(ValueError, match=message):
        next(advise_iter(view_of(obj, obj["play"][:6]), solver=SOLVER, **options))


def test_one_rejected_draw_too_many_is_too_few_layouts(monkeypatch):
    """With max_attempts equal to the samples, one draw the play contradicts leaves a sample short: refused."""
    drawn = advice_module.drawn_layouts

    def one_rejected(view, rng, limit):
        draws = drawn(view, rng, limit)
        next(draws)
        yield None
        yield from draws

    monkeypatch.setattr(advice_module, "drawn_layouts", one_rejected)
    obj = played_deal("malilla", 1)
    with pytest.raises(ValueError) as err:
        advise(view_of(obj, obj["play"][:6]), samples=3, seed=0, max_attempts=3, solver=SOLVER)
    assert str(err.value) == ("1 of 3 drawn layouts contradicted the play (max_attempts 3): too few consistent "
                              "layouts were found")


@pytest.mark.parametrize("options, message", [
    ({"count": 0}, "count: 0 must be at least 1"),
    ({"count": True}, "count: True is not a whole number"),
    ({"count": 2, "seed": 1.5}, "seed: 1.5 is not a whole number"),
    ({"count": 2, "max_attempts": -1}, "max_attempts: -1 must be at least 1"),
])
def test_consistent_layouts_names_a_bad_option(options, message):
    obj = played_deal("malilla", 1)
    with pytest.raises(ValueError, match=message):
        consistent_layouts(View.from_json(view_of(obj, obj["play"][:6])), **options)


@pytest.mark.parametrize("played, changes, problem", [
    # the viewer (E) is not the dealer (N), so the dealer's shown card cannot be in its hand
    (6, {"shown": "QD", "dealer": "N"}, "QD is in your hand (E), not the dealer N's"),
    # the dealer (N) shows KD, but W played it: the shown card goes back to the dealer's hand
    (8, {"shown": "KD"}, "KD was played by W, not the dealer"),
    # N deals and views: a shown card neither played nor in N's hand cannot be N's
    (3, {"shown": "7D"}, "7D is not in your hand"),
], ids=["in-the-viewers-hand", "played-by-another-seat", "not-in-the-dealers-own-hand"])
def test_a_shown_card_the_dealer_cannot_hold_is_named(played, changes, problem):
    """Malilla deal 0, trump D, dealt by N."""
    obj = played_deal("malilla", 0)
    view = {**view_of(obj, obj["play"][:played]), **changes}
    assert (view["dealer"], view["trump"]) == ("N", "D")
    with pytest.raises(PositionError) as e:
        View.from_json(view)
    assert (e.value.field, e.value.problem) == ("shown", problem)


def test_a_card_played_twice_in_a_view_is_named_by_its_place():
    obj = played_deal("manille", 1)
    view = view_of(obj, obj["play"][:6])
    play = view["play"][:5] + [view["play"][0]]
    with pytest.raises(PositionError) as e:
        View.from_json({**view, "play": play})
    assert (e.value.field, e.value.problem) == ("play[5]", "8H appears twice (also in play)")


def test_a_shown_card_of_another_suit_where_it_does_not_fix_trump():
    """A variant whose dealer shows a card without it naming trump: the view takes a shown card of
    any suit, as the played deal does, and still refuses one where it names trump."""
    obj = played_deal("malilla", 0)
    variant = replace(get_profile("malilla"), name="malilla-named-trump", trump_from_dealer_card=False)
    dealer = SEATS.index(obj["dealer"])
    start = Position.from_json({k: v for k, v in obj.items() if k not in ("play", "shown")})
    shown = next(card_name(c, variant) for c in cards_of(start.hands[dealer])
                 if card_name(c, variant)[-1] != obj["trump"])
    deal = {**obj, "game": variant.name, "shown": shown}
    view = {**view_of(deal, obj["play"][:6], profile=variant), "shown": shown}
    assert View.from_json(view, profile=variant).profile == variant
    with pytest.raises(PositionError) as e:
        View.from_json({**view, "game": "malilla"})
    assert e.value.field == "shown" and "trump" in e.value.problem


def test_a_view_without_its_dealer_takes_the_seat_before_the_first_leader():
    """As a played deal's dealer is inferred: the view reads the same with `dealer` left out."""
    obj = played_deal("malilla", 5)
    view = next(v for v in (view_of(obj, obj["play"][:k]) for k in range(8)) if v["seat"] != obj["dealer"])
    assert "shown" in view and view["dealer"] == obj["dealer"]
    inferred = View.from_json({k: v for k, v in view.items() if k != "dealer"})
    assert inferred == View.from_json(view)
    assert inferred.fixed[SEATS.index(obj["dealer"])] == 1 << parse_card(obj["shown"], inferred.profile)


@pytest.mark.parametrize("game", ["malilla", "manille"])
def test_a_view_reads_back_from_its_json(game):
    """Every view of three played deals, at every card: `to_json` writes what `from_json` reads as
    the same view, the shown card and its dealer included."""
    for seed in range(3):
        obj = played_deal(game, seed)
        for k in range(len(obj["play"])):
            view = View.from_json(view_of(obj, obj["play"][:k]))
            written = view.to_json()
            assert View.from_json(written) == view and written["play"] == obj["play"][:k]
            shown = obj.get("shown")
            assert (written.get("shown"), written.get("dealer")) == (shown, obj["dealer"] if shown else None)


def test_the_shown_card_stays_with_the_dealer():
    obj = played_deal("malilla", 5)
    k = 3
    view = View.from_json(view_of(obj, obj["play"][:k]))
    dealer = SEATS.index(obj["dealer"])
    shown = parse_card(obj["shown"], view.profile)
    if obj["shown"] not in obj["play"][:k] and dealer != view.seat:
        for hands in consistent_layouts(view, 20):
            assert hands[dealer] >> shown & 1


@pytest.mark.parametrize("threads", ["1", "2"])
def test_advise_command(tmp_path, capsys, threads):
    """The command's advice is the library's on one thread, with its searches on one thread or two."""
    from solver.cli import main
    obj = played_deal("manille", 6)
    views = [view_of(obj, obj["play"][:k]) for k in (10, 17)]
    path = tmp_path / "views.jsonl"
    path.write_text("\n".join(json.dumps(v) for v in views) + "\n{\"game\": 1}\n")
    assert main(["advise", str(path), "--samples", "6", "--seed", "2", "--goal", "15", "--progress",
                 "--threads", threads]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(out) == 3 and "error" in out[2]
    for line, view in zip(out, views):
        assert line == advise(view, samples=6, seed=2, goal=15, solver=SOLVER).to_json()


def test_the_analysis_adds_single_dummy_verdicts(capsys, tmp_path):
    from solver.advice import VERDICTS
    from solver.analysis import analyze
    from solver.cli import main
    obj = played_deal("manille", 3)
    plain = analyze(obj, SOLVER)
    rich = analyze(obj, SOLVER, single_dummy=6, seed=1)
    assert "single_dummy" not in plain.to_json()["cards"][0]
    for a, b in zip(plain.cards, rich.cards):
        assert (a.card, a.cost, a.values) == (b.card, b.cost, b.values)
        if b.forced:
            assert b.single_dummy is None
            continue
        sd = b.single_dummy
        assert sd["verdict"] in VERDICTS and sd["samples"] == 6
        assert sd["loss"] == pytest.approx(sd["best_mean"] - sd["mean"], abs=1e-3) and sd["loss"] >= -1e-9
        assert (sd["verdict"] in ("unlucky", "mistake")) == (b.cost > 0)
    path = tmp_path / "played.jsonl"
    path.write_text(json.dumps(obj) + "\n")
    assert main(["analyze", str(path), "--single-dummy", "6", "--seed", "1"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0]) == rich.to_json()


def test_a_card_that_was_best_on_what_was_visible_is_unlucky_not_a_mistake():
    from solver.advice import verdict
    from solver.advice import Advice, CardAdvice
    advice = Advice("N", 40, (CardAdvice("AS", 20.0, 4.0, 0.6), CardAdvice("KS", 19.8, 4.0, 0.6),
                              CardAdvice("2S", 15.0, 4.0, 0.6)), None, 0, 1000)
    assert verdict("KS", advice, cost=3)["verdict"] == "unlucky"
    assert verdict("2S", advice, cost=3)["verdict"] == "mistake"
    assert verdict("AS", advice, cost=0)["verdict"] == "good"
    assert verdict("2S", advice, cost=0)["verdict"] == "lucky"


def test_a_loss_is_significant_only_above_half_a_point_and_twice_its_error():
    """A loss of 1 point over means whose errors combine to 1.41 is within twice its error; a
    loss of 0.4 point, however sure, is within half a point: neither card is a mistake."""
    from solver.advice import Advice, CardAdvice, verdict
    noisy = Advice("N", 40, (CardAdvice("AS", 20.0, 6.3, 1.0), CardAdvice("KS", 19.0, 6.3, 1.0)), None, 0, 1000)
    sure = Advice("N", 40, (CardAdvice("AS", 20.0, 0.1, 0.01), CardAdvice("KS", 19.6, 0.1, 0.01)), None, 0, 1000)
    for advice in (noisy, sure):
        assert verdict("KS", advice, cost=3)["verdict"] == "unlucky"
        assert verdict("KS", advice, cost=0)["verdict"] == "good"


def test_card_advice_with_a_goal_but_no_goal_error_writes_its_json():
    from solver.advice import CardAdvice
    assert CardAdvice("AS", 20.0, 4.0, 0.6, goal=0.75).to_json() == {
        "card": "AS", "mean": 20.0, "sd": 4.0, "se": 0.6, "goal": 0.75, "goal_se": None}
    assert CardAdvice("AS", 20.0, 4.0, 0.6, 0.75, 0.05).to_json()["goal_se"] == 0.05


class TestHandMadeHistory:
    """A Manille deal written out by hand (trump hearts, N leads):

    trick 1: N AS, E 7D (void in spades, and did not trump a rival's trick),
             S 8S, W 9S (followed under a rival's AS without beating it);
    trick 2: N 7C, E 9C, S JC, W 8D (void in clubs, did not trump).
    S, who won trick 2, is to lead and asks for advice.
    """

    HANDS = {"N": "AS 10S 7S 10H AH KH 8C 7C", "E": "10D AD KD 7D AC QC 10C 9C",
             "S": "8S QH JH 9H 8H 7H KC JC", "W": "KS QS JS 9S QD JD 9D 8D"}
    PLAY = ["AS", "7D", "8S", "9S", "7C", "9C", "JC", "8D"]

    def view(self):
        from solver.view import View
        hand = [c for c in self.HANDS["S"].split() if c not in self.PLAY]
        return View.from_json({"game": "manille", "trump": "H", "seat": "S", "hand": " ".join(hand),
                               "leader": "N", "play": self.PLAY})

    def current_hands(self) -> tuple[int, int, int, int]:
        from solver.cards import parse_cards
        from solver.profiles import MANILLE
        return tuple(sum(1 << c for c in parse_cards(self.HANDS[s], MANILLE) if c not in
                         parse_cards(self.PLAY, MANILLE)) for s in "NESW")

    def test_the_real_layout_is_consistent(self):
        assert self.view().consistent(self.current_hands())

    def test_no_sampled_layout_contradicts_the_play(self):
        from solver.layouts import consistent_layouts
        from solver.cards import parse_cards
        from solver.profiles import MANILLE

        def mask(cards: str) -> int:
            return sum(1 << c for c in parse_cards(cards, MANILLE))

        spades = mask("10S AS KS QS JS 9S 8S 7S")
        hearts = mask("10H AH KH QH JH 9H 8H 7H")
        clubs = mask("10C AC KC QC JC 9C 8C 7C")
        view = self.view()
        layouts = consistent_layouts(view, 300, seed=5)
        assert len(set(layouts)) > 5          # the sampler does explore
        for n, e, s, w in layouts:
            assert e & (spades | hearts) == 0      # void in spades; did not trump
            assert w & (mask("10S") | clubs | hearts) == 0   # did not beat AS; void in clubs; did not trump
            assert n & mask("10S 10H AH KH") == mask("10S 10H AH KH")   # so these can only be N's
            assert [bin(h).count("1") for h in (n, e, w)] == [6, 6, 6]

    def test_the_inferences_are_reported(self):
        inferred = self.view().inferences()
        assert {"10H", "AH", "KH", "10S"} <= set(inferred["E"].split())
        assert {"10S", "10C", "AC", "QC", "8C", "10H"} <= set(inferred["W"].split())


class TestHandMadeOvertrump:
    """A Manille deal written out by hand (trump hearts, N leads): N 7S, E 9H (void, must trump),
    S 8D (void; could not overtrump 9H and may not undertrump, so discards), W 8S. E won and asks.
    S therefore holds no heart above 9H."""

    HANDS = {"N": "10S AS KS 7S KH QH JH 7C", "E": "10H AH 9H 10D AD KD QD JD",
             "S": "8H 7H 9D 8D 7D 10C AC KC", "W": "QS JS 9S 8S QC JC 9C 8C"}
    PLAY = ["7S", "9H", "8D", "8S"]

    def test_no_sampled_layout_gives_south_a_higher_trump(self):
        from solver.layouts import consistent_layouts
        from solver.view import View
        from solver.cards import parse_cards
        from solver.profiles import MANILLE

        def mask(cards: str) -> int:
            return sum(1 << c for c in parse_cards(cards, MANILLE))

        hand = " ".join(c for c in self.HANDS["E"].split() if c not in self.PLAY)
        view = View.from_json({"game": "manille", "trump": "H", "seat": "E", "hand": hand,
                               "leader": "N", "play": self.PLAY})
        real = tuple(mask(self.HANDS[s]) & ~mask(" ".join(self.PLAY)) for s in "NESW")
        assert view.consistent(real)
        layouts = consistent_layouts(view, 300, seed=9)
        assert len(set(layouts)) > 5
        for n, e, s, w in layouts:
            assert s & mask("KH QH JH") == 0                     # did not overtrump 9H
            assert s & mask("10S AS KS QS JS 9S") == 0           # void in spades
        assert any(n & mask("KH") for n, *_ in layouts) and any(w & mask("KH") for _, _, _, w in layouts)


def test_max_attempts_may_equal_the_samples():
    """Each sample takes one drawn layout at least, so as many attempts as samples is enough
    when no draw is rejected (a view before any play); one fewer is refused."""
    obj = played_deal("malilla", 1)
    view = view_of(obj, obj["play"][:0])
    a = advise(view, samples=4, seed=1, max_attempts=4, solver=SOLVER)
    assert (a.samples, a.rejected, a.done) == (4, 0, True)
    with pytest.raises(ValueError, match="^max_attempts: 3 is fewer than the 4 samples asked for$"):
        advise(view, samples=4, seed=1, max_attempts=3, solver=SOLVER)
