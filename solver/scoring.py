"""Deal scores and the match record, every rule read from the `Profile`.

Sides: 0 = N-S, 1 = E-W; a seat's side is ``seat % 2``.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import cards
from .cards import check_seat, parse_trump
from .checks import check_whole
from .deal import next_dealer
from .profiles import Profile, as_profile
from .quoting import counted, quoted

__all__ = ["DealScore", "deal_multiplier", "side_score", "score_deal", "Match", "SIDE_NAMES"]

SIDE_NAMES = ("N-S", "E-W")


@dataclass(frozen=True)
class DealScore:
    """One complete deal, scored."""

    points: tuple[int, int]
    """Card points plus trick bonuses taken by each side."""
    tricks: tuple[int, int]
    score: tuple[int, int]
    """Match points the deal scores, multipliers applied."""
    multiplier: int
    """Product of the factors in force (no-trump, pending doubling, capot); a tie scores 0 whatever it is."""
    capot: bool
    """The winners took every trick (Malilla's slam)."""
    tied: bool

    @property
    def winner(self) -> int | None:
        """The side above half the deal's points, None on a tie."""
        if self.tied:
            return None
        return 0 if self.points[0] > self.points[1] else 1


def _pair(value: tuple[int, int], what: str) -> tuple[int, int]:
    if (not isinstance(value, (tuple, list)) or len(value) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in value)):
        raise ValueError(f"{what} must be two non-negative ints (N-S, E-W), not {quoted(value)}")
    return value[0], value[1]


def check_points(points: int, profile: Profile, name: str = "points") -> None:
    """Raise ValueError naming `name` unless `points` is what a side can take in a deal of
    `profile`: a whole number from 0 to the deal's total."""
    check_whole(name, points, 0)
    if points > profile.total_points:
        raise ValueError(f"{name}: {points} is more than the {profile.total_points} points of a {profile.name} deal")


def deal_multiplier(profile: Profile | str, trump: str, pending_doubling: bool = False, capot: bool = False) -> int:
    """The product of the factors in force: no-trump, a pending doubling, a capot."""
    profile = as_profile(profile)
    multiplier = profile.no_trump_multiplier if parse_trump(trump, profile, "trump") == cards.NO_TRUMP else 1
    if pending_doubling and profile.tie_doubles_next:
        multiplier *= 2
    if capot:
        multiplier *= profile.capot_multiplier
    return multiplier


def side_score(profile: Profile | str, points: int, capot: bool, trump: str, pending_doubling: bool = False) -> int:
    """A side's signed deal score from its points: what it scores, or minus what the rivals score.

    `capot` says that the winning side took every trick.
    """
    profile = as_profile(profile)
    check_points(points, profile)
    rivals = profile.total_points - points
    if points > profile.half:
        excess = points - profile.half
    elif rivals > profile.half:
        excess = profile.half - rivals
    else:
        excess = 0
    return excess * deal_multiplier(profile, trump, pending_doubling, capot)


def points_range(profile: Profile | str, tricks: int) -> tuple[int, int]:
    """The fewest and the most points a side can take with `tricks` tricks: their trick points plus
    the poorest, or the richest, 4 x `tricks` cards of the deck. In both games every total between
    can be taken too, since their card points run from 0 up without a gap."""
    profile = as_profile(profile)
    cards = sorted(profile.points * 4)
    n = 4 * tricks
    bonus = tricks * profile.trick_bonus
    return sum(cards[:n]) + bonus, sum(cards[len(cards) - n:]) + bonus


def score_deal(profile: Profile | str, points: tuple[int, int], tricks: tuple[int, int], trump: str,
               pending_doubling: bool = False) -> DealScore:
    """Score a complete deal from each side's points and tricks.

    The side above ``profile.half`` scores its excess, times the no-trump
    factor, x2 for a pending doubling (when ``profile.tie_doubles_next``) and
    the capot factor when it took every trick; a tie scores nobody.
    """
    profile = as_profile(profile)
    points, tricks = _pair(points, "points"), _pair(tricks, "tricks")
    if sum(points) != profile.total_points:
        raise ValueError(f"points {points} sum to {sum(points)}; a {profile.name} deal shares out "
                         f"{profile.total_points}")
    if sum(tricks) != profile.tricks:
        raise ValueError(f"tricks {tricks} sum to {sum(tricks)}; a {profile.name} deal has {profile.tricks}")
    for side in (0, 1):
        low, high = points_range(profile, tricks[side])
        if not low <= points[side] <= high:
            raise ValueError(f"{SIDE_NAMES[side]} cannot take {points[side]} points with "
                             f"{counted(tricks[side], 'trick')} (from {low} to {high})")
    trump = parse_trump(trump, profile, "trump")

    winner = next((side for side in (0, 1) if points[side] > profile.half), None)
    capot = winner is not None and tricks[winner] == profile.tricks
    multiplier = deal_multiplier(profile, trump, pending_doubling, capot)
    score = [0, 0]
    if winner is not None:
        score[winner] = (points[winner] - profile.half) * multiplier
    return DealScore(points, tricks, (score[0], score[1]), multiplier, capot, winner is None)


class Match:
    """A match record: deals scored one after another until a side wins.

    Call `start_deal` once the cards are dealt and trump is fixed (it may be
    skipped when the profile has no dealer's bonus), then `record_deal` once
    the deal is played.
    """

    def __init__(self, profile: Profile | str, dealer: int = 0) -> None:
        self.profile = as_profile(profile)
        self.dealer = check_seat(dealer, "dealer")
        self.scores = [0, 0]
        self.winner: int | None = None
        self.pending_doubling = False
        """A tied deal doubles the next one (one pending doubling at most)."""
        self.waiting_bonus = 0
        """A dealer's bonus that would have won the match, waiting for the deal's score."""
        self.history: list[DealScore] = []
        self._started = False
        self._shown: int | None = None

    def _check_open(self) -> None:
        if self.winner is not None:
            raise ValueError(f"the match is over: {SIDE_NAMES[self.winner]} won")

    def start_deal(self, shown_card: int | None = None) -> None:
        """Begin the current dealer's deal, applying the dealer's bonus of `shown_card`.

        The shown card's points go to the dealer's side at once, unless that
        would bring it to the match target; then the bonus waits for the deal.
        """
        self._check_open()
        if self._started:
            raise ValueError("this deal has already started; record it first")
        if self.profile.dealer_bonus:
            if shown_card is None:
                raise ValueError(f"a {self.profile.name} deal needs the dealer's shown card: "
                                 f"call start_deal(shown_card) first")
            if not cards.is_card(shown_card, self.profile):
                raise ValueError(f"{quoted(shown_card)} is not a card of the {self.profile.name} deck")
            bonus = cards.card_points(shown_card, self.profile)
            side = self.dealer % 2
            if self.scores[side] + bonus >= self.profile.match_target:
                self.waiting_bonus = bonus
            else:
                self.scores[side] += bonus
        elif shown_card is not None:
            raise ValueError(f"{self.profile.name} has no dealer's bonus; no shown card is expected")
        self._started = True
        self._shown = shown_card

    def record_deal(self, points: tuple[int, int], tricks: tuple[int, int], trump: str) -> DealScore:
        """Score the complete deal, settle the waiting bonus, decide the match and pass the deal.

        Only one side scores per deal and a waiting bonus is dropped as soon as
        a side reached the target by the deal, so two sides never reach the
        target together.
        """
        self._check_open()
        if not self._started:
            self.start_deal()
        if self._shown is not None and self.profile.trump_from_dealer_card:
            shown_suit = cards.SUITS[cards.card_suit(self._shown)]
            if parse_trump(trump, self.profile, "trump") != shown_suit:
                raise ValueError(f"trump is {shown_suit}, the suit of the dealer's shown card, not {quoted(trump)}")
        result = score_deal(self.profile, points, tricks, trump, self.pending_doubling)
        self.history.append(result)
        self.pending_doubling = result.tied and self.profile.tie_doubles_next
        for side in (0, 1):
            self.scores[side] += result.score[side]
        target = self.profile.match_target
        if result.capot and self.profile.slam_wins_match:
            self.winner = result.winner
        else:
            if max(self.scores) < target:
                self.scores[self.dealer % 2] += self.waiting_bonus
            self.winner = next((side for side in (0, 1) if self.scores[side] >= target), None)
        self.waiting_bonus = 0
        self._started = False
        self._shown = None
        self.dealer = next_dealer(self.profile, self.dealer)
        return result

    def cancel_deal(self) -> None:
        """A misdeal (or Manille's partner looking too soon): no score, the next dealer deals."""
        self._check_open()
        if self._started:
            raise ValueError("this deal has started (trump is fixed); record it")
        self.dealer = next_dealer(self.profile, self.dealer)

    def illegal_play(self, seat: int) -> None:
        """A confirmed illegal play by `seat`: its side loses the match where the profile says so."""
        check_seat(seat, "seat")
        if not self.profile.illegal_play_loses_match:
            raise ValueError(f"{self.profile.name} has no match penalty for an illegal play")
        self._check_open()
        self.winner = 1 - seat % 2
