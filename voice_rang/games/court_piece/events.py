"""The events of a Court Piece session, exactly as the log writes them (``../shared/COURT_PIECE.md``).

Events carry data, never wording. Some carry what only the host may know: ``DealDone``
holds every hand, ``TrumpChosen`` the caller's face-up card and ``CardPlayed`` a card
played face down. They make the host's complete record; a seat is only ever handed
its own view (:mod:`.view`) or events made for it (:func:`.session.for_seat`).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from ...cards import Card, Suit

__all__ = [
    "CardPlayed",
    "DealDone",
    "DealEnded",
    "DealKind",
    "EndReason",
    "Event",
    "Redealt",
    "SessionEnded",
    "SessionStarted",
    "TrickWon",
    "TrumpChosen",
    "TrumpHow",
    "TrumpRevealed",
]

TrumpHow = Literal["named", "card", "random", "hidden", "blind", "later", "unable"]
DealKind = Literal["win", "court", "goon court", "52-court"]
EndReason = Literal["target", "52-court", "deals"]


class SessionStarted(msgspec.Struct, frozen=True, tag_field="event", tag="session"):
    """The session's rules and who sits where."""

    variant: str
    options: dict[str, Any]
    seats: tuple[str, ...]
    players: tuple[str, ...]
    scoring: dict[str, Any]
    game: int = 0


class DealDone(msgspec.Struct, frozen=True, tag_field="event", tag="deal"):
    """A deal: the dealer, the trump caller and all four hands in the order dealt (host's record only)."""

    dealer: int
    caller: int
    hands: tuple[tuple[Card, ...], ...]
    first: tuple[tuple[Card, ...], ...]
    game: int = 0
    deal: int = 1


class Redealt(msgspec.Struct, frozen=True, tag_field="event", tag="redeal"):
    """The caller's first five were all below the jack and it asked for a new deal."""

    seat: int
    game: int = 0
    deal: int = 1


class TrumpChosen(msgspec.Struct, frozen=True, tag_field="event", tag="trump"):
    """Trumps chosen (``suit`` is None while hidden) and how."""

    seat: int
    how: TrumpHow
    suit: Suit | None
    card: Card | None
    game: int = 0
    deal: int = 1


class CardPlayed(msgspec.Struct, frozen=True, tag_field="event", tag="play"):
    """A card played to trick ``trick`` (1-based)."""

    trick: int
    seat: int
    card: Card
    face_down: bool = False
    game: int = 0
    deal: int = 1


class TrumpRevealed(msgspec.Struct, frozen=True, tag_field="event", tag="reveal"):
    """The hidden trump card is shown to all, asked for or shown by ``seat``."""

    trick: int
    seat: int
    suit: Suit
    card: Card
    game: int = 0
    deal: int = 1


class TrickWon(msgspec.Struct, frozen=True, tag_field="event", tag="trick"):
    """A trick's winner; ``won`` per team, ``centre`` and ``collected`` as the log defines them."""

    trick: int
    winner: int
    cards: tuple[Card, ...]
    won: tuple[int, int]
    centre: int
    collected: int
    game: int = 0
    deal: int = 1


class DealEnded(msgspec.Struct, frozen=True, tag_field="event", tag="deal_end"):
    """A deal's result, the session's score and streaks after it, and who deals next."""

    winner: int
    tricks: tuple[int, int]
    kind: DealKind
    score: tuple[int, int]
    streak: tuple[int, int]
    next_dealer: int
    game: int = 0
    deal: int = 1


class SessionEnded(msgspec.Struct, frozen=True, tag_field="event", tag="end"):
    """The session is over: the winning team (None for no winner), the score and why."""

    winner: int | None
    score: tuple[int, int]
    reason: EndReason
    game: int = 0


Event = (
    SessionStarted | DealDone | Redealt | TrumpChosen | CardPlayed | TrumpRevealed | TrickWon | DealEnded | SessionEnded
)
