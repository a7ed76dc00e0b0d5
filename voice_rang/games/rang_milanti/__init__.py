"""Rang Milanti: its pure engine (the game, its events, the JSON Lines log; no I/O) and, beside it,
what binds it to the table: :mod:`.play` (the :class:`~voice_rang.game.GamePlay`), :mod:`.narration`
(its words), :mod:`.demo` and :mod:`.simulate`. Importing this package loads the engine alone."""

from ...cards import DECK, Card, DeckError, Rank, Suit, parse_card, parse_deck
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
