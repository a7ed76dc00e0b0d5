"""What the table talks to and what its seats are: the types the table and its two halves
(:mod:`.answers`, :mod:`.pacing`) share, kept apart so that each imports them and none imports
another's module."""

from __future__ import annotations

from typing import Literal, Protocol

from ..messages import Message

__all__ = ["Outputs", "SeatKind"]

SeatKind = Literal["person", "computer", "remote"]
"""``remote``: a person at another device, whose commands arrive with their seat
(:meth:`.table.Table.handle`)."""


class Outputs(Protocol):
    """Where messages go, and the few speech controls the table needs."""

    def say(self, message: Message) -> None: ...

    def stop(self) -> None:
        """Silence speech now (barge-in, or ``stop``)."""

    def busy(self) -> bool:
        """True while speech is still playing: computer seats wait for it."""

    def faster(self) -> int | None:
        """Speed speech up; the new rate, or ``None`` when nothing speaks."""

    def slower(self) -> int | None: ...
