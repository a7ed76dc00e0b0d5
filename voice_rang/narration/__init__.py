"""Events -> sentences for one seat's point of view. Pure: no I/O, no game state of its own."""

from .narrator import VERBOSITIES, Narrator, SeatView, Verbosity

__all__ = ["VERBOSITIES", "Narrator", "SeatView", "Verbosity"]
