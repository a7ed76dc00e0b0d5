"""What a finished deal is worth, who deals next and the winners' streak: the rules page's tables as one function.

>>> from .rules import Rules
>>> settle(Rules.make(), "win", winner=1, caller=1, dealer=0, streak=(0, 2))
Settlement(score=1, next_dealer=0, streak=(0, 3))
>>> settle(Rules.make(), "goon court", winner=0, caller=1, dealer=0, streak=(1, 0))
Settlement(score=4, next_dealer=1, streak=(0, 0))
>>> ten = Rules.make("double-sir", scoring="courts", goon=10)
>>> settle(ten, "goon court", winner=0, caller=1, dealer=0, streak=(1, 0))
Settlement(score=10, next_dealer=1, streak=(0, 0))
"""

from __future__ import annotations

from typing import NamedTuple

from .events import DealKind
from .rules import Rules, ScoringMode

__all__ = ["Settlement", "settle"]


class Settlement(NamedTuple):
    """What the deal adds to the winning team's score, who deals next, and both teams' streaks after it."""

    score: int
    next_dealer: int
    streak: tuple[int, int]


def settle(
    rules: Rules, kind: DealKind, *, winner: int, caller: int, dealer: int, streak: tuple[int, int]
) -> Settlement:
    """Settle a deal that team ``winner`` won as ``kind`` (any kind but "win" is a court of some sort)."""
    court = kind != "win"
    if rules.scoring.mode is ScoringMode.POINTS:
        base = 1 if winner == caller % 2 else 2  # the caller's team earns less for doing what it set out to do
        score = base + 2 if court else base
    elif kind == "52-court":
        score = 52
    elif kind == "goon court" and rules.is_double_sir:
        score = rules.options.goon
    else:
        score = 1 if court else 0
    after = [0, 0]
    after[winner] = 0 if court else streak[winner] + 1
    if winner == dealer % 2:
        next_dealer = (dealer + 1) % 4
    elif court:
        next_dealer = (dealer + 2) % 4
    else:
        next_dealer = dealer
    return Settlement(score, next_dealer, (after[0], after[1]))
