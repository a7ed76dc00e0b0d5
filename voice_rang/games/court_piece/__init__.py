"""Court Piece (Rang, Rung) and its variants: the pure engine, seat views, event log and computer seats.

The rules are in ``docs/court-piece.md``; :class:`Session` plays them, hands each seat its
:class:`SeatView` and nothing more, and writes the log of ``../shared/COURT_PIECE.md``.
"""

from .actions import (
    Action,
    AskRedeal,
    DeclineTrumpCard,
    NameTrump,
    PlayCard,
    Reason,
    Refusal,
    Refused,
    RevealTrump,
    SetTrumpCard,
    TrumpLater,
)
from .rules import Options, Rules, RulesError, Scoring, ScoringMode, TrumpMode, Variant
from .session import SEAT_NAMES, Session, deck_for_hands
from .view import Phase, Play, SeatView, Trick

__all__ = [
    "SEAT_NAMES",
    "Action",
    "AskRedeal",
    "DeclineTrumpCard",
    "NameTrump",
    "Options",
    "Phase",
    "Play",
    "PlayCard",
    "Reason",
    "Refusal",
    "Refused",
    "RevealTrump",
    "Rules",
    "RulesError",
    "Scoring",
    "ScoringMode",
    "SeatView",
    "Session",
    "SetTrumpCard",
    "Trick",
    "TrumpLater",
    "TrumpMode",
    "Variant",
    "deck_for_hands",
]
