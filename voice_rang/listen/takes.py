"""Recording takes through the live microphone path: a "recogniser" that keeps the utterance.

Receives what any :class:`.results.StreamingRecognizer` does from the microphone listener (so a
take is cut by the same endpointer, half duplex and all, as a command in play). Emits each whole
utterance's PCM16 on :attr:`TakeRecorder.takes`, and never a command.
"""

from __future__ import annotations

import math
import queue
from collections.abc import Iterable

from .results import Completion, Recognition

__all__ = ["TakeRecorder"]


class TakeRecorder:
    """Keeps each utterance the endpointer cuts; ``voice-rang enroll`` reads them off the queue."""

    def __init__(self) -> None:
        self.takes: queue.Queue[bytes] = queue.Queue()
        self._audio: list[bytes] = []

    def reset_stream(self) -> None:
        self._audio = []

    def start(self, allowed: Iterable[str] | None = None, *, after_talk: bool = False,
              gap_ms: float = math.inf) -> None:
        del allowed, after_talk, gap_ms
        self._audio = []

    def feed(self, pcm: bytes) -> None:
        self._audio.append(pcm)

    def completion(self) -> Completion:
        return Completion.NONE

    def prepare(self) -> None:
        """A take is kept whole: nothing to do ahead."""

    def abort(self) -> None:
        self._audio = []

    def finish(self, snr_db: float = math.inf) -> Recognition:
        audio = b"".join(self._audio)
        self._audio = []
        self.takes.put(audio)
        return Recognition(None, "", False, 0.0, "take", len(audio) / 32.0, snr_db=snr_db)
