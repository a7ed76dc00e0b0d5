"""When a card turns by itself: the beat after a computer seat's or an auto-reveal turn comes, the
narration caught up, the quiet gap after it (listened through, not only waited out), and the floor
a player holds while speaking.

:class:`Pacing` is a part of :class:`voice_rang.table.Table` (kept here so the table's own module
is about whose turn it is and what a command does to the game): the table sets :attr:`due` when
an automatic card is next, and :meth:`tick`, driven by a clock, turns it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .outputs import Outputs

__all__ = ["FLOOR_HOLD_S", "LISTENER_BEHIND_S", "Pacing"]

FLOOR_HOLD_S = 6.0
"""The longest an automatic card waits for a player who has started speaking (:meth:`Pacing.hold_floor`),
in case the end of their words is never reported: longer than any command (the endpointer gives
up on speech after 4 s)."""
LISTENER_BEHIND_S = 5.0
"""The longest a card waits past its quiet gap for a listener that has not yet gone through the
gap's audio (:attr:`Pacing.heard_quiet_until`): a starved listener is waited for, a stuck one not.
Under two CPU hogs a listener decoding speech ran a median 2.7 s behind the microphone a second
after the words (7 s at worst); in silence, 10 ms."""
_RECHECK_S = 0.05
"""How soon a card held back (narration still playing, the quiet gap not yet heard, the quit
question open) is looked at again: the loop sleeps until :attr:`Pacing.due`, so a due time of now
would spin it."""


class Pacing:
    """The table's clock-driven half: it turns the automatic card when its time has come."""

    outputs: Outputs
    clock: Callable[[], float]
    beat: float
    quiet_gap: float
    heard_quiet_until: Callable[[], float] | None
    auto: list[bool]
    finished: bool
    due: float | None
    _floor_until: float | None
    _spoke_at: float | None
    _confirming_quit: bool

    def _reveal(self) -> None:
        raise NotImplementedError

    def tick(self, now: float | None = None) -> None:
        """Turn the automatic card if its beat has passed, the narration has caught up, no quit
        question is open, and (during auto-reveal) :attr:`quiet_gap` of silence has followed it."""
        now = self.clock() if now is None else now
        busy = self.outputs.busy()
        if busy:
            self._spoke_at = now
        if self.due is None or self.finished:
            return
        if self._confirming_quit:
            # "Quit the game?" is open: a card turned now would bury the question, and the yes
            # meant for it would follow "Your turn". The card comes a beat after the answer.
            self.due = max(self.due, now + max(self.beat, _RECHECK_S))
            return
        if now < self.due:
            return
        if busy:
            self.due = now + _RECHECK_S
            return
        gap = self.quiet_gap if any(self.auto) else 0.0
        if self._spoke_at is not None and gap and self._gap_unheard(self._spoke_at + gap, now):
            self.due = max(self._spoke_at + gap, now + _RECHECK_S)
            return
        self.due = None
        self._reveal()

    def _gap_unheard(self, gap_ends: float, now: float) -> bool:
        """Is the quiet gap that ends at ``gap_ends`` still to run, or not yet listened through?"""
        if now < gap_ends:
            return True
        heard = self.heard_quiet_until
        return heard is not None and heard() < gap_ends and now < gap_ends + LISTENER_BEHIND_S

    def hold_floor(self, now: float | None = None) -> None:
        """A player has started speaking: no card turns by itself until they are done
        (:meth:`release_floor`), or :data:`FLOOR_HOLD_S` at most. Otherwise the next automatic
        card would start the game talking, the microphone would stop listening mid-word, and a
        spoken "auto-reveal off" could be cut off every time."""
        now = self.clock() if now is None else now
        self._floor_until = now + FLOOR_HOLD_S
        if self.due is not None:
            self.due = max(self.due, self._floor_until)

    def release_floor(self, now: float | None = None) -> None:
        """The player's words have been heard (acted on or not): automatic play goes on a beat
        later."""
        if self._floor_until is None:
            return
        now = self.clock() if now is None else now
        self._floor_until = None
        if self.due is not None:
            self.due = now + self.beat
