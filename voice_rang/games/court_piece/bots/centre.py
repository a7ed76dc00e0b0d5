"""Double Sir from a seat's view: would a win of this trick take the centre?

In the three Double Sir games a trick is worth nothing alone; what counts is the same seat
winning twice in a row (and, with trick 13, the last win). These checks let a bot value the
trick in progress: beat an opponent about to collect, take the centre itself, and leave it to a
partner who is about to.
"""

from __future__ import annotations

from ..deck import ACES
from ..rules import Variant
from ..view import SeatView

__all__ = ["collects", "trump_set_in"]


def trump_set_in(view: SeatView) -> int:
    """Be-ranga: the number of the trick in which trumps were set (0 while they are not)."""
    if view.trump < 0:
        return 0
    for trick in view.tricks:
        led = trick.plays[0].card // 13
        if any(played.card >= 0 and played.card // 13 != led for played in trick.plays):
            return trick.number
    return view.trick_number


def collects(view: SeatView, seat: int, card: int) -> bool:
    """Whether ``seat`` winning the current trick with ``card`` would take the centre into its team's pile."""
    rules = view.rules
    if not rules.is_double_sir:
        return False
    number = view.trick_number
    if number == 13:
        return True
    if not view.tricks or view.centre == 0:
        return False
    last = view.tricks[-1]
    if last.winner != seat:
        return False
    options = rules.options
    if options.no_early_late and number in (2, 12):
        return False
    last_play = next(played for played in last.plays if played.seat == seat)
    if options.aces_no_collect and ACES >> card & 1 and ACES >> last_play.card & 1:
        return False
    if rules.variant is Variant.BE_RANGA:
        set_in = trump_set_in(view)
        return set_in > 0 and number - 1 >= set_in
    if rules.variant is Variant.HIDDEN_RUNG:
        return number > 2 and number != 12 and last_play.trump_known
    return True
