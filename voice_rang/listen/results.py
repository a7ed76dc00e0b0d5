"""What the recogniser emits and the endpointer reads: one :class:`Recognition` per utterance,
and a :class:`Completion` hint while it is being said. Kept apart so that the endpointer, the
decoders and the decision rule import these values and never each other.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

__all__ = ["MIN_GAP_MS", "SAMPLE_RATE", "STABLE_MS", "Completion", "Recognition", "StreamingRecognizer",
           "continues_talk"]

SAMPLE_RATE = 16000
"""The acoustic model's rate: every caller resamples to it first."""

MIN_GAP_MS = 400.0
"""Silence a command needs before it: less, and it is the next piece of someone's sentence."""

STABLE_MS = 60.0
"""How long both decoders must have agreed on a whole command before the endpointer may close
quickly on it: a guess that appears only in the fading tail of a word ("help" from the breath
after a fast "normal") has not held that long."""


@dataclass(frozen=True)
class Recognition:
    """What one utterance was: a command, an unsure guess, or nothing for the game.

    ``command`` is a canonical id only when the recogniser is confident and the command is allowed
    now; ``unsure`` means it heard speech that might have been a command (the game asks "Did you
    say …?" about ``guess`` and never acts without a yes); ``heard`` is the raw grammar text
    (garbage words in brackets); ``ms`` is decode time, from the end of the audio to the answer.
    """

    command: str | None
    heard: str
    unsure: bool
    ms: float
    reason: str = ""
    """``command``, ``unsure``, ``too noisy``, ``cut short`` (a command word fitted into the last
    few frames: "auto reveal" said without "on"), ``poor match`` (the command won over ordinary
    words but matches the sound poorly: :attr:`Tuning.min_fit`), ``not a command``,
    ``not valid now``, ``part of longer talk``, ``too short``, ``too long``, ``silence``; from the
    neural rule (:mod:`.decision`) also ``doubt`` (the head and the grammar decoders heard two
    different commands); from the rule for moves (:mod:`.choices`) also ``which`` (two moves heard
    alike: :attr:`between`) and ``confirm`` (a move heard clearly that the game asks about
    anyway, to protect the player)."""
    speech_ms: float = 0.0
    """Length of the audio decoded, for duration sanity and reports."""
    guess: str | None = None
    """The command the lenient decoder leaned to, even when not accepted (what an unsure answer
    asks about)."""
    snr_db: float = math.inf
    """How far the speech stood above the room's noise (from the endpointer; infinite if unknown)."""
    warp: float = 1.0
    """The vocal tract warp the answer was heard through (:attr:`Tuning.warps`)."""
    confidence: float = 0.0
    """The command head's probability for ``guess`` (0 when only the grammar decoders ran)."""
    personal: bool = False
    """The player's own enrolled takes decided it (:mod:`.personal`)."""
    between: tuple[str, ...] = ()
    """Two (or more) moves heard about as well as each other (:mod:`.choices`): the game asks
    which one ("The queen of hearts or the queen of spades?") and acts on neither until told."""


class Completion(Enum):
    """How far a partial hypothesis is through a command: the endpointer's hint."""

    NONE = "none"
    """Nothing command-like yet (or ordinary words): normal hangover."""
    PREFIX = "prefix"
    """The start of a longer command ("auto reveal"): wait longer."""
    COMPLETE_PREFIX = "complete-prefix"
    """A whole command that a longer one extends: wait longer."""
    COMPLETE = "complete"
    """A whole command nothing extends: close the utterance after a short silence."""


class StreamingRecognizer(Protocol):
    """What the listener and :func:`.recognizer.decode_pcm` drive, whichever rule decides."""

    def reset_stream(self) -> None: ...
    def start(self, allowed: Iterable[str] | None = None, *, after_talk: bool = False,
              gap_ms: float = math.inf) -> None:
        """Begin an utterance; ``gap_ms``: the silence since the one before (infinite: none, or
        the game spoke since)."""
    def feed(self, pcm: bytes) -> None: ...
    def completion(self) -> Completion: ...
    def prepare(self) -> None:
        """The endpointer may close on the next frame: do now what ``finish`` would need."""
    def abort(self) -> None: ...
    def finish(self, snr_db: float = math.inf) -> Recognition: ...


def continues_talk(gap_ms: float, previous: Recognition | None) -> bool:
    """Whether speech that began ``gap_ms`` after the last utterance ended is the next piece of
    someone's sentence (so no command on its own), given what that utterance was (``None``: talk
    too long to decode, or nothing yet).

    Only a short gap after *talk* counts. Speech the game took for a command, or asked about
    ("Did you say turn?"), was said to the game, and a quick "yes" after it is an answer.

    >>> continues_talk(200.0, None)
    True
    >>> continues_talk(200.0, Recognition(None, "yes", True, 1.0, "unsure", guess="turn"))
    False
    >>> continues_talk(MIN_GAP_MS, None)
    False
    """
    addressed = previous is not None and (previous.command is not None or previous.unsure)
    return gap_ms < MIN_GAP_MS and not addressed
