"""What the play so far says about the cards each seat cannot hold.

Two kinds of reading, both from the view alone:

* **voids:** a seat that did not follow suit has none of it (the engine lists these); a caller's
  revealed trump card went back to its hand after it may have shown the suit missing, so that
  one void is not kept;
* **last to play:** a seat that plays last to a trick an opponent is winning takes it if it can,
  as cheaply as it can. So if it followed suit and lost, it held nothing higher in the suit; if it
  won, nothing cheaper that also wins; if it could not follow and did not trump, no trump that
  would have won; if it trumped, no cheaper winning trump.

The second is a reading of sensible play, not a rule: a seat that is later seen to play a card the
reading ruled out is not read again (a person may duck on purpose), and a search that finds no deal
agreeing with the readings drops them (:mod:`.sampling`).
"""

from __future__ import annotations

from ..deck import SUIT_MASKS
from ..rules import Variant
from ..view import Play, SeatView, trick_leader_so_far
from .counting import ABOVE, BELOW, VOID_CARDS

__all__ = ["READ_PLAYS", "barred_by_play", "barred_by_voids"]

READ_PLAYS = True
"""Whether the search reads the last seat's plays (voids are always read)."""


def barred_by_voids(view: SeatView) -> list[int]:
    """Per seat, the cards it cannot hold because it showed a void."""
    voids = list(view.voids)
    if view.rules.trump_hidden_at_first and view.trump >= 0:
        voids[view.caller] &= ~(1 << view.trump)
    return [VOID_CARDS[voids[seat]] for seat in range(4)]


def barred_by_play(view: SeatView) -> list[int]:
    """Per seat, the cards sensible play says it did not hold when it played last to a trick."""
    barred = [0, 0, 0, 0]
    unread = 0
    tricks = [trick.plays for trick in view.tricks]
    if len(view.current) == 4:
        tricks.append(view.current)
    for plays in tricks:
        if plays[3].card >= 0:
            barred[plays[3].seat] |= _ruled_out(view, plays)
    for plays in tricks:
        for one in plays:
            if one.card >= 0 and barred[one.seat] >> one.card & 1:
                unread |= 1 << one.seat
    for one in view.current:
        if one.card >= 0 and barred[one.seat] >> one.card & 1:
            unread |= 1 << one.seat
    return [0 if unread >> seat & 1 else barred[seat] for seat in range(4)]


def _ruled_out(view: SeatView, plays: tuple[Play, ...] | list[Play]) -> int:
    """The cards the last seat of a finished trick would have played instead, had it held them."""
    last = plays[3]
    if last.face_down or (not last.trump_known and (view.rules.trump_hidden_at_first or _before_trumps(view))):
        return 0
    trump = view.trump
    position = trick_leader_so_far(plays[:3], trump)
    if position < 0:
        return 0
    winning = plays[position]
    if winning.seat % 2 == last.seat % 2:
        return 0
    led = plays[0].card // 13
    best = winning.card
    best_is_trump = best // 13 == trump and (winning.trump_known or best // 13 == led)
    card = last.card
    suit = card // 13
    won = trick_leader_so_far(plays, trump) == 3
    if suit == led:
        if best_is_trump and led != trump:
            return 0
        return ABOVE[best] & BELOW[card] if won else ABOVE[best]
    if trump < 0:
        return 0
    if suit == trump and won:
        return ABOVE[best] & BELOW[card] if best_is_trump else BELOW[card]
    if suit != trump:
        return ABOVE[best] if best_is_trump else SUIT_MASKS[trump]
    return 0


def _before_trumps(view: SeatView) -> bool:
    return view.rules.variant is Variant.BE_RANGA
