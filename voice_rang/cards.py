"""Cards as values: a rank, a suit, and the short code the event log uses.

``Card`` is an enum of the 52 cards so that a card is a singleton (compared with
``is``, cheap in the hot loop of a simulation) and so that the JSON encoder writes
a card as its log code ("10H", "QD") without any per-card Python call.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable

__all__ = ["DECK", "Card", "DeckError", "Rank", "Suit", "parse_card", "parse_deck"]


class Suit(enum.Enum):
    """The four suits; the value is the letter used in card codes."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"


class Rank(enum.IntEnum):
    """Ranks from ace (1) to king (13). Only used for naming: rank never decides anything."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def code(self) -> str:
        """The rank as written in card codes: ``A``, ``2`` … ``10``, ``J``, ``Q``, ``K``."""
        return _RANK_CODES[self]


_RANK_CODES = {
    Rank.ACE: "A",
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    **{Rank(n): str(n) for n in range(2, 11)},
}
_RANK_BY_CODE = {code: rank for rank, code in _RANK_CODES.items()}


class Card(enum.Enum):
    """One of the 52 cards. The value is the log code, rank then suit letter.

    >>> card = Card("4C")
    >>> card.rank, card.suit
    (<Rank.FOUR: 4>, <Suit.CLUBS: 'C'>)
    >>> card.suit is Card("7C").suit
    True
    >>> Card("10H").code
    '10H'
    """

    _ignore_ = ["_suit", "_rank"]  # noqa: RUF012 (enum machinery, not a class attribute)
    rank: Rank
    suit: Suit

    for _suit in Suit:
        for _rank in Rank:
            vars()[f"{_rank.name}_OF_{_suit.name}"] = _RANK_CODES[_rank] + _suit.value

    def __init__(self, code: str) -> None:
        self.rank = _RANK_BY_CODE[code[:-1]]
        self.suit = Suit(code[-1])

    @property
    def code(self) -> str:
        """The card as the event log writes it."""
        return str(self.value)

    def __repr__(self) -> str:
        return f"Card({self.value!r})"


DECK: tuple[Card, ...] = tuple(Card)
"""The 52 cards in a fixed order: clubs, diamonds, hearts, spades; ace to king."""


class DeckError(ValueError):
    """A card code or a deck order that cannot be dealt."""


def parse_card(text: str) -> Card:
    """Read one card code, case-insensitive (``"qd"`` is the queen of diamonds).

    >>> parse_card("qd")
    Card('QD')
    """
    code = text.strip().upper()
    try:
        return Card(code)
    except ValueError:
        raise DeckError(
            f"{text!r} is not a card: write rank then suit, like 10H, QD or 7C"
        ) from None


def parse_deck(codes: Iterable[str]) -> list[Card]:
    """Read a whole deck order: exactly the 52 cards, each once.

    >>> len(parse_deck(card.code for card in DECK))
    52
    >>> parse_deck(["AC", "AC"])
    Traceback (most recent call last):
    ...
    voice_rang.cards.DeckError: a deck needs all 52 cards once each; got 2 cards, AC twice
    """
    cards = [parse_card(code) for code in codes]
    counts = Counter(cards)
    twice = [card.code for card, count in counts.items() if count > 1]
    if len(cards) != 52 or twice:
        detail = f"got {len(cards)} cards"
        if twice:
            detail += ", " + ", ".join(f"{code} twice" for code in twice)
        raise DeckError(f"a deck needs all 52 cards once each; {detail}")
    return cards
