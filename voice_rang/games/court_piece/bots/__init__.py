"""Computer seats at four levels: random (a yardstick), easy, normal and strong.

Each is handed its seat's view and nothing else (:mod:`.base`); :func:`make_bot` builds one.
"""

from __future__ import annotations

from random import Random

from .base import Bot, Explanation
from .easy import EasyBot
from .normal import NormalBot
from .random_bot import RandomBot
from .strong import DEFAULT_BUDGET, StrongBot

__all__ = ["LEVELS", "Bot", "EasyBot", "Explanation", "NormalBot", "RandomBot", "StrongBot", "make_bot"]

LEVELS = ("random", "easy", "normal", "strong")


def make_bot(level: str, rng: Random, *, budget: float = DEFAULT_BUDGET) -> Bot:
    """A computer seat of ``level`` that draws any chance it needs from ``rng``.

    ``budget`` is the strong level's thinking time a decision, in seconds (the others ignore it).
    """
    if level == "random":
        return RandomBot(rng)
    if level == "easy":
        return EasyBot(rng)
    if level == "normal":
        return NormalBot(rng)
    if level == "strong":
        return StrongBot(rng, budget=budget)
    raise ValueError(f"the computer levels are {', '.join(LEVELS)}, not {level!r}")
