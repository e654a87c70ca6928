"""Suits, seats and cards: parsing and formatting.

A card is an int: ``suit * 16 + strength``, where suits are S=0 H=1 D=2 C=3 and
strength 0 is the profile's lowest rank. Bit ``card`` of a 64-bit hand mask is
that card, so a suit occupies 16 bits and higher cards sit on higher bits.

>>> from solver.profiles import MALILLA
>>> card_name(parse_card("7♠", MALILLA), MALILLA)
'7S'
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TypeGuard

from .profiles import Profile
from .quoting import quoted

__all__ = [
    "SUITS", "SEATS", "NO_TRUMP", "CardError", "parse_card", "parse_cards", "is_card", "check_card", "card_name",
    "card_names", "format_cards", "card_suit", "card_points", "trick_points", "deck", "sort_key", "parse_seat", "is_seat",
    "check_seat", "seat_name", "parse_suit", "trump_choices", "parse_trump", "mask_of", "cards_of",
]

SUITS = ("S", "H", "D", "C")
SEATS = ("N", "E", "S", "W")
NO_TRUMP = "NT"
_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}


class CardError(ValueError):
    """A card, suit or seat that cannot be read."""


def parse_suit(text: str) -> int:
    """Suit index of ``S H D C`` (or a suit symbol), case-insensitive."""
    s = _SYMBOLS.get(text, text.upper() if isinstance(text, str) and text.isascii() else text)
    if s not in SUITS:
        raise CardError(f"{quoted(text)} is not a suit (S H D C)")
    return SUITS.index(s)


def parse_card(text: str, profile: Profile) -> int:
    """Read ``7S``, ``10d``, ``A♥``... as a card of `profile`'s deck."""
    if not isinstance(text, str) or len(text) < 2:
        raise CardError(f"{quoted(text)} is not a card (rank then suit, like 7S)")
    if len(text) > 3:
        raise CardError(f"{quoted(text)} is not a card (rank then suit, like 7S; cards are separated by spaces)")
    rank, suit = text[:-1], text[-1]
    if not rank.isascii():   # before upper(), which spells some letters in ASCII ("ß" as "SS")
        raise CardError(f"{quoted(text)} is not a card (rank then suit, like 7S)")
    try:
        s = parse_suit(suit)
    except CardError:
        raise CardError(f"{quoted(text)} is not a card: {quoted(suit)} is not a suit") from None
    rank = rank.upper()
    if rank not in profile.ranks:
        raise CardError(f"{quoted(text)} is not in the {profile.name} deck (ranks {' '.join(profile.ranks)})")
    return s * 16 + profile.strength(rank)


def trump_choices(profile: Profile) -> tuple[str, ...]:
    """What a dealer may name: the four suits, plus NT where the profile allows it."""
    return SUITS + ((NO_TRUMP,) if profile.no_trump_allowed else ())


def parse_trump(text: str, profile: Profile, field: str | None = None) -> str:
    """Trump as ``S H D C`` or ``NT`` (case-insensitive, suit symbols accepted); CardError (naming
    `field`, if given) for anything else, or NT in a game without no-trump deals."""
    choices = "S H D C or NT" if profile.no_trump_allowed else "S H D C"
    named = f"{field}: " if field else ""
    if not isinstance(text, str):
        raise CardError(f"{named}{'missing' if text is None else quoted(text) + ' is not a trump'} ({choices})")
    if text.upper() == NO_TRUMP:
        if not profile.no_trump_allowed:
            raise CardError(f"{named}{profile.name} has no no-trump deals ({choices})")
        return NO_TRUMP
    try:
        return SUITS[parse_suit(text)]
    except CardError:
        raise CardError(f"{named}{quoted(text)} is not a trump ({choices})") from None


def parse_cards(text: str | Iterable[str], profile: Profile) -> list[int]:
    """Cards from a space-separated string or a list of card strings."""
    items = text.split() if isinstance(text, str) else list(text)
    return [parse_card(t, profile) for t in items]


def is_card(card: object, profile: Profile) -> TypeGuard[int]:
    """Is `card` the number of a card of `profile`'s deck (16 per suit, the profile's ranks from 0)?"""
    return not isinstance(card, bool) and isinstance(card, int) and 0 <= card < 64 and card & 15 < len(profile.ranks)


def check_card(card: int, profile: Profile) -> int:
    """`card` itself when it is the number of a card of the profile's deck, else ValueError."""
    if not is_card(card, profile):
        raise ValueError(f"{quoted(card)} is not a card number of the {profile.name} deck")
    return card


def card_name(card: int, profile: Profile) -> str:
    """The card's name ("7S"); ValueError for a number that is no card of the profile's deck."""
    return profile.ranks[len(profile.ranks) - 1 - (check_card(card, profile) & 15)] + SUITS[card >> 4]


@lru_cache(maxsize=None)
def card_names(profile: Profile) -> tuple[str, ...]:
    """The name of each card number from 0 to 63 ("" for a number that is no card of the deck),
    for naming many cards known to be of the deck."""
    return tuple(card_name(c, profile) if is_card(c, profile) else "" for c in range(64))


def card_suit(card: int) -> int:
    """The suit index (S H D C: 0-3) of a card number, unchecked."""
    return card >> 4


def card_points(card: int, profile: Profile) -> int:
    """The card's points; ValueError for a number that is no card of the profile's deck."""
    return profile.points[len(profile.ranks) - 1 - (check_card(card, profile) & 15)]


def trick_points(trick: Iterable[int], profile: Profile) -> int:
    """What a completed trick is worth to the side that wins it: its cards' points and the trick's."""
    return sum(card_points(c, profile) for c in trick) + profile.trick_bonus


def sort_key(card: int) -> tuple[int, int]:
    """Suits in S H D C order, high cards first."""
    return card >> 4, -(card & 15)


def format_cards(cards: Iterable[int], profile: Profile) -> str:
    """The cards' names, space-separated, in `sort_key` order."""
    return " ".join(card_name(c, profile) for c in sorted(cards, key=sort_key))


def deck(profile: Profile) -> list[int]:
    """Every card of the profile's deck, S H D C, high to low."""
    n = len(profile.ranks)
    return [s * 16 + r for s in range(4) for r in reversed(range(n))]


def mask_of(cards: Iterable[int]) -> int:
    """The mask with the bits of `cards` set."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The card numbers of `mask`, lowest first."""
    if mask < 0:
        raise ValueError(f"{mask} is not a mask of cards: it is negative")
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def parse_seat(text: object) -> int:
    """A seat letter (N E S W, any case) as its index 0-3; CardError for anything else."""
    if not isinstance(text, str) or not text.isascii() or text.upper() not in SEATS:
        raise CardError(f"{quoted(text)} is not a seat (N E S W)")
    return SEATS.index(text.upper())


def is_seat(seat: object) -> TypeGuard[int]:
    """Is `seat` a seat index (0-3)?"""
    return not isinstance(seat, bool) and isinstance(seat, int) and 0 <= seat < 4


def check_seat(seat: int, field: str | None = None) -> int:
    """`seat` itself when it is a seat index 0-3, else ValueError (naming `field`, if given)."""
    if not is_seat(seat):
        raise ValueError(f"{field + ': ' if field else ''}{quoted(seat)} is not a seat index (N=0 E=1 S=2 W=3)")
    return seat


def seat_name(seat: int) -> str:
    """The seat's letter (N E S W); ValueError for a number that is no seat index."""
    return SEATS[check_seat(seat)]
