"""The fronts of command heads the game does not ship, for the training and benchmark scripts.

The game reads only the released head's front, Moonshine's encoder
(:mod:`voice_rang.listen.front`). Heads trained here may read the speech embedding (the heads
before the released one, :mod:`speech_embedding`), Whisper base's encoder (:mod:`whisper_encoder`),
or both encoders side by side. :func:`register` adds those fronts to the game's, so the live
recogniser, the player's takes and every benchmark feed such a head exactly what it learnt on.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from voice_rang.listen.command_head import (
    FRONT_BOTH,
    FRONT_EMBEDDING,
    FRONT_MOONSHINE,
    FRONT_WHISPER,
    HEARS_SUPPRESSED,
    CommandHead,
)
from voice_rang.listen.front import (
    MOONSHINE_BINS,
    Front,
    StreamingFront,
    binned,
    moonshine_features,
    register_front,
    unit_samples,
)

__all__ = ["both_features", "register", "whisper_features", "whole_utterance_reader"]


def whisper_features(pcm: bytes | np.ndarray) -> np.ndarray:
    """An utterance -> ``(MOONSHINE_BINS, 512)``: Whisper base's encoder states, binned."""
    from whisper_encoder import encode

    return binned(encode(unit_samples(pcm)), MOONSHINE_BINS)


def both_features(pcm: bytes | np.ndarray) -> np.ndarray:
    """An utterance -> ``(MOONSHINE_BINS, 416 + 512)``: both encoders' binned states side by side."""
    return np.concatenate([moonshine_features(pcm), whisper_features(pcm)], axis=1)


def _embedding(pcm: bytes | np.ndarray, head: CommandHead) -> np.ndarray:
    from speech_embedding import features

    return features(pcm, suppressed=head.hears == HEARS_SUPPRESSED)


def _embedding_stream(head: CommandHead) -> StreamingFront:
    from speech_embedding import EmbeddingFront

    return EmbeddingFront(suppressed=head.hears == HEARS_SUPPRESSED)


def whole_utterance_reader(front: str) -> Callable[[bytes | np.ndarray], np.ndarray] | None:
    """What a head on an encoder front reads of a whole utterance; ``None`` for the speech
    embedding, which is read as the person speaks."""
    return {FRONT_MOONSHINE: moonshine_features, FRONT_WHISPER: whisper_features, FRONT_BOTH: both_features}.get(front)


def register() -> None:
    """Add the scripts' fronts to the game's (again is harmless)."""
    register_front(FRONT_EMBEDDING, Front(_embedding, _embedding_stream))
    register_front(FRONT_WHISPER, Front(lambda pcm, head: whisper_features(pcm)))
    register_front(FRONT_BOTH, Front(lambda pcm, head: both_features(pcm)))
