"""The bridge from a `Profile` to the core's rule flags, and the obligations' wording."""
from __future__ import annotations

from functools import lru_cache

from . import _core
from .cards import NO_TRUMP, SEATS, SUITS, card_name, cards_of
from .profiles import Profile

__all__ = ["core_rules", "trump_index", "refusal", "NO_TRUMP_INDEX"]

NO_TRUMP_INDEX = 4
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")


def core_rules(profile: Profile, capot: bool = False) -> _core.Rules:
    """The core's flags for `profile` (capot: rank a capot above a plain total,
    which changes the flags only where a capot scores more than its points)."""
    return _built_rules(profile, bool(capot) and profile.capot_multiplier > 1)


@lru_cache(maxsize=None)
def _built_rules(profile: Profile, capot: bool) -> _core.Rules:
    """`core_rules`, built once for each distinct set of flags."""
    strengths = tuple(reversed(profile.points))
    protected = -1
    if profile.protected_rank is not None:
        protected = profile.strength(profile.protected_rank)
    return _core.Rules(strengths, profile.trick_bonus, profile.step, protected, profile.undertrump_ban, capot)


def trump_index(trump: str) -> int:
    """Trump as the core takes it: the suit index 0-3, or NO_TRUMP_INDEX."""
    return NO_TRUMP_INDEX if trump == NO_TRUMP else SUITS.index(trump)


def _alternatives(mask: int, profile: Profile) -> str:
    names = [card_name(c, profile) for c in sorted(cards_of(mask), reverse=True)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def refusal(seat: int, card: int, legal: int, reason: int, winning: int, trick: tuple[int, ...],
            profile: Profile) -> str:
    """Why `seat` may not play `card` to `trick`, when only the cards of `legal` may be played
    (`reason` and `winning` as the rules engine gives them): "E may not play KS: must follow ..."."""
    return f"{SEATS[seat]} may not play {card_name(card, profile)}: {_explain(reason, legal, winning, trick, profile)}"


_NUMBER_WORDS = dict(zip("2 3 4 5 6 7 8 9 10".split(), "two three four five six seven eight nine ten".split()))


def _rank_word(rank: str | None) -> str:
    """A rank as a word where it is a number ("seven"), else as written ("K")."""
    return _NUMBER_WORDS.get(rank or "", rank or "")


def _explain(reason: int, legal: int, winning: int, trick: tuple[int, ...], profile: Profile) -> str:
    """Why only the cards of `legal` may be played, in words."""
    cards = _alternatives(legal, profile)
    win = card_name(winning, profile) if winning >= 0 else ""
    if reason == _core.Reason.BEAT:
        return f"must beat {win} with {cards}"
    if reason == _core.Reason.FOLLOW:
        return f"must follow {SUIT_NAMES[trick[0] >> 4]} with {cards}"
    if reason == _core.Reason.TRUMP:
        return f"must trump with {cards}"
    if reason == _core.Reason.OVERTRUMP:
        return f"must overtrump {win} with {cards}"
    if reason == _core.Reason.NO_UNDERTRUMP:
        return f"may not undertrump {win}; play {cards}"
    if reason == _core.Reason.PROTECTED:
        return f"may not discard the {_rank_word(profile.protected_rank)} of a suit not yet led; play {cards}"
    return f"may play {cards}"
