"""What one seat may know, as one immutable value: the only thing a seat is ever handed.

A seat sees its own hand, every card played face up, the trump once it is known (and,
for the caller, its own face-down trump card), the tricks so far, the counts and the
voids the play has shown. It never sees another hand, a card played face down by
someone else, or a hidden trump before its reveal: the engine builds this value, and
bots, hints, the narration and the network are handed nothing else (like open_spiel's
information states).

Cards inside a view are card indexes (:mod:`.deck`) so that a bot can count with masks;
the properties give :class:`~voice_rang.cards.Card` values for everyone else.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from ...cards import Card, Suit
from .actions import Action, PlayCard, RevealTrump
from .deck import CARD_OF, POWER_OF, SUIT_MASKS, SUITS, bits
from .rules import Rules

__all__ = ["PLAY", "PLAY_FACE_DOWN", "REVEAL", "Phase", "Play", "SeatView", "Trick", "trick_leader_so_far"]

PLAY: tuple[PlayCard, ...] = tuple(PlayCard(card) for card in CARD_OF)
"""The action that plays card index ``i`` face up (shared, so nobody builds them in a hot loop)."""
PLAY_FACE_DOWN: tuple[PlayCard, ...] = tuple(PlayCard(card, face_down=True) for card in CARD_OF)
REVEAL = RevealTrump()


class Phase(enum.Enum):
    """What the game waits for."""

    TRUMP = "trump"
    PLAY = "play"
    OVER = "over"


class Play(NamedTuple):
    """One card in a trick, as this seat saw it: ``card`` is -1 for another seat's face-down card."""

    seat: int
    card: int
    face_down: bool
    trump_known: bool
    """Trumps were known to all when it was played (a card of the trump suit played before counts only if led)."""


class Trick(NamedTuple):
    """A finished trick of this deal."""

    number: int
    leader: int
    plays: tuple[Play, ...]
    winner: int


class SeatView(NamedTuple):
    """Everything ``seat`` may know now. Masks are 52-bit sets of card indexes; suits are 0..3 (-1: none)."""

    seat: int
    rules: Rules
    deal: int
    dealer: int
    caller: int
    phase: Phase
    to_act: int | None
    hand_mask: int
    trump: int
    """The trump suit known to everyone, or -1."""
    trump_hidden: bool
    """A face-down trump card waits to be revealed."""
    own_trump_card: int
    """The caller's own face-down trump card (hidden trump, seen only by the caller), or -1."""
    face_up_trump_card: int
    """A trump card everyone saw turned up that the caller still holds, or -1."""
    trick_number: int
    leader: int
    current: tuple[Play, ...]
    reveal_index: int
    """How many cards of the current trick were played before the trump was revealed in it, or -1."""
    tricks: tuple[Trick, ...]
    won: tuple[int, int]
    centre: int
    seen_mask: int
    """Cards this seat has seen played (every face-up card, and its own face-down ones)."""
    voids: tuple[int, int, int, int]
    """Per seat, a 4-bit set of the suits it has shown it holds none of."""
    held: tuple[int, int, int, int]
    """How many cards each seat still holds (a face-down trump card included)."""
    score: tuple[int, int]
    streak: tuple[int, int]
    choices: tuple[Action, ...]
    """While trumps are chosen: the caller's options. Empty otherwise."""
    legal_mask: int
    """Cards this seat may play now (empty when it is not its turn)."""
    face_down_only: bool
    """Hidden Rung: the caller, unable to follow, must play face down unless it reveals."""
    may_reveal: bool
    first_five: int
    """This seat's first five cards (a mask); with a blind trump the caller's include the unseen one."""

    @property
    def team(self) -> int:
        """This seat's team: 0 for seats 0 and 2, 1 for seats 1 and 3."""
        return self.seat % 2

    @property
    def partner(self) -> int:
        return (self.seat + 2) % 4

    @property
    def hand(self) -> tuple[Card, ...]:
        """This seat's cards, by suit and rank (low first)."""
        return tuple(CARD_OF[index] for index in bits(self.hand_mask))

    @property
    def trump_suit(self) -> Suit | None:
        """The trump suit as everyone knows it, or None."""
        return SUITS[self.trump] if self.trump >= 0 else None

    @property
    def led_suit(self) -> int:
        """The suit led to the current trick, or -1 on lead."""
        return self.current[0].card // 13 if self.current else -1

    @property
    def legal(self) -> tuple[Action, ...]:
        """Every action this seat may take now, in a fixed order."""
        if self.phase is Phase.TRUMP:
            return self.choices
        table = PLAY_FACE_DOWN if self.face_down_only else PLAY
        actions: list[Action] = [table[index] for index in bits(self.legal_mask)]
        if self.may_reveal:
            actions.append(REVEAL)
        return tuple(actions)

    def suit_cards(self, suit: int) -> int:
        """This seat's cards of one suit, as a mask."""
        return self.hand_mask & SUIT_MASKS[suit]


def trick_leader_so_far(plays: tuple[Play, ...] | list[Play], trump: int) -> int:
    """The index in ``plays`` of the card winning the trick so far (-1 if none can win yet).

    A card of the trump suit wins as a trump only if trumps were known when it was
    played, or if that suit was led; a face-down card never wins.

    >>> from .deck import CARD_INDEX
    >>> def play(seat, code, known=True): return Play(seat, CARD_INDEX[Card(code)], False, known)
    >>> trick_leader_so_far([play(0, "AH"), play(1, "5H"), play(2, "6D", False), play(3, "3D")], 1)
    3
    >>> trick_leader_so_far([play(0, "AS", False), play(1, "3D"), play(2, "5S"), play(3, "7S")], 3)
    0
    """
    if not plays or plays[0].card < 0:
        return -1
    led = plays[0].card // 13
    best = -1
    best_key = -1
    for position, played in enumerate(plays):
        card = played.card
        if played.face_down or card < 0:
            continue
        suit = card // 13
        if suit == trump and (played.trump_known or suit == led):
            key = 100 + POWER_OF[card]
        elif suit == led:
            key = POWER_OF[card]
        else:
            continue
        if key > best_key:
            best, best_key = position, key
    return best
