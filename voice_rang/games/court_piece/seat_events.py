"""The events as one seat may hear them: the host's record with everything that seat may not know taken out.

The engine's events are the host's complete record (every hand, every face-down card). A
seat is handed these instead: its own cards and nothing of anyone else's, a hidden trump as
hidden until its reveal (but the caller's own set-apart card for the caller), and another
seat's face-down card as a card without a face. The narration, a guest's device and the web
page only ever see these.

>>> from random import Random
>>> from .actions import NameTrump
>>> from .rules import Rules
>>> from .session import Session
>>> from ...cards import Suit
>>> session = Session(Rules.make(), Random(2), dealer=0)
>>> feed = SeatFeed(seat=2)
>>> [type(event).__name__ for event in feed.take(session.start(), session.view(2))]
['SessionStarted', 'DealStarted']
>>> chosen, dealt = feed.take(session.apply(1, NameTrump(Suit.SPADES)), session.view(2))
>>> chosen.suit, len(dealt.cards)
(<Suit.SPADES: 'S'>, 13)
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from ...cards import Card
from .deck import CARD_OF
from .events import (
    CardPlayed,
    DealDone,
    DealEnded,
    Event,
    Redealt,
    SessionEnded,
    SessionStarted,
    TrickWon,
    TrumpChosen,
    TrumpRevealed,
)
from .view import SeatView

__all__ = ["CardShown", "DealStarted", "HandDealt", "SeatEvent", "SeatFeed", "TrickTaken"]


class DealStarted(msgspec.Struct, frozen=True, tag_field="event", tag="deal"):
    """A deal begins: who deals, who calls trumps, and this seat's cards so far (five, or all thirteen)."""

    dealer: int
    caller: int
    cards: tuple[Card, ...]
    game: int = 0
    deal: int = 1


class HandDealt(msgspec.Struct, frozen=True, tag_field="event", tag="hand"):
    """The rest of the deal has come: this seat's whole hand (without a hidden trump card set apart)."""

    cards: tuple[Card, ...]
    game: int = 0
    deal: int = 1


class CardShown(msgspec.Struct, frozen=True, tag_field="event", tag="play"):
    """A card played to a trick; ``card`` is None when another seat played it face down."""

    trick: int
    seat: int
    card: Card | None
    face_down: bool = False
    game: int = 0
    deal: int = 1


class TrickTaken(msgspec.Struct, frozen=True, tag_field="event", tag="trick"):
    """A trick's winner; ``cards`` has None for another seat's face-down card."""

    trick: int
    winner: int
    cards: tuple[Card | None, ...]
    won: tuple[int, int]
    centre: int
    collected: int
    game: int = 0
    deal: int = 1


SeatEvent = (
    SessionStarted | DealStarted | Redealt | TrumpChosen | HandDealt | CardShown | TrumpRevealed | TrickTaken
    | DealEnded | SessionEnded
)


class SeatFeed:
    """Turns the host's events into one seat's, batch by batch.

    :meth:`take` is handed each batch right after the action that made it, with the seat's
    view as it stands then: the view, not the host's events, says which cards the seat holds
    once trumps are chosen (with a hidden or blind trump the caller's set-apart card is not
    among them, and only the view knows which one that is).
    """

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        """The seat whose events these are; None for what anyone watching may know (no hand at all)."""
        self._all_at_once = False
        self._hidden: list[bool] = []
        """For each card of the trick going on, whether another seat played it face down: the
        ``trick`` event hides those too."""

    def catch_up(self, view: SeatView) -> None:
        """Take up a session in the middle (a resumed save), from a view of it."""
        self._all_at_once = view.rules.variant.value == "be-ranga"
        self._hidden = [play.face_down and play.seat != self.seat for play in view.current]

    def take(self, events: Iterable[Event], view: SeatView | None = None) -> list[SeatEvent]:
        """The seat's events for one batch of the host's; ``view`` is the seat's view after that batch."""
        shown: list[SeatEvent] = []
        for event in events:
            shown.extend(self._one(event, view))
        return shown

    def _one(self, event: Event, view: SeatView | None) -> list[SeatEvent]:
        seat = self.seat
        if isinstance(event, SessionStarted):
            self._all_at_once = event.variant == "be-ranga"
            return [event]
        if isinstance(event, DealDone):
            self._hidden.clear()
            if seat is None:
                cards: tuple[Card, ...] = ()
            else:
                cards = tuple(event.hands[seat] if self._all_at_once else event.first[seat])
            return [DealStarted(event.dealer, event.caller, cards, event.game, event.deal)]
        if isinstance(event, TrumpChosen):
            if event.how == "unable":
                return [event]
            if seat is None or view is None:
                return [event]
            if event.how == "hidden" and seat == event.seat and view.own_trump_card >= 0:
                own = CARD_OF[view.own_trump_card]
                event = TrumpChosen(event.seat, event.how, own.suit, own, event.game, event.deal)
            return [event, HandDealt(view.hand, event.game, event.deal)]
        if isinstance(event, CardPlayed):
            hidden = event.face_down and (seat is None or event.seat != seat)
            self._hidden.append(hidden)
            if hidden:
                return [CardShown(event.trick, event.seat, None, True, event.game, event.deal)]
            return [CardShown(event.trick, event.seat, event.card, event.face_down, event.game, event.deal)]
        if isinstance(event, TrickWon):
            flags = self._hidden + [False] * (len(event.cards) - len(self._hidden))
            faces: tuple[Card | None, ...] = tuple(
                None if hidden else card for card, hidden in zip(event.cards, flags, strict=False))
            self._hidden = []
            return [TrickTaken(event.trick, event.winner, faces, event.won, event.centre, event.collected,
                               event.game, event.deal)]
        return [event]
