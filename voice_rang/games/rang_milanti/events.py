"""Typed, immutable events: everything that changes in a game comes out as one of these.

Every event carries the number of the game it belongs to (``game``, 0 for a single
game) because every log line must, and encoding it as a field is far cheaper than
splicing it into the JSON afterwards. Events carry data, never wording (narration turns them into sentences) and never
hidden information: a stack is only ever a count, never an order. They are
``msgspec`` structs because a simulation makes millions of them; the ``event`` tag
of each is the kind written in the JSON Lines log (see ``../shared/RULES.md``).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from ...cards import Card

__all__ = ["Dealt", "EndReason", "Event", "GameOver", "Reshuffled", "Revealed", "WentOut"]

EndReason = Literal["last seat", "cap"]


class Dealt(msgspec.Struct, frozen=True, gc=False, tag_field="event", tag="deal"):
    """The deal: seat names, cards in each stack, and the spare cards face up (bottom to top)."""

    seats: tuple[str, ...]
    stacks: tuple[int, ...]
    spares: tuple[Card, ...]
    game: int = 0


class Reshuffled(msgspec.Struct, frozen=True, gc=False, tag_field="event", tag="reshuffle"):
    """A seat's collected pile was shuffled into its new stack of ``cards`` cards."""

    seat: int
    cards: int
    game: int = 0


class Revealed(msgspec.Struct, frozen=True, gc=False, tag_field="event", tag="reveal"):
    """A card turned onto the pile; counts are taken after the reveal is resolved."""

    n: int
    seat: int
    card: Card
    under: Card | None
    match: bool
    moved: int
    stacks: tuple[int, ...]
    collected: tuple[int, ...]
    pile: int
    game: int = 0


class WentOut(msgspec.Struct, frozen=True, gc=False, tag_field="event", tag="out"):
    """A seat missed with its last card and nothing collected: it plays no more."""

    seat: int
    game: int = 0


class GameOver(msgspec.Struct, frozen=True, gc=False, tag_field="event", tag="end"):
    """The end: why, who won (several on an exact tie at the cap) and the cards each seat held."""

    reveals: int
    reason: EndReason
    winners: tuple[int, ...]
    cards: tuple[int, ...]
    game: int = 0


Event = Dealt | Reshuffled | Revealed | WentOut | GameOver
