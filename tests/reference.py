"""A slow, plain reference for the rules and the values, written from RULES.md alone.

Nothing here imports the project: cards are strings like ``"7S"`` or ``"10D"``,
hands are frozensets of them, and the search is a plain minimax memoised on the
whole state (no pruning, no move grouping, no bounds). It exists to be read and
believed, and to be compared with the fast search.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

SUITS = "SHDC"
NO_TRUMP = "NT"


@dataclass(frozen=True)
class Game:
    name: str
    ranks: tuple[str, ...]          # high to low
    points: tuple[int, ...]         # aligned with ranks
    trick_bonus: int                # points per trick won
    order: str                      # seats in playing order
    seven_protection: bool          # Malilla rule 5
    undertrump_ban: bool            # Manille rule 3
    no_trump: bool                  # NT allowed
    cards_per_hand: int
    protected_rank: str = "7"       # the rank seven protection protects (a variant may name another)

    def rank(self, card: str) -> str:
        return card[:-1]

    def strength(self, card: str) -> int:
        """Higher is stronger."""
        return len(self.ranks) - self.ranks.index(card[:-1])

    def card_points(self, card: str) -> int:
        return self.points[self.ranks.index(card[:-1])]

    def deck(self) -> list[str]:
        return [r + s for s in SUITS for r in self.ranks]

    def next_seat(self, seat: str, k: int = 1) -> str:
        return self.order[(self.order.index(seat) + k) % 4]


MALILLA = Game("malilla", ("7", "A", "K", "Q", "J", "6", "5", "4", "3", "2"),
               (5, 4, 3, 2, 1, 0, 0, 0, 0, 0), 1, "NWSE", True, False, False, 10)
MANILLE = Game("manille", ("10", "A", "K", "Q", "J", "9", "8", "7"),
               (5, 4, 3, 2, 1, 0, 0, 0), 0, "NESW", False, True, True, 8)
GAMES = {g.name: g for g in (MALILLA, MANILLE)}


def suit(card: str) -> str:
    return card[-1]


def team(seat: str) -> int:
    """0 for N-S, 1 for E-W."""
    return 0 if seat in "NS" else 1


@dataclass(frozen=True)
class State:
    game: Game
    trump: str                      # S H D C or NT
    hands: tuple[frozenset, ...]    # in seat order N E S W
    leader: str
    trick: tuple[str, ...] = ()
    led: frozenset = frozenset()    # suits led so far, the trick in progress included

    @staticmethod
    def seat_index(seat: str) -> int:
        return "NESW".index(seat)

    def hand(self, seat: str) -> frozenset:
        return self.hands[self.seat_index(seat)]

    @property
    def to_move(self) -> str:
        return self.game.next_seat(self.leader, len(self.trick))

    @property
    def over(self) -> bool:
        return not self.trick and not any(self.hands)

    def to_json(self) -> dict:
        """The position JSON of the shared vectors."""
        obj = {"game": self.game.name, "trump": self.trump,
               "hands": {s: " ".join(sorted(self.hand(s))) for s in "NESW"},
               "leader": self.leader, "trick": list(self.trick), "to_move": self.to_move}
        if self.game.seven_protection:
            obj["led_suits"] = "".join(s for s in SUITS if s in self.led)
        return obj


def beats(game: Game, trump: str, card: str, other: str) -> bool:
    """Does `card`, played after `other` in a trick, beat it (when `other` is winning)?"""
    if suit(card) == suit(other):
        return game.strength(card) > game.strength(other)
    return trump != NO_TRUMP and suit(card) == trump


def winner_index(game: Game, trump: str, trick: tuple[str, ...]) -> int:
    """Highest trump, else highest card of the suit led."""
    best = 0
    for i in range(1, len(trick)):
        if beats(game, trump, trick[i], trick[best]):
            best = i
    return best


def legal(state: State) -> list[str]:
    """The cards the player to move may play, sorted as strings."""
    g, trump = state.game, state.trump
    me = state.to_move
    hand = state.hand(me)
    if not state.trick:
        return sorted(hand)
    lead = suit(state.trick[0])
    w = winner_index(g, trump, state.trick)
    winning = state.trick[w]
    rival = team(g.next_seat(state.leader, w)) != team(me)
    trumped = trump != NO_TRUMP and suit(winning) == trump and lead != trump
    follow = {c for c in hand if suit(c) == lead}
    if follow:
        # rule 1: follow; against a rival winning with a card of the led suit, beat it if possible
        if rival and not trumped:
            higher = {c for c in follow if g.strength(c) > g.strength(winning)}
            if higher:
                return sorted(higher)
        return sorted(follow)
    trumps = {c for c in hand if trump != NO_TRUMP and suit(c) == trump}
    higher_trumps = {c for c in trumps if trumped and g.strength(c) > g.strength(winning)}
    if rival and not trumped and trumps:
        return sorted(trumps)                       # rule 2: must trump
    if rival and trumped and higher_trumps:
        return sorted(higher_trumps)                # rule 3: must overtrump
    free = set(hand)
    if g.undertrump_ban and trumped:
        # Manille rule 3 (and rule 4): no trump lower than the winning one, unless nothing else
        lower = trumps - higher_trumps
        if free - lower:
            free -= lower
    if g.seven_protection:
        # Malilla rule 5: a non-trump 7 of a suit never led may not be discarded, unless forced
        sevens = {c for c in free if g.rank(c) == g.protected_rank and suit(c) != trump and suit(c) not in state.led}
        if free - sevens:
            free -= sevens
    return sorted(free)


def play(state: State, card: str) -> tuple[State, int]:
    """(the next state, points N-S took by completing a trick with this card)."""
    g = state.game
    me = state.to_move
    i = State.seat_index(me)
    if card not in state.hands[i]:
        raise ValueError(f"{me} does not hold {card}")
    hands = list(state.hands)
    hands[i] = hands[i] - {card}
    led = state.led | {suit(card)} if not state.trick else state.led
    trick = state.trick + (card,)
    if len(trick) < 4:
        return replace(state, hands=tuple(hands), trick=trick, led=led), 0
    w = winner_index(g, state.trump, trick)
    winner = g.next_seat(state.leader, w)
    pts = sum(g.card_points(c) for c in trick) + g.trick_bonus
    ns = pts if team(winner) == 0 else 0
    return replace(state, hands=tuple(hands), trick=(), leader=winner, led=led), ns


def perft(state: State, depth: int) -> int:
    """The legal sequences of the next `depth` cards."""
    if depth == 0:
        return 1
    return sum(perft(play(state, card)[0], depth - 1) for card in legal(state))


def remaining_points(state: State) -> int:
    """Everything still to be shared: cards in hands and trick, and the tricks' bonuses."""
    g = state.game
    cards = [c for h in state.hands for c in h] + list(state.trick)
    tricks = (len(cards) + 3) // 4
    return sum(g.card_points(c) for c in cards) + tricks * g.trick_bonus


def ns_value(state: State, memo: dict | None = None) -> int:
    """Points N-S take from the remaining play under perfect play (plain memoised minimax)."""
    if memo is None:
        memo = {}
    if state.over:
        return 0
    key = (state.hands, state.leader, state.trick, state.led)
    if key in memo:
        return memo[key]
    results = []
    for card in legal(state):
        nxt, ns = play(state, card)
        results.append(ns + ns_value(nxt, memo))
    value = max(results) if team(state.to_move) == 0 else min(results)
    memo[key] = value
    return value


def card_values(state: State) -> dict[str, int]:
    """For every legal card: points the side to move takes after playing it."""
    memo: dict = {}
    total = remaining_points(state)
    ns_moves = team(state.to_move) == 0
    out = {}
    for card in legal(state):
        nxt, ns = play(state, card)
        v = ns + ns_value(nxt, memo)
        out[card] = v if ns_moves else total - v
    return out


def line_points(state: State, line: list[str]) -> int:
    """Points the side to move at `state` takes by playing out `line` (which must be legal and
    reach the end of the deal)."""
    mover = team(state.to_move)
    total = remaining_points(state)
    ns = 0
    for card in line:
        if card not in legal(state):
            raise ValueError(f"{card} is not legal for {state.to_move} at {state.to_json()}")
        state, got = play(state, card)
        ns += got
    if not state.over:
        raise ValueError("the line stops before the end of the deal")
    return ns if mover == 0 else total - ns
