"""One seat's view of a deal: its hand and the public play, read and checked, with what the play
shows of the hidden hands.

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
played. A view that no layout of the unseen cards fits is refused (`AdviceError`).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from . import _core
from .cards import SEATS, card_name, cards_of, deck, format_cards
from .layouts import AdviceError, LayoutTables, count_layouts
from .errors import IllegalPlay, PositionError
from .jsonlines import json_object
from .position import Position, card_texts, cards_field, game_profile, read_dealer, read_seat, read_shown
from .profiles import Profile
from .quoting import counted
from .rules import core_rules, refusal, trump_index

__all__ = ["View", "view_of", "VIEW_KEYS"]

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
    dealer: int
    """The seat that dealt, before the first leader."""
    shown: int | None
    """The dealer's shown card, if the view has one."""
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
            raise PositionError("hand", f"{counted(len(hand_texts), 'card')}; the {profile.name} deck has "
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
            raise PositionError("hand", f"{counted(len(hand_cards), 'card')}; {SEATS[seat]} has played "
                                f"{players.count(seat)} so holds {sizes[seat]}")
        hand = sum(1 << c for c in hand_cards)
        fixed = [0, 0, 0, 0]
        dealer = read_dealer(obj.get("dealer"), seats["leader"], profile)
        if dealer is None:   # the seat before the first leader, as for a played deal
            dealer = profile.seat_after(seats["leader"], -1)
        sc = read_shown(obj.get("shown"), profile)
        if sc is not None:
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
                   tuple(trick), tuple(history), led, sizes, (fixed[0], fixed[1], fixed[2], fixed[3]), unseen,
                   dealer, sc)
        return view._with_inferences()

    def to_json(self) -> dict[str, Any]:
        """The view JSON, which `from_json` reads back as this view (a variant's with its `profile`)."""
        out: dict[str, Any] = {"game": self.profile.name, "trump": self.trump, "seat": SEATS[self.seat],
                               "hand": format_cards(cards_of(self.hand), self.profile),
                               "leader": SEATS[self.first_leader],
                               "play": [card_name(c, self.profile) for c in self.play]}
        if self.shown is not None:
            out["shown"] = card_name(self.shown, self.profile)
            out["dealer"] = SEATS[self.dealer]
        return out

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
    def layout_tables(self) -> LayoutTables:
        """The counts of this view's layouts (`solver.layouts`), worked out once."""
        return LayoutTables(self)

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


def view_of(deal: dict[str, Any], play: list[str], profile: Profile | str | None = None) -> dict[str, Any]:
    """The view JSON of the player to move after `play` from a full deal's position JSON (`profile`:
    a variant's rules)."""
    start = Position.from_json({k: v for k, v in deal.items() if k != "play"}, profile=profile)
    pos = start
    for c in play:
        pos = pos.play(c)
    s = SEATS[pos.to_move]
    out = {"game": start.profile.name, "trump": start.trump, "seat": s, "hand": " ".join(pos.hand(s)),
           "leader": SEATS[start.leader], "play": list(play)}
    if deal.get("shown") is not None:
        out["shown"] = deal["shown"]
        out["dealer"] = deal.get("dealer") or SEATS[start.profile.seat_after(start.leader, -1)]
    return out
