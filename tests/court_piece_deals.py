"""Stacked Court Piece deals for tests: name the cards that matter, the rest are dealt around them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from random import Random

from voice_rang.cards import DECK, Card
from voice_rang.games.court_piece.actions import Action, PlayCard, RevealTrump
from voice_rang.games.court_piece.deck import CARD_OF
from voice_rang.games.court_piece.events import Event
from voice_rang.games.court_piece.rules import Rules
from voice_rang.games.court_piece.session import Session, deck_for_hands


def cards(codes: str) -> list[Card]:
    """``"AH 5H 10C"`` as cards."""
    return [Card(code) for code in codes.split()]


def hands_around(fixed: dict[int, str], voids: dict[int, str] | None = None) -> list[list[Card]]:
    """Four hands of 13: each seat's ``fixed`` cards first (in that order), the others dealt so that
    no seat gets a suit it must be void in (``voids``: seat -> suit letters)."""
    voids = voids or {}
    hands = [cards(fixed.get(seat, "")) for seat in range(4)]
    taken = {card for hand in hands for card in hand}
    assert len(taken) == sum(len(hand) for hand in hands), "a card is fixed twice"
    rest = [card for card in DECK if card not in taken]

    def eligible(card: Card) -> list[int]:
        return [seat for seat in range(4) if card.suit.value not in voids.get(seat, "") and len(hands[seat]) < 13]

    rest.sort(key=lambda card: len(eligible(card)))
    for card in rest:
        seats = eligible(card)
        assert seats, f"no seat can take {card.code}"
        seat = max(seats, key=lambda s: (13 - len(hands[s]), -s))
        hands[seat].append(card)
    assert all(len(hand) == 13 for hand in hands)
    return hands


def stacked(rules: Rules, hands: Sequence[Sequence[Card]], dealer: int, *, more: int = 0) -> Session:
    """A started session whose first deal gives ``hands`` (``more`` random deals may follow)."""
    caller = (dealer + 1) % 4
    session = Session(rules, Random(0), dealer=dealer, decks=[deck_for_hands(hands, caller, rules)])
    session.start()
    return session


def play(session: Session, moves: Iterable[str]) -> list[Event]:
    """Each move by the seat to act: a card code, ``"down:CODE"`` face down, or ``"reveal"``."""
    events: list[Event] = []
    for move in moves:
        seat = session.to_act
        assert seat is not None, f"the session is over before {move}"
        action: Action
        if move == "reveal":
            action = RevealTrump()
        elif move.startswith("down:"):
            action = PlayCard(Card(move[5:]), face_down=True)
        else:
            action = PlayCard(Card(move))
        events.extend(session.apply(seat, action))
    return events


def play_highest(session: Session, until_deal_ends: bool = True) -> list[Event]:
    """Every seat plays its highest legal card (by rank, ace high) until the deal ends."""
    events: list[Event] = []
    deal = session.deal_number
    while session.to_act is not None and (session.deal_number == deal or not until_deal_ends):
        seat = session.to_act
        view = session.view(seat)
        if view.legal_mask == 0:
            break
        best = max((index for index in range(52) if view.legal_mask >> index & 1), key=lambda i: (i % 13, i))
        events.extend(session.apply(seat, PlayCard(CARD_OF[best], view.face_down_only)))
    return events

