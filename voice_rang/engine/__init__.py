"""The pure rules engine: cards, the game, its events and the JSON Lines log. No I/O."""

from .cards import DECK, Card, DeckError, Rank, Suit, parse_card, parse_deck
from .events import Dealt, EndReason, Event, GameOver, Reshuffled, Revealed, WentOut
from .game import DEFAULT_CAP, MAX_SEATS, MIN_SEATS, Game, GameFinished, seat_names

__all__ = [
    "DECK",
    "DEFAULT_CAP",
    "MAX_SEATS",
    "MIN_SEATS",
    "Card",
    "Dealt",
    "DeckError",
    "EndReason",
    "Event",
    "Game",
    "GameFinished",
    "GameOver",
    "Rank",
    "Reshuffled",
    "Revealed",
    "Suit",
    "WentOut",
    "parse_card",
    "parse_deck",
    "seat_names",
]
