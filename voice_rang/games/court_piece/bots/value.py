"""What a finished deal is worth to one team, given the session it is part of.

With points scoring the worth of a deal is the chance of winning the session from the score it
leaves and with the call it gives (the deal's winners call next): a point matters more at 8-8
than at 0-0, and a court that ends the session is worth exactly that. The chances come from a
small model of a deal, the shares of each result measured between two normal seats
(:data:`DEAL_SHARES`), worked out backwards from the target. With courts scoring it is the
courts the deal brings each side, and a little for the deal itself. A few thousandths a trick of
margin break ties between lines with the same result.

>>> round(session_chance(0, 0, True, 10), 3)
0.477
>>> session_chance(9, 3, False, 10) > session_chance(3, 9, True, 10)
True
"""

from __future__ import annotations

from functools import cache

from ..rules import Rules, ScoringMode
from .playout import Outcome

__all__ = ["DEAL_SHARES", "deal_value", "session_chance"]

DEAL_SHARES: dict[tuple[str, str], float] = {
    ("caller", "win"): 0.574,
    ("caller", "court"): 0.0137,
    ("caller", "52-court"): 0.0009,
    ("defender", "win"): 0.4017,
    ("defender", "court"): 0.0096,
    ("defender", "52-court"): 0.0002,
}
"""How often each result ends a deal of plain Court Piece between two normal teams (34,000 deals)."""

TRICK_WEIGHT = 0.002
"""The worth of a trick of margin, with points scoring (a session's chance is 0 to 1)."""
COURTS_TRICK_WEIGHT = 0.05
"""The worth of a trick of margin with courts scoring (a court is 1)."""
DEAL_WEIGHT = 0.5
"""With courts scoring, winning a deal without a court still counts a little (the streak, the next call)."""


@cache
def session_chance(mine: int, theirs: int, calling: bool, target: int) -> float:
    """The chance of winning a session to ``target`` from ``mine`` to ``theirs``, calling the next deal or not."""
    if mine >= target:
        return 1.0
    if theirs >= target:
        return 0.0
    chance = 0.0
    for (side, kind), share in DEAL_SHARES.items():
        ours = (side == "caller") == calling
        if kind == "52-court":
            chance += share if ours else 0.0
            continue
        points = (1 if side == "caller" else 2) + (2 if kind == "court" else 0)
        if ours:
            chance += share * session_chance(mine + points, theirs, True, target)
        else:
            chance += share * session_chance(mine, theirs + points, False, target)
    return chance


def deal_value(outcome: Outcome, team: int, rules: Rules, caller: int, score: tuple[int, int]) -> float:
    """The deal's worth to ``team``: with points, its chance of winning the session afterwards."""
    winner = outcome.winner
    kind = outcome.kind
    ours = winner == team
    margin = (outcome.won0 - outcome.won1) * (1 if team == 0 else -1)
    scoring = rules.scoring
    if scoring.mode is ScoringMode.POINTS:
        if kind == "52-court":
            return (1.0 if ours else 0.0) + TRICK_WEIGHT * margin
        points = (1 if winner == caller % 2 else 2) + (0 if kind == "win" else 2)
        mine, theirs = score[team], score[1 - team]
        if ours:
            mine += points
        else:
            theirs += points
        return session_chance(mine, theirs, ours, scoring.target) + TRICK_WEIGHT * margin
    if kind == "52-court":
        courts = 52.0
    elif kind == "goon court" and rules.is_double_sir:
        courts = float(rules.options.goon)
    else:
        courts = 0.0 if kind == "win" else 1.0
    return (courts + DEAL_WEIGHT) * (1.0 if ours else -1.0) + COURTS_TRICK_WEIGHT * margin
