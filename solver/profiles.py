"""Game rules as data: one `Profile` per regional variant."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .checks import check_whole
from .quoting import quoted

__all__ = ["Profile", "MALILLA", "MANILLE", "PROFILES", "LONGEST_DEAL", "get_profile", "as_profile"]

MAX_RANKS = 10
"""Ranks per suit the search core holds (a deck of at most 40 cards)."""
MAX_CARD_POINTS = 7
"""Points of one card the search core holds."""
MAX_DEAL_POINTS = 126
"""Points of one deal (cards and trick bonuses) the search core holds: its table keeps bounds in 8 bits."""
MAX_KEYED_RANKS = 6
"""Ranks per suit above the worthless bottom ones that the search core's table key holds."""
FLAGS = ("clockwise", "undertrump_ban", "no_trump_allowed", "tie_doubles_next", "slam_wins_match", "dealer_bonus",
         "trump_from_dealer_card", "illegal_play_loses_match")

PROFILES: dict[str, Profile] = {}
"""The shipped games by name (filled below): no other profile may take one of their names."""


@dataclass(frozen=True)
class Profile:
    """Everything that distinguishes one game of the family from another.

    No code compares a game's name: every rule reads one of these fields.
    """

    name: str
    ranks: tuple[str, ...]
    """Ranks from high to low."""
    points: tuple[int, ...]
    """Card points, aligned with `ranks`."""
    trick_bonus: int
    """Points for each trick won, on top of card points."""
    clockwise: bool
    """Direction of play (N E S W is clockwise)."""
    protected_rank: str | None
    """A non-trump card of this rank may not be discarded while its suit is unled."""
    undertrump_ban: bool
    """After a trump on a plain suit, a lower trump may not be played unless nothing else is held."""
    no_trump_allowed: bool
    cards_per_hand: int
    match_target: int
    """First side at this many match points wins."""
    capot_multiplier: int
    """Deal score factor when the winners took every trick."""
    no_trump_multiplier: int
    tie_doubles_next: bool
    """A tied deal doubles the next deal's score (one pending doubling at most)."""
    slam_wins_match: bool
    """Taking every trick wins the match at once."""
    dealer_bonus: bool
    """The shown trump card's points go to the dealer's side as match points."""
    packets: tuple[int, ...]
    """Packet sizes of one round of dealing, repeated until the hands are full."""
    trump_from_dealer_card: bool
    """Trump is the suit of the dealer's last card (otherwise the dealer names it)."""
    illegal_play_loses_match: bool

    def __post_init__(self) -> None:
        """Refuse fields that do not make a game the engine can play (ValueError naming the field)."""
        def refuse(field: str, problem: str) -> None:
            raise ValueError(f"Profile {self.name}: {field}: {problem}")

        if not isinstance(self.name, str) or not self.name or not self.name.isprintable():
            raise ValueError(f"Profile: name: {quoted(self.name)} is not a name (printable text)")
        if not isinstance(self.ranks, tuple) or not 1 <= len(self.ranks) <= MAX_RANKS or \
                not all(isinstance(r, str) for r in self.ranks) or len(set(self.ranks)) != len(self.ranks):
            refuse("ranks", f"expected 1 to {MAX_RANKS} different rank names, high to low")
        for rank in self.ranks:
            if not (1 <= len(rank) <= 2 and rank.isascii() and rank.isalnum() and rank == rank.upper()):
                refuse("ranks", f"{quoted(rank)} is not a rank name: 1 or 2 upper-case letters or digits, "
                       "as cards are read (7S, 10D)")
        if not isinstance(self.points, tuple) or len(self.points) != len(self.ranks):
            refuse("points", f"expected a tuple of {len(self.ranks)} values, one per rank")
        for i, points in enumerate(self.points):
            check_whole(f"Profile {self.name}: points[{i}]", points, 0)
            if points > MAX_CARD_POINTS:
                refuse(f"points[{i}]", f"{points} is more than the {MAX_CARD_POINTS} points a card may hold")
        check_whole(f"Profile {self.name}: trick_bonus", self.trick_bonus, 0)
        if self.protected_rank is not None and self.protected_rank not in self.ranks:
            refuse("protected_rank", f"{quoted(self.protected_rank)} is not one of the ranks")
        keyed = len(self.ranks) - self._worthless_ranks()
        if keyed > MAX_KEYED_RANKS:
            if len(self.ranks) - self._worthless_ranks(protected=False) <= MAX_KEYED_RANKS:
                refuse("protected_rank", f"{quoted(self.protected_rank)} among the worthless ranks leaves {keyed} "
                       f"ranks above the ones the search keys by their order alone, and it holds at most "
                       f"{MAX_KEYED_RANKS}: protect the top or the bottom of the worthless ones, or a rank above")
            refuse("points", f"{keyed} ranks of a suit stand above its worthless bottom ones (worth no points, up to "
                   f"a protected one among them); the search holds at most {MAX_KEYED_RANKS}")
        for name in FLAGS:
            if not isinstance(getattr(self, name), bool):
                refuse(name, f"{quoted(getattr(self, name))} is not True or False")
        if self.no_trump_allowed and self.trump_from_dealer_card:
            refuse("no_trump_allowed", "trump is the suit of the dealer's shown card (trump_from_dealer_card), "
                   "never no trump")
        check_whole(f"Profile {self.name}: cards_per_hand", self.cards_per_hand, 1)
        if self.cards_per_hand != len(self.ranks):
            refuse("cards_per_hand", f"{quoted(self.cards_per_hand)}, but four hands share the "
                   f"{4 * len(self.ranks)} cards of {len(self.ranks)} ranks")
        if self.total_points == 0:
            refuse("points", "a deal worth no points (cards and tricks) has nothing to play for")
        if self.total_points > MAX_DEAL_POINTS:
            refuse("points", f"a deal of {self.total_points} points (cards and tricks) is more than the "
                   f"{MAX_DEAL_POINTS} the search holds")
        for name in ("match_target", "capot_multiplier", "no_trump_multiplier"):
            check_whole(f"Profile {self.name}: {name}", getattr(self, name), 1)
        if not isinstance(self.packets, tuple) or not self.packets:
            refuse("packets", "expected a tuple of packet sizes")
        for i, size in enumerate(self.packets):
            check_whole(f"Profile {self.name}: packets[{i}]", size, 1)
        shipped = PROFILES.get(self.name.lower())
        if shipped is not None and self != shipped:
            refuse("name", f"{quoted(self.name)} names the shipped {shipped.name}, whose JSON reads back by "
                   "its rules: a variant needs a name of its own")

    def strength(self, rank: str) -> int:
        """The rank's order in a suit, 0 for the lowest: the low four bits of its cards."""
        return len(self.ranks) - 1 - self.ranks.index(rank)

    def _worthless_ranks(self, protected: bool = True) -> int:
        """How many ranks at the bottom of a suit the search keys by their order alone: those worth no
        points, up to a protected one among them (whose place the key then knows: their top); with
        `protected` False, as if no rank were protected."""
        low = 0
        while low < len(self.points) and self.points[-1 - low] == 0:
            low += 1
        if protected and self.protected_rank is not None:
            strength = self.strength(self.protected_rank)
            if 0 < strength < low - 1:
                low = strength + 1
        return low

    def __repr__(self) -> str:
        return f"<Profile {self.name}>"

    def __reduce__(self) -> tuple[type[Profile], tuple[Any, ...]]:
        """Pickled and copied by its fields, so that a copy is made, and checked, as the original was."""
        return Profile, tuple(getattr(self, f.name) for f in fields(self))

    def __hash__(self) -> int:
        """The hash of the name: equal profiles share it, and Python keeps a string's hash, so the
        caches keyed by a profile (its core rules, its card names) find it without hashing every
        field on every call."""
        return hash(self.name)

    @property
    def deck_points(self) -> int:
        """Card points of the whole deck."""
        return 4 * sum(self.points)

    @property
    def tricks(self) -> int:
        return self.cards_per_hand

    @property
    def deck_size(self) -> int:
        """Cards in the deck, dealt out to four hands."""
        return 4 * self.cards_per_hand

    @property
    def total_points(self) -> int:
        """Points shared out in one deal (cards plus trick bonuses)."""
        return self.deck_points + self.tricks * self.trick_bonus

    @property
    def half(self) -> int:
        """The score above which a side scores its excess."""
        return self.total_points // 2

    @property
    def step(self) -> int:
        """Seat index increment (N=0 E=1 S=2 W=3) from one player to the next."""
        return 1 if self.clockwise else 3

    def seat_after(self, seat: int, turns: int = 1) -> int:
        """The seat `turns` players after `seat` in the direction of play (before it when negative).

        >>> from solver.profiles import get_profile
        >>> get_profile("manille").seat_after(0), get_profile("malilla").seat_after(0, 2)
        (1, 2)
        >>> get_profile("malilla").seat_after(0, -1)
        1
        """
        return (seat + turns * self.step) % 4


MALILLA = Profile(
    name="malilla",
    ranks=("7", "A", "K", "Q", "J", "6", "5", "4", "3", "2"),
    points=(5, 4, 3, 2, 1, 0, 0, 0, 0, 0),
    trick_bonus=1,
    clockwise=False,
    protected_rank="7",
    undertrump_ban=False,
    no_trump_allowed=False,
    cards_per_hand=10,
    match_target=35,
    capot_multiplier=1,
    no_trump_multiplier=1,
    tie_doubles_next=False,
    slam_wins_match=True,
    dealer_bonus=True,
    packets=(1,),
    trump_from_dealer_card=True,
    illegal_play_loses_match=True,
)

MANILLE = Profile(
    name="manille",
    ranks=("10", "A", "K", "Q", "J", "9", "8", "7"),
    points=(5, 4, 3, 2, 1, 0, 0, 0),
    trick_bonus=0,
    clockwise=True,
    protected_rank=None,
    undertrump_ban=True,
    no_trump_allowed=True,
    cards_per_hand=8,
    match_target=101,
    capot_multiplier=2,
    no_trump_multiplier=2,
    tie_doubles_next=True,
    slam_wins_match=False,
    dealer_bonus=False,
    packets=(3, 2, 3),
    trump_from_dealer_card=False,
    illegal_play_loses_match=False,
)

PROFILES.update((p.name, p) for p in (MALILLA, MANILLE))
LONGEST_DEAL = max(PROFILES.values(), key=lambda profile: profile.tricks)
"""The shipped game whose deals have the most tricks."""


def as_profile(profile: Profile | str) -> Profile:
    """`profile` itself, or the shipped profile it names."""
    return profile if isinstance(profile, Profile) else get_profile(profile)


def get_profile(name: str) -> Profile:
    """The shipped profile called `name` (case-insensitive)."""
    try:
        return PROFILES[name.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"unknown game {quoted(name)}; expected one of {', '.join(PROFILES)}") from None
