"""Noise suppression for the endpointer's ears only.

Receives 20 ms frames of 16 kHz mono PCM16; emits the same frames with steady noise (a fan, a hiss,
rain, traffic) taken down by WebRTC's noise suppressor (PyPI ``webrtc-noise-gain``), about 6 ms
later in the frame. In a steady room it has not yet learnt, the endpointer decides where speech
starts and ends on this sound: at 10 dB in white or pink noise, with little of the room heard, a
word's soft parts sank into the hiss, and the cut it made of the raw sound was half the command.
The grammar decoders and the released command head hear the sound as the microphone gave it: they
were trained and tuned on it, and a head fed suppressed sound gained nothing. (A head trained on
suppressed takes, ``scripts/train_command_head.py --suppressed``, heard two more of 132 commands at
10 dB and took more talk, so it was not released: docs/voice-experiments.md.)

Where the wheel has no build for the platform, :func:`noise_suppressor` gives ``None`` and the
endpointer listens to the sound as given alone.
"""

from __future__ import annotations

__all__ = ["SUPPRESSION_LEVEL", "NoiseSuppressor", "noise_suppressor"]

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


def noise_suppressor(level: int = SUPPRESSION_LEVEL) -> NoiseSuppressor | None:
    """A suppressor, or ``None`` where ``webrtc-noise-gain`` is not installed or will not load
    (it has no wheel for Windows, macOS or Linux on ARM)."""
    try:
        return NoiseSuppressor(level)
    except (ImportError, OSError):
        return None
