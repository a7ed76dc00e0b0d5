"""What a computer seat is: something that is handed its seat's view and answers with an action.

A bot never sees the :class:`~voice_rang.games.court_piece.session.Session`; it is given
a :class:`~voice_rang.games.court_piece.view.SeatView` (its own hand and what the play
has shown) and nothing else, so it cannot cheat. Each decision can be explained as one
:class:`Explanation`: a reason from a closed set and the cards, suit or seat the
sentence names. Wording is the narration's business; :mod:`.words` holds the English.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ....cards import Card, Suit
from ..actions import Action
from ..view import SeatView

__all__ = ["Bot", "Explanation"]


@dataclass(frozen=True)
class Explanation:
    """Why a bot chose an action, as data: ``reason`` is a key of :data:`.words.ENGLISH`."""

    reason: str
    card: Card | None = None
    """The card the action plays or sets apart, if any."""
    cards: tuple[Card, ...] = ()
    """Other cards the sentence names (the ace that is gone, the card to beat)."""
    suit: Suit | None = None
    seat: int | None = None
    """A seat the sentence names (the partner who is winning, the opponent who is void)."""


class Bot(Protocol):
    """A computer seat of one level."""

    level: str

    def decide(self, view: SeatView) -> Action:
        """The action to take, chosen from ``view.legal`` and ``view`` alone."""
        ...

    def explain(self, view: SeatView, action: Action) -> Explanation:
        """One reason for ``action`` in this view (the hint a person may ask for)."""
        ...
