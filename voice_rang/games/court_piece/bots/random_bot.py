"""The yardstick at the bottom of the ladder: a uniformly random legal action."""

from __future__ import annotations

from random import Random

from ..actions import Action, PlayCard
from ..view import SeatView
from .base import Explanation

__all__ = ["RandomBot"]


class RandomBot:
    """Picks any legal action with equal chance (it measures how much the other levels know)."""

    level = "random"

    def __init__(self, rng: Random) -> None:
        self._rng = rng

    def decide(self, view: SeatView) -> Action:
        return self._rng.choice(view.legal)

    def explain(self, view: SeatView, action: Action) -> Explanation:
        return Explanation("chance", card=action.card if isinstance(action, PlayCard) else None)
