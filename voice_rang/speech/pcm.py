"""Silence at the ends of synthesized speech, found and trimmed (16-bit mono PCM, native order).

espeak-ng starts each utterance with a little near-silence and ends it with about a third of a
second of it. Speech that starts at once and pauses for as long as the game chooses, not the
synthesizer, needs both ends cut.

>>> loud, quiet = (5000).to_bytes(2, sys.byteorder, signed=True), bytes(2)
>>> len(trim_trailing_silence(loud + quiet * 100)) // 2  # the sound and about 1 ms after it
23
>>> len(trim_leading_silence(quiet * 100 + loud)) // 2  # about 1 ms before it and the sound
23
>>> is_silent(quiet * 10), is_silent(loud)
(True, False)
"""

from __future__ import annotations

import array
import sys

__all__ = ["SILENCE_LEVEL", "is_silent", "trim_leading_silence", "trim_trailing_silence"]

SILENCE_LEVEL = 96
"""Samples within this of zero count as silence."""


def trim_leading_silence(pcm: bytes) -> bytes:
    """Drop the near-silent start of an utterance (keeping 1 ms) so sound starts at once."""
    samples = array.array("h", pcm)
    if sys.byteorder == "big":
        samples.byteswap()
    for index, value in enumerate(samples):
        if value > SILENCE_LEVEL or value < -SILENCE_LEVEL:
            return pcm[max(index - 22, 0) * 2:]
    return b""


def is_silent(pcm: bytes) -> bool:
    samples = array.array("h", pcm)
    if sys.byteorder == "big":
        samples.byteswap()
    return not samples or (max(samples) <= SILENCE_LEVEL and min(samples) >= -SILENCE_LEVEL)


def trim_trailing_silence(pcm: bytes) -> bytes:
    """Drop the near-silent end of an utterance (espeak-ng ends each with about a third of a
    second of it): the pause between messages is the game's
    (:data:`~voice_rang.speech.playback.PAUSE_BETWEEN`), not the synthesizer's."""
    samples = array.array("h", pcm)
    if sys.byteorder == "big":
        samples.byteswap()
    for index in range(len(samples) - 1, -1, -1):
        value = samples[index]
        if value > SILENCE_LEVEL or value < -SILENCE_LEVEL:
            return pcm[:min(index + 23, len(samples)) * 2]
    return b""
