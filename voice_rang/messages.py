"""What the table hands to its outputs: one sentence-sized message and how urgent it is.

Pure data, shared by the narration (which makes messages) and the outputs (text
lines, speech) which consume them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["Message", "Priority"]


class Priority(enum.IntEnum):
    """How a message treats older speech still waiting or playing.

    ``CHATTY`` (another seat's reveal, counts) may be cut by anything newer and more
    urgent; ``NORMAL`` is spoken in order; ``URGENT`` (your turn, an answer to your
    command, the end of the game) cuts older chattier speech at once.
    """

    CHATTY = 0
    NORMAL = 1
    URGENT = 2


@dataclass(frozen=True)
class Message:
    """One line of output: printed as it is, spoken as it is."""

    text: str
    priority: Priority = Priority.NORMAL
    kind: str = ""
    """What the message is about (``reveal``, ``your turn``, ``answer`` …), for outputs and tests."""
    cue: str = ""
    """A sound cue played just before the words (a name from ``voice_rang.speech.cues``, such as
    ``miss`` or ``capture you 7``), or empty. Printed output ignores it."""
