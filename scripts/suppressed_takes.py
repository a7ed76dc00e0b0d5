"""Takes heard through WebRTC's noise suppressor, for heads trained on the suppressed sound.

Receives one utterance (PCM16, 16 kHz mono), whole or frame by frame. Emits it through a noise
suppressor that first learnt the room from the utterance's own start. ``train_command_head.py
--suppressed`` trains a head on such takes, and the speech embedding's front
(:mod:`speech_embedding`) feeds it live utterances the same way. Not part of the game: such a head
heard two more of 132 commands at 10 dB and took more talk, so it was not released
(docs/voice-experiments.md).
"""

from __future__ import annotations

from voice_rang.listen.suppress import SUPPRESSION_LEVEL, NoiseSuppressor

__all__ = ["LEARN_MS", "ROOM_MS", "UtteranceSuppressor", "suppress_utterance"]

_CHUNK_BYTES = 320
"""WebRTC's suppressor takes 10 ms at a time: 160 samples of 16-bit audio."""

ROOM_MS = 150
"""How much of an utterance's start is taken for the room it was said in: the endpointer's
pre-roll holds 300 ms before the onset, and a training take 150-450 ms."""
LEARN_MS = 1000
"""How long the suppressor hears that room, over and over, before the utterance: long enough for
it to have learnt a steady noise, as it has in play after a moment of listening."""


class UtteranceSuppressor:
    """The suppressor one utterance is heard through: it first learns the room from the
    utterance's first ``ROOM_MS`` (looped for ``LEARN_MS``), then suppresses the utterance from its
    start. Training takes and live utterances go through the same steps, so a head trained on the
    suppressed sound hears play's utterances as it learnt them.

    >>> suppressor = UtteranceSuppressor()
    >>> len(suppressor.process(b"\\0" * 9600)) + len(suppressor.process(b"\\0" * 640))
    10240
    """

    def __init__(self, level: int = SUPPRESSION_LEVEL, sample_rate: int = 16000) -> None:
        self._suppressor = NoiseSuppressor(level)
        self._room_bytes = sample_rate * ROOM_MS // 1000 * 2
        self._learn_bytes = sample_rate * LEARN_MS // 1000 * 2
        self._waiting = bytearray()
        self._learnt = False

    def process(self, pcm: bytes) -> bytes:
        """The suppressed sound of ``pcm``; the first ``ROOM_MS`` are held back (and given with
        what follows) until the room is known."""
        if not self._learnt:
            self._waiting += pcm
            if len(self._waiting) < self._room_bytes:
                return b""
            self._learn(bytes(self._waiting[:self._room_bytes]))
            pcm, self._waiting = bytes(self._waiting), bytearray()
        return self._chunks(pcm)

    def flush(self) -> bytes:
        """What is still held back (an utterance shorter than ``ROOM_MS``), learnt from itself."""
        if self._learnt or not self._waiting:
            return b""
        waiting, self._waiting = bytes(self._waiting), bytearray()
        self._learn(waiting)
        return self._chunks(waiting)

    def _learn(self, room: bytes) -> None:
        whole = len(room) - len(room) % _CHUNK_BYTES
        if whole:
            looped = room[:whole] * (self._learn_bytes // whole + 1)
            self._suppressor.process(looped[:self._learn_bytes - self._learn_bytes % _CHUNK_BYTES])
        self._learnt = True

    def _chunks(self, pcm: bytes) -> bytes:
        """Suppressed in whole 10 ms chunks; a ragged end (a recording's last samples) passes as
        it is."""
        whole = len(pcm) - len(pcm) % _CHUNK_BYTES
        return self._suppressor.process(pcm[:whole]) + pcm[whole:]


def suppress_utterance(pcm: bytes) -> bytes:
    """One whole utterance through a fresh :class:`UtteranceSuppressor`, as training hears it.

    >>> len(suppress_utterance(b"\\1\\0" * 5000))
    10000
    """
    suppressor = UtteranceSuppressor()
    return suppressor.process(pcm) + suppressor.flush()
