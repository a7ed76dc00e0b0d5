"""Noise suppression for the endpointer's ears only.

Receives 20 ms frames of 16 kHz mono PCM16; emits the same frames with steady noise (a fan, a hiss,
rain, traffic) taken down by WebRTC's noise suppressor (PyPI ``webrtc-noise-gain``), about 6 ms
later in the frame. In a steady room it has not yet learnt, the endpointer decides where speech
starts and ends on this sound: at 10 dB in white or pink noise, with little of the room heard, a
word's soft parts sank into the hiss, and the cut it made of the raw sound was half the command.
The grammar decoders and the released command head hear the sound as the microphone gave it: they
were trained and tuned on it, and a head fed suppressed sound gained nothing. A head trained on
suppressed takes (:class:`UtteranceSuppressor`, ``train_command_head.py --suppressed``) is fed
that sound instead; it heard two more of 132 commands at 10 dB and took more talk, so it was not
released (docs/voice-experiments.md).
"""

from __future__ import annotations

__all__ = ["LEARN_MS", "ROOM_MS", "SUPPRESSION_LEVEL", "NoiseSuppressor", "UtteranceSuppressor", "suppress_utterance"]

SUPPRESSION_LEVEL = 3
"""WebRTC's suppression level, 1 (mild) to 4 (strongest); chosen on the training voices."""

_CHUNK_BYTES = 320
"""WebRTC's suppressor takes 10 ms at a time: 160 samples of 16-bit audio."""


class NoiseSuppressor:
    """One stream's suppressor: it learns that stream's noise, so one per stream.

    >>> quiet = NoiseSuppressor().process(b"\\0" * 640)
    >>> len(quiet)
    640
    """

    def __init__(self, level: int = SUPPRESSION_LEVEL) -> None:
        from webrtc_noise_gain import AudioProcessor

        self._processor = AudioProcessor(0, level)

    def process(self, frame: bytes) -> bytes:
        """One frame, a whole number of 10 ms chunks, suppressed."""
        if len(frame) % _CHUNK_BYTES:
            raise ValueError(f"frames must be a multiple of {_CHUNK_BYTES} bytes")
        return b"".join(self._processor.Process10ms(frame[at:at + _CHUNK_BYTES]).audio
                        for at in range(0, len(frame), _CHUNK_BYTES))


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
