"""The easy level: one plain habit per situation, no counting, a few microseconds a decision.

It follows suit with its lowest card, trumps with its lowest trump when it cannot follow,
otherwise throws its lowest card; it leads its highest card (from its longest suit when two
are as high), and names its longest suit of the first five as trumps. A person soon learns to
read it.
"""

from __future__ import annotations

from random import Random

from ..actions import Action
from ..deck import POWER_OF, SUIT_MASKS
from ..view import PLAY, PLAY_FACE_DOWN, Phase, SeatView
from .base import Explanation
from .reasons import explain_habit
from .trumps import trump_action

__all__ = ["EasyBot", "easy_card"]


def easy_card(view: SeatView) -> int:
    """The card the easy habit plays in this view (the view must be a turn to play)."""
    legal = view.legal_mask
    current = view.current
    if not current:
        best = 0
        best_key = -1
        for suit in range(4):
            cards = legal & SUIT_MASKS[suit]
            if cards:
                key = POWER_OF[cards.bit_length() - 1] * 16 + cards.bit_count()
                if key > best_key:
                    best, best_key = cards, key
        return best.bit_length() - 1
    follow = legal & SUIT_MASKS[current[0].card // 13]
    if follow:
        return (follow & -follow).bit_length() - 1
    trump = view.trump
    if trump >= 0:
        trumps = legal & SUIT_MASKS[trump]
        if trumps:
            return (trumps & -trumps).bit_length() - 1
    card = -1
    power = 99
    for suit in range(4):
        cards = legal & SUIT_MASKS[suit]
        if cards:
            low = (cards & -cards).bit_length() - 1
            if POWER_OF[low] < power:
                card, power = low, POWER_OF[low]
    return card


class EasyBot:
    """Plays the plain habit; never asks for a hidden trump, never counts a card."""

    level = "easy"

    def __init__(self, rng: Random) -> None:
        self._rng = rng

    def decide(self, view: SeatView) -> Action:
        if view.phase is Phase.TRUMP:
            return trump_action(view.choices, view.hand_mask, careful=False)
        card = easy_card(view)
        return PLAY_FACE_DOWN[card] if view.face_down_only else PLAY[card]

    def explain(self, view: SeatView, action: Action) -> Explanation:
        return explain_habit(view, action)
