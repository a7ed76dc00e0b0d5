"""Court Piece's cards as small integers and sets of cards as bit masks.

The engine and the bots work on 52-bit masks because a simulation plays thousands of
deals a second: "the hearts this seat holds" is one ``&``, "its lowest heart" one more.
Card ``i`` has suit ``i // 13`` (clubs, diamonds, hearts, spades) and power ``i % 13``,
0 for the two up to 12 for the ace, so within a suit a higher index always wins.
:class:`~voice_rang.cards.Card` values are what leaves the game.

>>> index = CARD_INDEX[Card("QH")]
>>> SUIT_OF[index] is Suit.HEARTS, POWER_OF[index]
(True, 10)
>>> [card.code for card in cards_of(SUIT_MASKS[3])][:3]
['2S', '3S', '4S']
>>> [card.code for card in cards_of(mask_of([Card("AS"), Card("2C")]))]
['2C', 'AS']
"""

from __future__ import annotations

from collections.abc import Iterable

from ...cards import Card, Rank, Suit

__all__ = [
    "ACES",
    "CARD_INDEX",
    "CARD_OF",
    "FULL_DECK",
    "POWER_OF",
    "RANK_ORDER",
    "SUITS",
    "SUIT_INDEX",
    "SUIT_MASKS",
    "SUIT_OF",
    "bits",
    "cards_of",
    "highest",
    "index_of",
    "lowest",
    "mask_of",
    "suit_of_index",
]

SUITS: tuple[Suit, ...] = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
"""Suit ``i`` of the masks; the order of the log's letters C D H S."""

SUIT_INDEX: dict[Suit, int] = {suit: number for number, suit in enumerate(SUITS)}

RANK_ORDER: tuple[Rank, ...] = (*(Rank(n) for n in range(2, 14)), Rank.ACE)
"""Ranks from low to high as Court Piece orders them: the ace is high."""

CARD_OF: tuple[Card, ...] = tuple(
    Card(rank.code + suit.value) for suit in SUITS for rank in RANK_ORDER
)
"""The card of each index 0..51."""

CARD_INDEX: dict[Card, int] = {card: index for index, card in enumerate(CARD_OF)}
_INDEX_BY_ID: dict[int, int] = {id(card): index for index, card in enumerate(CARD_OF)}
SUIT_OF: tuple[Suit, ...] = tuple(card.suit for card in CARD_OF)
POWER_OF: tuple[int, ...] = tuple(index % 13 for index in range(52))
SUIT_MASKS: tuple[int, ...] = tuple(((1 << 13) - 1) << (13 * suit) for suit in range(4))
FULL_DECK = (1 << 52) - 1
ACES = sum(1 << (13 * suit + 12) for suit in range(4))


def index_of(card: Card) -> int:
    """The index of a card: the same as ``CARD_INDEX[card]``, without hashing an enum in the hot loop
    (cards are singletons, so their identity names them)."""
    return _INDEX_BY_ID[id(card)]


def suit_of_index(index: int) -> int:
    """The suit number (0..3) of a card index."""
    return index // 13


def bits(mask: int) -> list[int]:
    """The card indexes in a mask, lowest first."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


def lowest(mask: int) -> int:
    """The lowest card index in a non-empty mask (the weakest card of the lowest suit)."""
    return (mask & -mask).bit_length() - 1


def highest(mask: int) -> int:
    """The highest card index in a non-empty mask."""
    return mask.bit_length() - 1


def mask_of(cards: Iterable[Card]) -> int:
    """The mask of some cards."""
    mask = 0
    for card in cards:
        mask |= 1 << _INDEX_BY_ID[id(card)]
    return mask


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, by suit (clubs first) and rank (low first)."""
    return tuple(CARD_OF[index] for index in bits(mask))
