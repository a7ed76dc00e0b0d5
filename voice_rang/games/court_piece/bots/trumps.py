"""Choosing trumps from the first five by rule of thumb: length first, then high cards.

The easy and normal bots decide with these; the strong bot's play-outs use them for the
seats whose choice they imagine (a caller's likely trump, a fresh deal after a redeal).
"""

from __future__ import annotations

from ....cards import Suit
from ..actions import Action, AskRedeal, DeclineTrumpCard, NameTrump, SetTrumpCard, TrumpLater
from ..deck import CARD_OF, SUIT_MASKS, SUITS
from .counting import HONOUR_POINTS

__all__ = [
    "LENGTH_WEIGHT",
    "best_suit",
    "is_weak",
    "longest_suit",
    "suit_strength",
    "trump_action",
    "wants_redeal",
]

LENGTH_WEIGHT = 4
"""How many honour points one more card of a suit is worth when choosing trumps."""


def suit_strength(mask: int, suit: int) -> int:
    """Length and high cards of one suit in a hand: each card ``LENGTH_WEIGHT``, plus 4-3-2-1 for A K Q J."""
    cards = mask & SUIT_MASKS[suit]
    strength = LENGTH_WEIGHT * cards.bit_count()
    while cards:
        card = (cards & -cards).bit_length() - 1
        cards &= cards - 1
        strength += HONOUR_POINTS[card]
    return strength


def best_suit(mask: int) -> int:
    """The suit of a hand with the most length and strength (ties: the higher top card)."""
    return max(range(4), key=lambda suit: (suit_strength(mask, suit), (mask & SUIT_MASKS[suit]).bit_length()))


def longest_suit(mask: int) -> int:
    """The suit a hand holds most of (ties: the one with the higher top card)."""
    def key(suit: int) -> tuple[int, int]:
        cards = mask & SUIT_MASKS[suit]
        return cards.bit_count(), cards >> 13 * suit

    return max(range(4), key=key)


def is_weak(mask: int) -> bool:
    """No suit of three and no honour in any suit of two: nothing in the first five is worth naming."""
    for suit in range(4):
        cards = mask & SUIT_MASKS[suit]
        if cards.bit_count() >= 3 or (cards.bit_count() == 2 and suit_strength(mask, suit) > 2 * LENGTH_WEIGHT):
            return False
    return True


def wants_redeal(mask: int) -> bool:
    """All five are low (the only time a redeal is allowed) and no suit of three either."""
    return all((mask & SUIT_MASKS[suit]).bit_count() < 3 for suit in range(4))


def trump_action(choices: tuple[Action, ...], first_five: int, *, careful: bool) -> Action:
    """The trump choice from ``choices``: the best suit of the first five (the longest if not ``careful``).

    A careful caller also asks for a redeal, declines a trump card or waits for a later card when the
    first five offer nothing.
    """
    suit = best_suit(first_five) if careful else longest_suit(first_five)
    weak = careful and is_weak(first_five)
    named: Action | None = None
    set_apart: Action | None = None
    for choice in choices:
        if isinstance(choice, AskRedeal) and careful and wants_redeal(first_five):
            return choice
        if isinstance(choice, NameTrump) and choice.suit is SUITS[suit]:
            named = choice
        elif isinstance(choice, SetTrumpCard) and set_apart is None:
            cards = first_five & SUIT_MASKS[suit]
            set_apart = SetTrumpCard(CARD_OF[(cards & -cards).bit_length() - 1])
    if weak:
        for choice in choices:
            if isinstance(choice, (DeclineTrumpCard, TrumpLater)):
                return choice
    if named is not None:
        return named
    if set_apart is not None:
        return set_apart
    return choices[0]


def suit_of_choice(choice: Action) -> Suit | None:
    """The suit a trump choice names or sets apart, if it says one."""
    if isinstance(choice, NameTrump):
        return choice.suit
    if isinstance(choice, SetTrumpCard):
        return choice.card.suit
    return None
