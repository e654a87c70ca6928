"""Dealing a shuffled deck by each game's procedure, from a seed.

Seats are N=0 E=1 S=2 W=3; "next" always means the next seat in the profile's
playing direction, ``profile.seat_after(seat)``.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import cycle
from typing import Any

from . import cards
from .checks import check_whole
from .position import Position
from .profiles import Profile, as_profile
from .quoting import quoted

__all__ = ["Deal", "deal", "next_dealer"]


def next_dealer(profile: Profile, dealer: int) -> int:
    """The deal passes in the playing direction (Malilla to the right, Manille to the left)."""
    return profile.seat_after(cards.check_seat(dealer, "dealer"))


@dataclass(frozen=True)
class Deal:
    """The start of one deal: four full hands, trump and the first leader."""

    profile: Profile
    dealer: int
    hands: tuple[tuple[int, ...], ...]
    """Hands by seat index, each sorted with `cards.sort_key`."""
    trump: str
    """``S H D C``, or ``NT`` where the profile allows it."""
    shown: int | None
    """The dealer's last card, shown to fix trump; None when the dealer names trump."""
    leader: int

    def to_position_json(self) -> dict[str, Any]:
        """The position JSON (the format README.md sets out) of the first lead, plus ``dealer``."""
        position = {
            "game": self.profile.name,
            "trump": self.trump,
            "hands": {cards.seat_name(s): cards.format_cards(h, self.profile) for s, h in enumerate(self.hands)},
            "leader": cards.seat_name(self.leader),
            "trick": [],
        }
        if self.profile.protected_rank is not None:
            position["led_suits"] = ""
        position["to_move"] = cards.seat_name(self.leader)
        position["dealer"] = cards.seat_name(self.dealer)
        return position

    def to_deal_json(self) -> dict[str, Any]:
        """The start of the deal as `malilla-dd analyze` reads it: the position
        JSON with ``dealer`` and, when the dealer showed a card, ``shown``."""
        obj = self.to_position_json()
        if self.shown is not None:
            obj["shown"] = cards.card_name(self.shown, self.profile)
        return obj


def seeded(seed: int) -> random.Random:
    """The random stream of `seed`: ``random.Random(seed)``, but a negative seed has a stream of
    its own (Random would use its absolute value)."""
    return random.Random(seed if seed >= 0 else f"negative seed {seed}")


def deal(profile: Profile | str, seed: int, dealer: int = 0, trump: str | None = None) -> Deal:
    """Shuffle the profile's deck (a `Profile` or a game's name) with ``seeded(seed)`` and deal it.

    Packets of ``profile.packets`` (repeated) go to each seat in the playing
    direction, starting with the seat after the dealer, so the dealer gets the
    last packet of every round. When ``profile.trump_from_dealer_card`` the
    dealer's last card is shown and fixes trump; `trump` must then be None.
    Otherwise the dealer names trump: `trump` if given, else a choice among
    ``cards.trump_choices(profile)`` drawn from the same RNG right after the shuffle.
    """
    profile = as_profile(profile)
    check_whole("seed", seed)
    cards.check_seat(dealer, "dealer")
    if profile.trump_from_dealer_card and trump is not None:
        raise ValueError(f"in {profile.name} the dealer's last card fixes trump; do not pass trump={quoted(trump)}")
    if trump is not None:
        trump = cards.parse_trump(trump, profile, "trump")
    n = profile.cards_per_hand
    pack = cards.deck(profile)
    rng = seeded(seed)
    rng.shuffle(pack)

    order = [profile.seat_after(dealer, k) for k in range(1, 5)]  # the dealer comes last
    hands: list[list[int]] = [[] for _ in range(4)]
    dealt = 0
    for size in cycle(profile.packets):
        if len(hands[dealer]) == n:
            break
        for seat in order:
            take = min(size, n - len(hands[seat]))
            hands[seat] += pack[dealt:dealt + take]
            dealt += take

    shown = None
    if profile.trump_from_dealer_card:
        shown = hands[dealer][-1]
        trump = cards.SUITS[cards.card_suit(shown)]
    elif trump is None:
        trump = rng.choice(cards.trump_choices(profile))
    return Deal(
        profile=profile,
        dealer=dealer,
        hands=tuple(tuple(sorted(h, key=cards.sort_key)) for h in hands),
        trump=trump,
        shown=shown,
        leader=order[0],
    )


def random_play(position: Position, rng: random.Random, cards: int | None = None) -> list[str]:
    """Random legal cards from `position` drawn with `rng`: to the end of the deal, or the first `cards`."""
    play: list[str] = []
    while not position.is_over and (cards is None or len(play) < cards):
        card = rng.choice(position.legal_moves())
        play.append(card)
        position = position.play(card)
    return play
