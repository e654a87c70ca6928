"""Single-dummy advice: the best card for a player who sees only their own hand.

A *view* is what one seat knows (JSON)::

    {"game": "malilla", "trump": "D", "seat": "N", "hand": "7S AH ...",
     "leader": "W", "play": ["JS", "6S", ...],      # every card from the first lead
     "dealer": "E", "shown": "KD"}                    # optional (Malilla's shown trump card)

`leader` is the first leader of the deal; the player of each card of `play` is
derived by replaying the tricks. The viewer must be the player to move.

Inference. Every card another seat played must have been legal with the hand
that seat held then, which is its current (hidden) hand plus the cards it
played later. The rules engine (`_core.legal_moves`) decides: for each past
card `c` of seat `s` and each unseen card `u`, if `c` is illegal for a hand
made of `c`, the later cards of `s` and `u`, then `s` never held `u`. Legality
only shrinks as a hand grows (every obligation is "holding X, play from X";
the seven protection and Manille's undertrump ban lift only when *nothing
else* is held), so this "cannot hold" mask is exact for single cards: it gives
the voids shown by failing to follow, no higher card after not beating a
rival's winning card, no trump after not trumping, no higher trump after not
overtrumping, nothing but protected sevens after discarding one (Malilla),
nothing but lower trumps after undertrumping (Manille). The shown card sits in
the dealer's hand until played. Hand sizes come from the cards each seat has
played.

Sampling. A layout deals the unseen cards to the three hidden seats with
their sizes. Among layouts respecting the masks, one is drawn exactly
uniformly: the unseen cards are grouped by the set of seats allowed to hold
them, the number of completions is counted by dynamic programming over the
groups (how many cards of each group go to each seat), each group's split is
drawn with probability proportional to its completions, then the group's
cards are shuffled into the chosen counts. A drawn layout is then replayed in
full with the rules engine and rejected if any past card would have been
illegal (combinations of cards that the single-card masks cannot see); since
the masks are necessary conditions, the accepted layouts are uniform among
all layouts consistent with the public play. Rejection is capped
(`max_attempts`); `Advice.rejected` counts the rejected draws.

Each accepted layout is solved double dummy (mode "all", one `Solver`); per
legal card the advice gives the mean points of the viewer's side from the
remaining play (trick in progress included), the standard deviation, the
standard error of the mean and, with a goal, how often the card reaches the
goal and that frequency's standard error. The same view, seed and sample count
give the same advice.
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from . import _core
from .cards import SEATS, card_name, cards_of, deck, format_cards, parse_card, sort_key
from .checks import check_whole
from .deal import seeded
from .errors import IllegalPlay, PositionError
from .jsonlines import json_object
from .position import Position, card_texts, cards_field, game_profile, read_dealer, read_seat, read_shown
from .profiles import Profile
from .quoting import n_cards
from .rules import core_rules, refusal, trump_index
from .solve import Solver, check_timeout, default_solver, solver_given

__all__ = ["View", "CardAdvice", "Advice", "advise", "advise_iter", "advice_steps", "count_layouts", "sample_layout",
           "AdviceError", "view_of"]


class AdviceError(ValueError):
    """No layout of the unseen cards fits the public play (or none was found in the attempts)."""


# ---------------------------------------------------------------- the view

VIEW_KEYS = frozenset({"game", "trump", "seat", "hand", "leader", "play", "dealer", "shown"})


def _replay_tricks(play: list[int], leader: int, profile: Profile, tindex: int
                   ) -> tuple[list[int], list[tuple[int, ...]], list[int], int]:
    """Each card's player, the completed tricks, the trick in progress and its leader, after `play`
    from the first lead of `leader`."""
    players: list[int] = []
    history: list[tuple[int, ...]] = []
    trick: list[int] = []
    for c in play:
        players.append(profile.seat_after(leader, len(trick)))
        trick.append(c)
        if len(trick) == 4:
            leader = profile.seat_after(leader, _core.trick_winner(tuple(trick), tindex))
            history.append(tuple(trick))
            trick = []
    return players, history, trick, leader


@dataclass(frozen=True)
class View:
    """One seat's knowledge, read and checked, with the inferences drawn from the play."""

    profile: Profile
    trump: str
    seat: int
    hand: int
    """The viewer's current hand (mask)."""
    first_leader: int
    play: tuple[int, ...]
    players: tuple[int, ...]
    """The seat of each card of `play`."""
    leader: int
    """The leader of the trick in progress."""
    trick: tuple[int, ...]
    history: tuple[tuple[int, ...], ...]
    led: int
    sizes: tuple[int, int, int, int]
    """Cards each seat holds now."""
    fixed: tuple[int, int, int, int]
    """Cards known to be in each hidden hand now (the dealer's shown card)."""
    unseen: int
    """Cards nobody has shown: in the hidden hands, outside `fixed`."""
    excluded: tuple[int, int, int, int] = field(default=(0, 0, 0, 0))
    """Per seat, the unseen cards it cannot hold (the inferences)."""

    @classmethod
    def from_json(cls, obj: str | bytes | dict[str, Any], *, profile: Profile | str | None = None) -> View:
        """Read and check the view JSON; `profile`: a variant's rules, as `Position.from_json` takes them."""
        obj = json_object(obj, "view", VIEW_KEYS)
        profile = game_profile(obj, profile)
        trump = Position._read_trump(obj.get("trump"), profile)
        seats = {name: read_seat(obj.get(name), name) for name in ("seat", "leader")}
        hand_texts = card_texts(obj.get("hand", ""), "hand", profile)
        if len(hand_texts) > profile.deck_size:
            raise PositionError("hand", f"{n_cards(len(hand_texts))}; the {profile.name} deck has "
                                f"{profile.deck_size}")
        hand_cards = cards_field(hand_texts, profile, "hand")
        play_texts = card_texts(obj.get("play", []), "play", profile)
        if len(play_texts) >= profile.deck_size:
            raise PositionError("play", "the deal is over: nothing is left to play")
        play = cards_field(play_texts, profile, "play", indexed=True)
        seen: dict[int, str] = {}
        for name, cards in (("hand", hand_cards), ("play", play)):
            for i, c in enumerate(cards):
                if c in seen:
                    raise PositionError(f"{name}[{i}]" if name == "play" else name,
                                        f"{card_name(c, profile)} appears twice (also in {seen[c]})")
                seen[c] = name
        players, history, trick, leader = _replay_tricks(play, seats["leader"], profile, trump_index(trump))
        seat = seats["seat"]
        if profile.seat_after(leader, len(trick)) != seat:
            raise PositionError("seat", f"{SEATS[seat]} is not to move: after the play it is "
                                f"{SEATS[profile.seat_after(leader, len(trick))]}'s turn")
        held = [profile.cards_per_hand - players.count(s) for s in range(4)]
        sizes = (held[0], held[1], held[2], held[3])
        if len(hand_cards) != sizes[seat]:
            raise PositionError("hand", f"{n_cards(len(hand_cards))}; {SEATS[seat]} has played "
                                f"{players.count(seat)} so holds {sizes[seat]}")
        hand = sum(1 << c for c in hand_cards)
        fixed = [0, 0, 0, 0]
        dealer = read_dealer(obj.get("dealer"), seats["leader"], profile)
        sc = read_shown(obj.get("shown"), profile)
        if sc is not None:
            if dealer is None:
                raise PositionError("dealer", "missing: needed with 'shown' (the seat that dealt)")
            if profile.trump_from_dealer_card and card_name(sc, profile)[-1] != trump:
                raise PositionError("shown", f"{card_name(sc, profile)} would make "
                                    f"{card_name(sc, profile)[-1]} trump, not {trump}")
            if sc in play:
                if players[play.index(sc)] != dealer:
                    raise PositionError("shown", f"{card_name(sc, profile)} was played by "
                                        f"{SEATS[players[play.index(sc)]]}, not the dealer")
            elif dealer == seat:
                if not hand >> sc & 1:
                    raise PositionError("shown", f"{card_name(sc, profile)} is not in your hand")
            elif hand >> sc & 1:
                raise PositionError("shown", f"{card_name(sc, profile)} is in your hand ({SEATS[seat]}), "
                                    f"not the dealer {SEATS[dealer]}'s")
            else:
                fixed[dealer] |= 1 << sc
        full = sum(1 << c for c in deck(profile))
        unseen = full & ~hand & ~sum(1 << c for c in play) & ~sum(fixed)
        led = 0
        if profile.protected_rank is not None:
            for t in history:
                led |= 1 << (t[0] >> 4)
            if trick:
                led |= 1 << (trick[0] >> 4)
        view = cls(profile, trump, seat, hand, seats["leader"], tuple(play), tuple(players), leader,
                   tuple(trick), tuple(history), led, sizes, (fixed[0], fixed[1], fixed[2], fixed[3]), unseen)
        return view._with_inferences()

    # ------------------------------------------------------------ inferences

    def _replay_states(self) -> Iterator[tuple[int, int, tuple[int, ...], int, int, int]]:
        """(index, seat, trick so far, leader, led, card) for every card of the play."""
        tindex = trump_index(self.trump)
        leader, led = self.first_leader, 0
        trick: tuple[int, ...] = ()
        for i, (c, s) in enumerate(zip(self.play, self.players)):
            yield i, s, trick, leader, led, c
            if not trick and self.profile.protected_rank is not None:
                led |= 1 << (c >> 4)
            trick = trick + (c,)
            if len(trick) == 4:
                leader = self.profile.seat_after(leader, _core.trick_winner(trick, tindex))
                trick = ()

    def _later(self) -> list[int]:
        """For each card of the play, the mask of the cards its player played after it."""
        out = [0] * len(self.play)
        acc = [0, 0, 0, 0]
        for i in range(len(self.play) - 1, -1, -1):
            out[i] = acc[self.players[i]]
            acc[self.players[i]] |= 1 << self.play[i]
        return out

    def _with_inferences(self) -> View:
        rules = core_rules(self.profile)
        tindex = trump_index(self.trump)
        later = self._later()
        excluded = [0, 0, 0, 0]
        for i, s, trick, leader, led, c in self._replay_states():
            if s == self.seat:   # the viewer's own cards tell nothing, but must have been legal
                self._check_play(i, s, c, self.hand | later[i] | 1 << c, trick, leader, led, rules, tindex)
                continue
            if not trick:
                continue   # nor do leads
            base = (1 << c) | later[i] | self.fixed[s]
            # a card refused with only the cards the seat is known to hold is refused in every
            # layout, since a card never becomes legal as a hand grows
            self._check_play(i, s, c, base, trick, leader, led, rules, tindex)
            for u in cards_of(self.unseen & ~excluded[s]):
                hands = [0, 0, 0, 0]
                hands[s] = base | 1 << u
                mask, _, _ = _core.legal_moves(rules, tuple(hands), tindex, leader, trick, led)
                if not mask >> c & 1:
                    excluded[s] |= 1 << u
        out = replace(self, excluded=(excluded[0], excluded[1], excluded[2], excluded[3]))
        if count_layouts(out) == 0:
            raise AdviceError("no layout of the unseen cards fits the play and the hand sizes")
        return out

    def _check_play(self, i: int, seat: int, c: int, hand: int, trick: tuple[int, ...], leader: int, led: int,
                    rules: _core.Rules, tindex: int) -> None:
        """Raise IllegalPlay on play[i] unless `seat`, holding `hand`, could play c."""
        hands = [0, 0, 0, 0]
        hands[seat] = hand
        mask, reason, winning = _core.legal_moves(rules, tuple(hands), tindex, leader, trick, led)
        if not mask >> c & 1:
            raise IllegalPlay(f"play[{i}]", refusal(seat, c, mask, reason, winning, trick, self.profile))

    @property
    def hidden(self) -> tuple[int, ...]:
        return tuple(s for s in range(4) if s != self.seat)

    @cached_property
    def _layout_tables(self) -> tuple[list, list[dict]]:
        """`_completions` of this view, worked out once."""
        return _completions(self)

    @cached_property
    def _choice_memo(self) -> dict:
        """The splits `_choices` has worked out for this view."""
        return {}

    @cached_property
    def _follows(self) -> tuple[tuple[int, tuple[int, ...], int, int, int, int], ...]:
        """The cards the hidden seats played to a trick already led, each as (seat, trick so far,
        leader, led, card, the card and those its player played after it): what `consistent` replays."""
        later = self._later()
        return tuple((s, trick, leader, led, c, later[i] | 1 << c)
                     for i, s, trick, leader, led, c in self._replay_states() if s != self.seat and trick)

    def consistent(self, hands: tuple[int, int, int, int]) -> bool:
        """Whether every card of the play was legal with these current hands (the rules engine)."""
        rules = core_rules(self.profile)
        tindex = trump_index(self.trump)
        for s, trick, leader, led, c, played in self._follows:
            h = [0, 0, 0, 0]
            h[s] = hands[s] | played
            mask, _, _ = _core.legal_moves(rules, tuple(h), tindex, leader, trick, led)
            if not mask >> c & 1:
                return False
        return True

    def position(self, hands: tuple[int, int, int, int]) -> Position:
        """The full position of a layout (with its history)."""
        return Position(self.profile, self.trump, hands, self.leader, self.trick, self.led, self.history,
                        self.first_leader)

    def inferences(self) -> dict[str, str]:
        """The cards each hidden seat is known not to hold, for a person."""
        return {SEATS[s]: format_cards(cards_of(self.excluded[s]), self.profile) for s in self.hidden}


# ---------------------------------------------------------------- counting and sampling


def _groups(view: View) -> list[tuple[tuple[int, ...], list[int]]]:
    """The unseen cards grouped by the hidden seats allowed to hold them (sorted, deterministic)."""
    by: dict[tuple[int, ...], list[int]] = {}
    for u in sorted(cards_of(view.unseen)):
        allowed = tuple(s for s in view.hidden if not view.excluded[s] >> u & 1)
        by.setdefault(allowed, []).append(u)
    return sorted(by.items())


def _needs(view: View) -> tuple[int, int, int]:
    """Unseen cards each hidden seat must receive."""
    a, b, c = (view.sizes[s] - bin(view.fixed[s]).count("1") for s in view.hidden)
    return a, b, c


def _splits(n: int, allowed: tuple[int, ...], hidden: tuple[int, ...]) -> Iterator[tuple[int, int, int]]:
    ok = [s in allowed for s in hidden]
    for a in range(n + 1 if ok[0] else 1):
        for b in range(n - a + 1 if ok[1] else 1):
            c = n - a - b
            if c and not ok[2]:
                continue
            yield a, b, c


def _ways(n: int, split: tuple[int, int, int]) -> int:
    return math.factorial(n) // (math.factorial(split[0]) * math.factorial(split[1]) * math.factorial(split[2]))


def _completions(view: View) -> tuple[list, list[dict]]:
    """Groups and, per group index g, a dict (need_a, need_b, need_c) -> layouts of groups g.. that fill them."""
    groups = _groups(view)
    tables: list[dict] = [dict() for _ in range(len(groups) + 1)]
    tables[len(groups)][(0, 0, 0)] = 1

    def count(g: int, need: tuple[int, int, int]) -> int:
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


def count_layouts(view: View) -> int:
    """Layouts of the unseen cards respecting the sizes and the per-card inferences."""
    groups, tables = view._layout_tables
    return tables[0].get(_needs(view), 0)


def _choices(view: View, g: int, need: tuple[int, int, int]) -> tuple[list[tuple[int, int, int]], list[int]]:
    """How group g's cards can split among the hidden seats when they still need `need`, and
    the layouts of groups g.. each split leaves (its weight in a uniform draw); kept on the view."""
    key = (g, need)
    if key not in view._choice_memo:
        groups, tables = view._layout_tables
        allowed, cards = groups[g]
        splits, weights = [], []
        for split in _splits(len(cards), allowed, view.hidden):
            rest = (need[0] - split[0], need[1] - split[1], need[2] - split[2])
            if min(rest) >= 0:
                w = _ways(len(cards), split) * tables[g + 1].get(rest, 0)
                if w:
                    splits.append(split)
                    weights.append(w)
        view._choice_memo[key] = (splits, weights)
    return view._choice_memo[key]


def sample_layout(view: View, rng: random.Random) -> tuple[int, int, int, int]:
    """One layout drawn uniformly among those `count_layouts` counts (current hands, all four seats)."""
    groups, _ = view._layout_tables
    need = _needs(view)
    hands = list(view.fixed)
    hands[view.seat] = view.hand
    for g, (_, cards) in enumerate(groups):
        splits, weights = _choices(view, g, need)
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


# ---------------------------------------------------------------- the advice


@dataclass(frozen=True)
class CardAdvice:
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


def _rank(c: CardAdvice, goal: int | None) -> tuple:
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
                solver: Solver | None = None, every: int = 10, max_attempts: int | None = None,
                timeout: float | None = None) -> Iterator[Advice]:
    """Partial advice every `every` samples (`done=False`), then the final advice (`done=True`).
    A bad view or option is refused at the call, before any advice is asked for."""
    steps = advice_steps(view, samples, seed, goal, solver, every, max_attempts, timeout)
    return (advice for advice in steps if advice is not None)


def advice_steps(view: View | dict[str, Any] | str | bytes, samples: int = 100, seed: int = 0, goal: int | None = None,
                 solver: Solver | None = None, every: int = 10, max_attempts: int | None = None,
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


def _advice_steps(view: View, samples: int, seed: int, goal: int | None, solver: Solver, every: int,
                  max_attempts: int | None, timeout: float | None) -> Iterator[Advice | None]:
    rng = seeded(seed)
    layouts = count_layouts(view)
    legal, _, _ = view.position(sample_layout(view, seeded(seed))).legal_mask()
    tallies = {card_name(c, view.profile): _Tally() for c in cards_of(legal)}
    limit = max_attempts if max_attempts is not None else 100 * samples
    attempts = rejected = 0
    n = 0
    while n < samples:
        if attempts >= limit:
            raise AdviceError(f"{rejected} of {attempts} drawn layouts contradicted the play "
                              f"(max_attempts {limit}): too few consistent layouts were found")
        attempts += 1
        hands = sample_layout(view, rng)
        if not view.consistent(hands):
            rejected += 1
            yield None
            continue
        sol = solver.solve(view.position(hands), mode="all", timeout=timeout)
        for card, v in sol.values.items():
            tallies[card].add(v, goal)
        n += 1
        if n % every == 0 and n < samples:
            yield _summarise(view, tallies, n, goal, rejected, layouts, False)
        elif n < samples:
            yield None
    yield _summarise(view, tallies, n, goal, rejected, layouts, True)


def advise(view: View | dict[str, Any] | str | bytes, samples: int = 100, seed: int = 0, goal: int | None = None,
           solver: Solver | None = None, progress: Callable[[int], object] | None = None,
           max_attempts: int | None = None, timeout: float | None = None) -> Advice:
    """The advice after `samples` layouts (see the module's docstring); `progress(n)` after each sample."""
    last = None
    for last in advise_iter(view, samples, seed, goal, solver, 1, max_attempts, timeout):
        if progress is not None:
            progress(last.samples)
    assert last is not None   # the steps end with the final advice
    return last


def view_of(deal: dict[str, Any], play: list[str], seat: str | None = None,
            profile: Profile | str | None = None) -> dict[str, Any]:
    """The view JSON of the player to move after `play` from a full deal's position JSON (`profile`:
    a variant's rules)."""
    start = Position.from_json({k: v for k, v in deal.items() if k != "play"}, profile=profile)
    pos = start
    for c in play:
        pos = pos.play(c)
    s = SEATS[pos.to_move] if seat is None else seat
    out = {"game": start.profile.name, "trump": start.trump, "seat": s, "hand": " ".join(pos.hand(s)),
           "leader": SEATS[start.leader], "play": list(play)}
    if deal.get("shown") is not None:
        out["shown"] = deal["shown"]
        out["dealer"] = deal.get("dealer") or SEATS[start.profile.seat_after(start.leader, -1)]
    return out


def consistent_layouts(view: View, count: int, seed: int = 0, max_attempts: int | None = None
                       ) -> list[tuple[int, int, int, int]]:
    """`count` layouts drawn uniformly among those consistent with the play (no solving)."""
    check_whole("count", count, 1)
    check_whole("seed", seed)
    if max_attempts is not None:
        check_whole("max_attempts", max_attempts, 1)
    rng = seeded(seed)
    out: list[tuple[int, int, int, int]] = []
    limit = max_attempts if max_attempts is not None else 100 * count
    for _ in range(limit):
        if len(out) == count:
            break
        hands = sample_layout(view, rng)
        if view.consistent(hands):
            out.append(hands)
    if len(out) < count:
        raise AdviceError(f"only {len(out)} consistent layouts in {limit} draws")
    return out


__all__ += ["consistent_layouts"]


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
    top, mine = advice.cards[0], cards[card]
    loss = top.mean - mine.mean
    se = math.hypot(top.se, mine.se)
    significant = loss > 0.5 and loss > 2 * se
    kind = ("mistake" if cost > 0 else "lucky") if significant else ("unlucky" if cost > 0 else "good")
    return {"mean": round(mine.mean, 4), "best_mean": round(top.mean, 4), "loss": round(loss, 4),
            "loss_se": round(se, 4), "best": advice.best, "samples": advice.samples, "verdict": kind}


__all__ += ["verdict", "VERDICTS"]
