"""What a command head reads of one whole utterance, by the front end it learnt on.

Receives: an utterance (PCM16 samples at 16 kHz) and a :class:`.command_head.CommandHead`. Emits
the array that head scores: for the released head (``front = "moonshine"``), the states of
Moonshine's English encoder averaged into :data:`MOONSHINE_BINS` equal spans of the utterance;
for the heads before it, the last ``HEAD_FRAMES`` speech embeddings (:mod:`.embedding`; through
the noise suppressor for a head that learnt on suppressed sound). Training, the player's takes
and the live recogniser all call this, so a head is always fed what it learnt on.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .command_head import FRONT_BOTH, FRONT_MOONSHINE, FRONT_WHISPER, HEARS_SUPPRESSED, CommandHead
from .embedding import SpeechEmbedding, features

__all__ = [
    "MIN_SAMPLES",
    "MOONSHINE_BINS",
    "binned",
    "both_features",
    "head_features",
    "moonshine_features",
    "unit_samples",
    "whisper_features",
    "whole_utterance_reader",
]

MOONSHINE_BINS = 24
"""Spans an utterance's encoder states are averaged into: a fixed size for the head whatever the
utterance's length (a 2.4 s command gets 100 ms a span, a short "turn" about 30)."""
MIN_SAMPLES = 6400
"""Utterances under 0.4 s are padded with silence to this: the encoder then gives 16 states, so
no span is empty."""


def binned(frames: np.ndarray, bins: int) -> np.ndarray:
    """``frames`` (time, values) averaged into ``bins`` spans of (nearly) equal length.

    >>> binned(np.arange(8, dtype=np.float32).reshape(8, 1), 4).ravel().tolist()
    [0.5, 2.5, 4.5, 6.5]
    >>> binned(np.ones((3, 2), np.float32), 3).shape
    (3, 2)
    """
    edges = np.linspace(0, len(frames), bins + 1)
    starts = np.floor(edges[:-1]).astype(int)
    stops = np.maximum(np.ceil(edges[1:]).astype(int), starts + 1)
    return np.stack([frames[a:b].mean(axis=0) for a, b in zip(starts, stops, strict=True)]).astype(np.float32)


def unit_samples(pcm: bytes | np.ndarray) -> np.ndarray:
    """16-bit samples (little-endian bytes, or an array of them) as float32 in -1..1."""
    samples = np.frombuffer(pcm, dtype="<i2") if isinstance(pcm, bytes) else np.asarray(pcm)
    return samples.astype(np.float32) / 32768.0


def moonshine_features(pcm: bytes | np.ndarray) -> np.ndarray:
    """An utterance -> ``(MOONSHINE_BINS, 416)``: Moonshine base's encoder states, binned."""
    from .moonshine import shared_encoder

    encoder = shared_encoder()
    audio = unit_samples(pcm)[None]
    if audio.shape[1] < MIN_SAMPLES:
        audio = np.pad(audio, ((0, 0), (0, MIN_SAMPLES - audio.shape[1])))
    hidden = encoder.run(None, {"input_values": audio})[0][0]
    return binned(hidden, MOONSHINE_BINS)


def whisper_features(pcm: bytes | np.ndarray) -> np.ndarray:
    """An utterance -> ``(MOONSHINE_BINS, 512)``: Whisper base's encoder states, binned."""
    from .whisper_encoder import encode

    return binned(encode(unit_samples(pcm)), MOONSHINE_BINS)


def both_features(pcm: bytes | np.ndarray) -> np.ndarray:
    """An utterance -> ``(MOONSHINE_BINS, 416 + 512)``: both encoders' binned states side by side."""
    return np.concatenate([moonshine_features(pcm), whisper_features(pcm)], axis=1)


def whole_utterance_reader(front: str) -> Callable[[bytes | np.ndarray], np.ndarray] | None:
    """What a head on ``front`` reads of a whole utterance; ``None`` for the speech embedding,
    which is read as the person speaks."""
    return {FRONT_MOONSHINE: moonshine_features, FRONT_WHISPER: whisper_features, FRONT_BOTH: both_features}.get(front)


def head_features(pcm: bytes | np.ndarray, head: CommandHead, *, closing_ms: int | None = None) -> np.ndarray:
    """``pcm`` as ``head`` reads it (``closing_ms``: the embedding's closing silence, play's by
    default; a Moonshine head reads the utterance as it is)."""
    if (read := whole_utterance_reader(head.front)) is not None:
        return read(pcm)
    kwargs = {} if closing_ms is None else {"closing_ms": closing_ms}
    return features(pcm, SpeechEmbedding.shared(), suppressed=head.hears == HEARS_SUPPRESSED, **kwargs)
