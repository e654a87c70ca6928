"""`Position`: a moment of a deal, read from and written to the position JSON.

>>> p = Position.from_json({"game": "malilla", "trump": "S",
...     "hands": {"N": "AH 3C", "E": "2H 4C", "S": "KH 5C", "W": "7H 3H"},
...     "leader": "N", "trick": [], "led_suits": "S"})
>>> p.legal_moves()
['3C', 'AH']
>>> p.play("AH").legal_moves()    # West plays next and must beat the ace: not 3H
['7H']
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Any

from . import _core
from .cards import (SEATS, SUITS, CardError, card_name, cards_of, check_seat, format_cards, is_card,
                    is_seat, deck, mask_of, parse_card, parse_seat, parse_suit, parse_trump, trick_points)
from .errors import IllegalPlay, PositionError
from .jsonlines import json_object
from .profiles import Profile, as_profile, get_profile
from .quoting import counted, quoted
from .rules import core_rules, refusal, trump_index

__all__ = ["Position"]


def _suits(mask: int) -> str:
    """The suits of a bit-per-suit mask, as led_suits writes them."""
    return "".join(s for i, s in enumerate(SUITS) if mask >> i & 1)


def read_seat(value: Any, field: str) -> int:
    """A seat field (N E S W), or `PositionError` naming `field`."""
    if value is None:
        raise PositionError(field, "missing (N E S W)")
    try:
        return parse_seat(value)
    except CardError as e:
        raise PositionError(field, str(e)) from None


def read_dealer(value: Any, leader: int | None, profile: Profile) -> int | None:
    """The `dealer` field of a deal's start: None when not given, else a seat, which must sit
    before the first leader `leader` (when that is known)."""
    if value is None:
        return None
    dealer = read_seat(value, "dealer")
    if leader is not None and profile.seat_after(dealer) != leader:
        raise PositionError("dealer", f"{SEATS[dealer]} deals, so {SEATS[profile.seat_after(dealer)]} leads the "
                            f"first trick, not {SEATS[leader]}")
    return dealer


def read_shown(value: Any, profile: Profile) -> int | None:
    """The `shown` field, the dealer's shown card of a game whose dealer shows one (to fix trump or
    for a dealer's bonus): None when not given, else a card of the deck."""
    if value is None:
        return None
    if not (profile.dealer_bonus or profile.trump_from_dealer_card):
        raise PositionError("shown", f"{profile.name} has no dealer's bonus and no shown card")
    if not isinstance(value, str):
        raise PositionError("shown", "expected a card string")
    try:
        return parse_card(value, profile)
    except CardError as e:
        raise PositionError("shown", str(e)) from None


def holds_suit(hand: int, suit: str) -> bool:
    """Does the hand (a mask of cards) hold a card of `suit` (``S H D C``)?"""
    return bool(hand >> (16 * SUITS.index(suit)) & 0xFFFF)


def check_dealer_holds_trump(start: Position, dealer: int) -> None:
    """Where the dealer's shown card fixes trump, the dealer holds a card of the trump at the
    deal's start (the shown card goes back to the dealer's hand)."""
    if start.profile.trump_from_dealer_card and not holds_suit(start.hands[dealer], start.trump):
        raise PositionError("trump", f"{start.trump}, but the dealer {SEATS[dealer]} holds none: the dealer's "
                            "shown card, whose suit is trump, goes back to the dealer's hand")


def check_history_length(count: int, profile: Profile) -> None:
    """Refuse a history of `count` completed tricks if a `profile` deal has fewer."""
    if count > profile.tricks:
        raise PositionError("history", f"{count} tricks; a {profile.name} deal has {profile.tricks}")


def game_profile(obj: dict[str, Any], profile: Profile | str | None = None) -> Profile:
    """The profile named by the object's `game` field: a shipped one, or `profile` (a variant's
    rules, which its JSON names by the variant's name; or a shipped game's name)."""
    game = obj.get("game")
    if not isinstance(game, str):
        raise PositionError("game", f"{'missing' if game is None else 'not a string'} (malilla or manille)")
    if profile is not None:
        try:
            profile = as_profile(profile)
        except ValueError as e:
            raise ValueError(f"profile: {e}") from None
        if game.lower() != profile.name.lower():
            raise PositionError("game", f"{quoted(game)} is not the game of the profile given ({profile.name})")
        return profile
    try:
        return get_profile(game)
    except ValueError as e:
        raise PositionError("game", str(e)) from None


@functools.cache
def _deck_mask(profile: Profile) -> int:
    """The mask of every card of the profile's deck."""
    return mask_of(deck(profile))


def _four(masks: list[int]) -> tuple[int, int, int, int]:
    """The four hands' masks (N, E, S, W) as a `Position` holds them."""
    n, e, s, w = masks
    return n, e, s, w


def card_texts(value: Any, name: str, profile: Profile) -> list[str]:
    """The card strings of a field (a space-separated string or a list of strings), not yet read,
    so that a caller can refuse too many by their count before reading any. A string of more
    words than the deck has cards is refused before it is split further."""
    if isinstance(value, str):
        texts = value.split(maxsplit=profile.deck_size)
        if len(texts) > profile.deck_size:
            raise PositionError(name, f"more than {profile.deck_size} cards; the {profile.name} deck has "
                                f"{profile.deck_size}")
        return texts
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise PositionError(name, "expected a space-separated string or a list of card strings")


def cards_field(value: Any, profile: Profile, name: str, indexed: bool = False) -> list[int]:
    """The cards of a field; `indexed`: a bad card is named by its place (``play[3]``)."""
    cards = []
    for i, text in enumerate(card_texts(value, name, profile)):
        try:
            cards.append(parse_card(text, profile))
        except CardError as e:
            raise PositionError(f"{name}[{i}]" if indexed else name, str(e)) from None
    return cards


@dataclass(frozen=True)
class Position:
    """Four hands, the trump, the trick in progress and the suits led so far.

    Cards are ints (see `solver.cards`); hands are 64-bit masks. `history`
    holds the completed tricks from the first (each in playing order from its
    leader), or is None when the earlier play is unknown.

    Read with `from_json`, or played from such a position, it is checked; built
    field by field, `check` names a bad field (`Solver.solve` and the tools run it),
    and the rules engine's methods take its fields as `check` passes them.
    """

    profile: Profile
    trump: str
    hands: tuple[int, int, int, int]
    leader: int
    trick: tuple[int, ...] = ()
    led: int = 0
    """Suits led so far (bit per suit), kept only where a rule reads it."""
    history: tuple[tuple[int, ...], ...] | None = None
    first_leader: int | None = field(default=None, compare=False)
    pending_doubling: bool = False
    """Manille: the previous deal was tied, so this one's deal score counts double."""
    _checked: bool = field(default=False, init=False, repr=False, compare=False)
    """Has `check` passed (strict)? The fields cannot change, so it need not run again."""

    def __post_init__(self) -> None:
        """A position whose hands and trick hold the whole deck, dealt evenly, with no suit led
        but the trick's, has completed no trick: its history is known to be empty, however it was
        built. (An abstract position's uneven hands tell nothing of a history.)"""
        if self.history is not None:
            return
        try:
            dealt_evenly = all(h.bit_count() == self.profile.cards_per_hand for h in self._hands_before_trick())
            first_led = self._led_by(()) if self.profile.protected_rank is not None else 0
        except (AttributeError, IndexError, TypeError, ValueError):   # malformed fields: `check` names them
            return
        if dealt_evenly and self.led == first_led:   # suits led before would contradict an empty history
            object.__setattr__(self, "history", ())

    # ------------------------------------------------------------ reading

    @classmethod
    def from_json(cls, obj: str | bytes | dict[str, Any], *, strict: bool = True,
                  profile: Profile | str | None = None) -> Position:
        """Read and check the position JSON (a dict or its text).

        With ``strict=False`` the hand sizes are not checked against each other
        and the trick: enough to ask which cards are legal, not to solve.
        `profile` gives the rules of a game that is not shipped (a variant,
        whose name the JSON's `game` must give).
        """
        obj = json_object(obj)
        if "play" in obj:   # a played deal: its start is not the position the cards lead to
            raise PositionError("play", "a position does not take the cards played: give the position "
                                "after them (with its `history`), or analyze the played deal")
        profile = game_profile(obj, profile)
        trump = cls._read_trump(obj.get("trump"), profile)
        hands = cls._read_hands(obj.get("hands"), profile, strict)
        if obj.get("leader") is None:
            raise PositionError("leader", "missing: the seat that leads the trick (N E S W)")
        leader = read_seat(obj["leader"], "leader")
        trick_raw = obj.get("trick", [])
        if not isinstance(trick_raw, list) or not all(isinstance(card, str) for card in trick_raw):
            raise PositionError("trick", "expected a list of card strings")
        if len(trick_raw) > 3:
            raise PositionError("trick", f"{counted(len(trick_raw), 'card')}; a trick in progress has at most 3")
        trick = cards_field(trick_raw, profile, "trick", indexed=True)
        history = cls._read_history(obj.get("history"), profile)
        seen: dict[int, str] = {}
        for seat, cards in zip(SEATS, hands):
            for c in cards:
                where = seen.setdefault(c, f"hands.{seat}")
                if where != f"hands.{seat}" or cards.count(c) > 1:
                    raise PositionError(f"hands.{seat}", f"{card_name(c, profile)} appears twice "
                                        f"(also in {where})" if where != f"hands.{seat}" else
                                        f"{card_name(c, profile)} appears twice")
        for name, cards in [("trick", trick)] + [(f"history[{i}]", t) for i, t in enumerate(history or [])]:
            for j, c in enumerate(cards):
                if c in seen:
                    raise PositionError(f"{name}[{j}]", f"{card_name(c, profile)} appears twice (also in {seen[c]})")
                seen[c] = f"{name}[{j}]"
        pending = cls._read_pending(obj.get("pending_doubling"), profile)
        masks = _four([sum(1 << c for c in cards) for cards in hands])
        pos = cls(profile, trump, masks, leader, tuple(trick), 0, None, pending_doubling=pending)
        if strict or history is not None:
            pos.check_sizes()
        if strict and history is None and pos.tricks_played == 0:
            history = []
        # read afresh: whether a whole deck's history is known to be empty depends on the suits led
        pos = replace(pos, led=pos._read_led(obj.get("led_suits"), history), history=None)
        if history is not None:
            pos = pos._with_history(history)
        pos._check_trick()
        if "to_move" in obj and obj["to_move"] is not None:
            to_move = read_seat(obj["to_move"], "to_move")
            if to_move != pos.to_move:
                raise PositionError("to_move", f"is {SEATS[to_move]}, but the leader and trick make it "
                                    f"{SEATS[pos.to_move]}")
        if not any(masks) and not trick and history is None:   # with its history, a deal played out
            raise PositionError("hands", "every hand is empty: nothing is left to play")
        # the search has no use for them (a deal's analysis and table read them against its start),
        # but one that is no seat or no card is refused rather than passed over
        read_dealer(obj.get("dealer"), None, profile)
        read_shown(obj.get("shown"), profile)
        if strict:   # read, it has had every check of `check`
            object.__setattr__(pos, "_checked", True)
        return pos

    @staticmethod
    def _read_pending(value: Any, profile: Profile) -> bool:
        if value is not None and not isinstance(value, bool):
            raise PositionError("pending_doubling", "expected true or false")
        if value and not profile.tie_doubles_next:
            raise PositionError("pending_doubling", f"{profile.name} has no doubling after a tie")
        return bool(value)

    @staticmethod
    def _read_trump(value: Any, profile: Profile) -> str:
        try:
            return parse_trump(value, profile)
        except ValueError as e:
            raise PositionError("trump", str(e)) from None

    @staticmethod
    def _read_hands(value: Any, profile: Profile, strict: bool) -> list[list[int]]:
        if not isinstance(value, dict):
            raise PositionError("hands", "expected an object with the seats N E S W")
        extra = [k for k in value if not (isinstance(k, str) and k.upper() in SEATS)]
        if extra:
            raise PositionError("hands", f"{quoted(extra[0])} is not a seat (N E S W)")
        upper = {k.upper(): v for k, v in value.items()}
        if len(upper) != len(value):
            raise PositionError("hands", "a seat is given twice")
        hands = []
        for seat in SEATS:
            if seat not in upper:
                raise PositionError("hands", f"missing seat {seat}")
            texts = card_texts(upper[seat], f"hands.{seat}", profile)
            if strict and len(texts) > profile.cards_per_hand:
                raise PositionError(f"hands.{seat}", f"{counted(len(texts), 'card')}; a {profile.name} hand holds "
                                    f"at most {profile.cards_per_hand}")
            if len(texts) > profile.deck_size:
                raise PositionError(f"hands.{seat}", f"{counted(len(texts), 'card')}; the {profile.name} deck has "
                                    f"{profile.deck_size}")
            hands.append(cards_field(texts, profile, f"hands.{seat}"))
        return hands

    @staticmethod
    def _read_history(value: Any, profile: Profile) -> list[list[int]] | None:
        if value is None:
            return None
        if not isinstance(value, list):
            raise PositionError("history", "expected a list of completed tricks")
        check_history_length(len(value), profile)
        tricks = []
        for i, t in enumerate(value):
            texts = card_texts(t, f"history[{i}]", profile)
            if len(texts) != 4:
                raise PositionError(f"history[{i}]", f"{counted(len(texts), 'card')}; a completed trick has 4")
            tricks.append(cards_field(texts, profile, f"history[{i}]", indexed=True))
        return tricks

    def _led_by(self, history: Sequence[Sequence[int]]) -> int:
        """The suits (bit per suit) that `history` and the trick in progress lead."""
        known = 0
        for t in history:
            known |= 1 << (t[0] >> 4)
        if self.trick:
            known |= 1 << (self.trick[0] >> 4)
        return known

    def _read_led(self, value: Any, history: list[list[int]] | None) -> int:
        known = self._led_by(history or [])
        if value is not None and not isinstance(value, str):
            raise PositionError("led_suits", "expected a string of suits like 'SH'")
        led = known if value is None else 0
        for ch in (value or "").replace(" ", ""):
            try:
                s = parse_suit(ch)
            except CardError as e:
                raise PositionError("led_suits", str(e)) from None
            if led >> s & 1:
                raise PositionError("led_suits", f"{SUITS[s]} is listed twice")
            led |= 1 << s
        if self.profile.protected_rank is None:
            return 0  # no rule of this game reads the suits led: only their spelling is checked
        if self.trick and not led >> (self.trick[0] >> 4) & 1:
            raise PositionError("led_suits", f"does not include {SUITS[self.trick[0] >> 4]}, "
                                "the suit led to the trick in progress")
        if history is not None and led != known:
            raise PositionError("led_suits", f"{quoted(value)} contradicts the history, which leads "
                                f"{_suits(known) or 'nothing'}")
        return led

    def check(self, strict: bool = True) -> None:
        """Raise `PositionError` unless the fields make a position of its game: for a Position
        built field by field, what `from_json` checks of its input (the cards of the history
        are checked to be cards of the deck, dealt once, but not replayed); with
        ``strict=False``, as `from_json` reads an abstract position."""
        if self._checked:
            return
        profile = self.profile
        if not isinstance(profile, Profile):
            raise PositionError("game", f"{quoted(profile)} is not a game's Profile")
        trump = self._read_trump(self.trump, profile)
        if trump != self.trump:
            raise PositionError("trump", f"{quoted(self.trump)}: a Position writes it {trump!r}")
        if not isinstance(self.hands, tuple) or len(self.hands) != 4:
            raise PositionError("hands", "expected four card masks (N, E, S, W)")
        full = _deck_mask(profile)
        dealt = 0
        for seat, mask in enumerate(self.hands):
            if isinstance(mask, bool) or not isinstance(mask, int) or mask < 0 or mask & ~full:
                raise PositionError(f"hands.{SEATS[seat]}", f"not a mask of cards of the {profile.name} deck")
            if mask & dealt:
                twice = (mask & dealt).bit_length() - 1
                raise PositionError(f"hands.{SEATS[seat]}", f"{card_name(twice, profile)} appears twice")
            dealt |= mask
        for name, given in (("leader", self.leader), ("first_leader", self.first_leader)):
            if not is_seat(given) and (given is not None or name == "leader"):
                raise PositionError(name, f"{quoted(given)} is not a seat (0 to 3: N E S W)")
        if not isinstance(self.trick, tuple) or len(self.trick) > 3:
            raise PositionError("trick", "expected at most 3 cards")
        if isinstance(self.led, bool) or not isinstance(self.led, int) or self.led not in range(16):
            raise PositionError("led_suits", f"{quoted(self.led)} is not a set of suits (a mask of 4 bits)")
        if self.history is not None and not isinstance(self.history, tuple):
            raise PositionError("history", "expected a tuple of completed tricks, or None")
        history = self.history or ()
        for i, trick in enumerate(history):
            if not isinstance(trick, tuple) or len(trick) != 4:
                raise PositionError(f"history[{i}]", "expected a completed trick of 4 cards")
        played = _core.cards_mask(self.trick, history)
        if played < 0 or played & (dealt | ~full):
            self._check_played_cards(dealt)
        self._read_pending(self.pending_doubling, profile)
        if strict or self.history is not None:
            self.check_sizes()
        if self.history is None and profile.protected_rank is not None:
            self._check_led(strict)
        self._check_trick()
        if self.history is not None:
            self._check_history(self.history)
        if strict:
            object.__setattr__(self, "_checked", True)

    def _check_led(self, strict: bool) -> None:
        """The suits led, where no history tells them, hold the suit led to the trick in
        progress and, at the start of the deal (strict: the hand sizes fit), no other."""
        first_led = self._led_by(())
        if first_led and not self.led & first_led:
            raise PositionError("led_suits", f"does not include {SUITS[self.trick[0] >> 4]}, "
                                "the suit led to the trick in progress")
        if strict and self.tricks_played == 0 and self.led != first_led:
            raise PositionError("led_suits", f"{_suits(self.led)} contradicts the start of the deal, which leads "
                                f"{_suits(first_led) or 'nothing'}")

    def _check_played_cards(self, dealt: int) -> None:
        """Raise `PositionError` at the place of the first card of the trick or the history that
        is no card of the deck, or is `dealt` already, or comes twice; cards that are none of these
        (an int of a type of its own, which `cards_mask` refuses) pass."""
        profile = self.profile
        places = [f"trick[{i}]" for i in range(len(self.trick))]
        places += [f"history[{i}][{j}]" for i in range(len(self.history or ())) for j in range(4)]
        for where, card in zip(places, self.trick + tuple(chain.from_iterable(self.history or ()))):
            if not is_card(card, profile):
                raise PositionError(where, f"{quoted(card)} is not a card of the {profile.name} deck")
            if dealt >> card & 1:
                raise PositionError(where, f"{card_name(card, profile)} appears twice")
            dealt |= 1 << card

    def _check_history(self, history: tuple[tuple[int, ...], ...]) -> None:
        """The history holds every completed trick, and the first leader is the one it leads back to."""
        if len(history) != self.tricks_played:
            raise PositionError("history", f"{counted(len(history), 'trick')}, but the hands show "
                                f"{self.tricks_played} played: the history must go back to the first trick")
        led = self._led_by(history)
        if self.profile.protected_rank is not None and self.led != led:
            raise PositionError("led_suits", f"{_suits(self.led) or 'none'} contradicts the history, which leads "
                                f"{_suits(led) or 'nothing'}")
        first = self._leaders(history)[0]
        if self.first_leader is not None and self.first_leader != first:
            raise PositionError("first_leader", f"is {SEATS[self.first_leader]}, but the history, played "
                                f"back from the leader now, starts with {SEATS[first]}")

    def check_sizes(self) -> None:
        """Raise `PositionError` unless the hand sizes fit the trick in progress."""
        sizes = [h.bit_count() for h in self.hands]
        if max(sizes) > self.profile.cards_per_hand:
            raise PositionError("hands", f"a {self.profile.name} hand holds at most "
                                f"{self.profile.cards_per_hand} cards")
        if len({h.bit_count() for h in self._hands_before_trick()}) != 1:
            detail = " ".join(f"{SEATS[s]}={sizes[s]}" for s in range(4))
            raise PositionError("hands", f"sizes {detail} do not fit a trick of "
                                f"{counted(len(self.trick), 'card')} led by {SEATS[self.leader]}")

    def _hands_before_trick(self) -> list[int]:
        """The hands as they were when the trick in progress was led."""
        hands = list(self.hands)
        for i, c in enumerate(self.trick):
            hands[self.profile.seat_after(self.leader, i)] |= 1 << c
        return hands

    def _check_trick(self) -> None:
        """Each card of the trick in progress must have been legal when played."""
        self._check_plays(_four(self._hands_before_trick()), self.leader, self.led, self.trick,
                          lambda i: f"trick[{i}]")

    def _check_plays(self, hands: tuple[int, int, int, int], leader: int, led: int, cards: tuple[int, ...],
                     place: Callable[[int], str]) -> None:
        """Raise `IllegalPlay` unless each of `cards`, played in order from a trick boundary of this
        deal (`hands`, `leader` to lead, the suits `led` so far), is held by the player to move
        and legal there; the error names the first card that is not by its `place` (from its
        index) and the rule it breaks. The core replays the cards in one pass; only a refused
        play is replayed card by card, to name it."""
        if _core.replay(core_rules(self.profile), hands, trump_index(self.trump), leader, led, cards) < len(cards):
            position = Position(self.profile, self.trump, hands, leader, (), led)
            for i, card in enumerate(cards):
                position = position._play(card, place(i))

    def _leaders(self, history: Sequence[Sequence[int]]) -> list[int]:
        """The leader of each completed trick of `history` and, last, of the trick now, worked back
        from the leader now by the tricks' winners."""
        tindex = trump_index(self.trump)
        leaders = [self.leader] * (len(history) + 1)
        for i in range(len(history) - 1, -1, -1):
            leaders[i] = self.profile.seat_after(leaders[i + 1], -_core.trick_winner(tuple(history[i]), tindex))
        return leaders

    def _with_history(self, history: list[list[int]]) -> Position:
        """Rebuild the deal from its start and replay the history, checking every card."""
        profile = self.profile
        leaders = self._leaders(history)
        hands = self._hands_before_trick()
        for i, t in enumerate(history):
            for j, c in enumerate(t):
                hands[profile.seat_after(leaders[i], j)] |= 1 << c
        for s in range(4):
            n = hands[s].bit_count()
            if n != self.profile.cards_per_hand:
                raise PositionError("history", f"{SEATS[s]} would have started the deal with {counted(n, 'card')}, "
                                    f"not {self.profile.cards_per_hand}: the history must go back to the "
                                    "first trick")
        self._check_plays(_four(hands), leaders[0], 0, tuple(chain.from_iterable(history)),
                          lambda k: f"history[{k // 4}][{k % 4}]")
        return replace(self, history=tuple(tuple(t) for t in history), first_leader=leaders[0])

    # ------------------------------------------------------------ queries

    @property
    def to_move(self) -> int:
        """The seat to play next (0-3)."""
        return self.profile.seat_after(self.leader, len(self.trick))

    @property
    def tricks_played(self) -> int:
        """Completed tricks, counted from the hand sizes."""
        return self.profile.cards_per_hand - max(h.bit_count() for h in self.hands)

    @property
    def played_field(self) -> str | None:
        """The field showing that cards were played (``trick``, ``history``, or ``hands`` when
        they are short), or None at the start of a deal."""
        if self.trick:
            return "trick"
        if self.tricks_played:
            return "history" if self.history else "hands"
        return None

    @property
    def is_over(self) -> bool:
        """Whether every card has been played."""
        return not any(self.hands) and not self.trick

    def hand(self, seat: str | int) -> list[str]:
        """The cards `seat` (a letter or an index) holds now, by name, in `sort_key` order."""
        s = read_seat(seat, "seat") if isinstance(seat, str) else check_seat(seat, "seat")
        return format_cards(cards_of(self.hands[s]), self.profile).split()

    def core_state(self) -> tuple[tuple[int, int, int, int], int, int, tuple[int, ...], int, int]:
        """(hands, trump, leader, trick, led, won) as the core takes them."""
        return (self.hands, trump_index(self.trump), self.leader, self.trick, self.led, self.won_flags)

    @property
    def won_flags(self) -> int:
        """Bit 0: N-S took a trick in the history; bit 1: E-W did."""
        flags = 0
        for seat, _ in self._trick_results():
            flags |= 1 << (seat & 1)
        return flags

    def points_won(self) -> tuple[int, int] | None:
        """Points N-S and E-W took in completed tricks (None without a history)."""
        if self.history is None:
            return None
        won = [0, 0]
        for seat, t in self._trick_results():
            won[seat & 1] += trick_points(t, self.profile)
        return won[0], won[1]

    def tricks_won(self) -> tuple[int, int] | None:
        """Completed tricks N-S and E-W took (None without a history)."""
        if self.history is None:
            return None
        won = [0, 0]
        for seat, _ in self._trick_results():
            won[seat & 1] += 1
        return won[0], won[1]

    def _trick_results(self) -> list[tuple[int, tuple[int, ...]]]:
        """(winner, trick) of each completed trick of the history."""
        history = self.history or ()
        tindex = trump_index(self.trump)
        profile = self.profile
        # not given in a position built by hand: the winners lead back to the leader now
        leader = self.first_leader if self.first_leader is not None else self._leaders(history)[0]
        out = []
        for t in history:
            leader = profile.seat_after(leader, _core.trick_winner(t, tindex))
            out.append((leader, t))
        return out

    def legal_mask(self) -> tuple[int, int, int]:
        """(mask of legal cards, reason code, winning card) from the core."""
        return _core.legal_moves(core_rules(self.profile), self.hands, trump_index(self.trump), self.leader,
                                 self.trick, self.led)

    def legal_moves(self) -> list[str]:
        """The cards the player to move may play, sorted as strings."""
        return sorted(card_name(c, self.profile) for c in cards_of(self.legal_mask()[0]))

    # ------------------------------------------------------------ playing

    def play(self, card: str | int) -> Position:
        """The position after the player to move plays `card`.

        Raises `IllegalPlay` naming the rule a forbidden card breaks (or saying that the player
        does not hold it, or that it is no card of the deck).
        """
        if isinstance(card, str):
            try:
                card = parse_card(card, self.profile)
            except CardError as e:
                raise IllegalPlay("card", str(e)) from None
        elif not is_card(card, self.profile):
            raise IllegalPlay("card", f"{quoted(card)} is not a card of the {self.profile.name} deck")
        return self._play(card, "card")

    def _require_legal(self, card: int, where: str) -> None:
        seat = self.to_move
        if self.is_over:
            raise IllegalPlay(where, f"the deal is over: {card_name(card, self.profile)} cannot be played")
        if not self.hands[seat] >> card & 1:
            raise IllegalPlay(where, f"{SEATS[seat]} does not hold {card_name(card, self.profile)}")
        mask, reason, winning = self.legal_mask()
        if not mask >> card & 1:
            raise IllegalPlay(where, refusal(seat, card, mask, reason, winning, self.trick, self.profile))

    def _play(self, card: int, where: str) -> Position:
        """The position after `card`, checked legal here (`where` names it in the error). A legal
        card played from a position that passed `check` leads to one that passes it too."""
        self._require_legal(card, where)
        seat = self.to_move
        hands = list(self.hands)
        hands[seat] &= ~(1 << card)
        led = self.led
        if not self.trick and self.profile.protected_rank is not None:
            led |= 1 << (card >> 4)
        trick = self.trick + (card,)
        if len(trick) < 4:
            after = replace(self, hands=_four(hands), trick=trick, led=led)
        else:
            w = _core.trick_winner(trick, trump_index(self.trump))
            leader = self.profile.seat_after(self.leader, w)
            history = None if self.history is None else self.history + (trick,)
            after = replace(self, hands=_four(hands), trick=(), led=led, leader=leader, history=history)
        object.__setattr__(after, "_checked", self._checked)
        return after

    # ------------------------------------------------------------ writing

    def __repr__(self) -> str:
        """One line: ``<Position malilla trump=D N:KS AH 2D E:7D QC S:2S 4H W:KC 5C leader=W
        trick=[JS 6S 4D] to_move=N led_suits=SHC>`` (and the tricks played, when known, and a
        pending doubling); the plain fields of one built by hand that is no position."""
        try:
            obj = self.to_json()
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            return (f"<Position {getattr(self.profile, 'name', self.profile)} trump={self.trump} hands={self.hands} "
                    f"leader={self.leader} trick={self.trick}>")
        hands = " ".join(f"{seat}:{cards or '-'}" for seat, cards in obj["hands"].items())
        extra = f" led_suits={obj['led_suits'] or '-'}" if "led_suits" in obj else ""
        extra += f" tricks_played={len(self.history)}" if self.history else ""
        extra += " pending_doubling" if self.pending_doubling else ""
        return (f"<Position {obj['game']} trump={obj['trump']} {hands} leader={obj['leader']} "
                f"trick=[{' '.join(obj['trick'])}] to_move={obj['to_move']}{extra}>")

    def to_json(self) -> dict[str, Any]:
        """The position JSON (with `history` when it is known and not empty)."""
        out: dict[str, Any] = {
            "game": self.profile.name,
            "trump": self.trump,
            "hands": {s: format_cards(cards_of(self.hands[i]), self.profile) for i, s in enumerate(SEATS)},
            "leader": SEATS[self.leader],
            "trick": [card_name(c, self.profile) for c in self.trick],
        }
        if self.profile.protected_rank is not None:
            out["led_suits"] = "".join(s for i, s in enumerate(SUITS) if self.led >> i & 1)
        out["to_move"] = SEATS[self.to_move]
        if self.history:
            out["history"] = [[card_name(c, self.profile) for c in t] for t in self.history]
        if self.pending_doubling:
            out["pending_doubling"] = True
        return out
