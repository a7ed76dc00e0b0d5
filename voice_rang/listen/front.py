"""What a command head reads of one whole utterance, by the front end it learnt on.

Receives: an utterance (PCM16 samples at 16 kHz) and a :class:`.command_head.CommandHead`. Emits
the array that head scores: for the released head (``front = "moonshine"``), the states of
Moonshine's English encoder averaged into :data:`MOONSHINE_BINS` equal spans of the utterance.
Training, the player's takes and the live recogniser all call this, so a head is always fed what
it learnt on.

Only the released head's front ships. Heads trained on other fronts (the speech embedding of the
heads before it, Whisper's encoder in trials) are read by the training and benchmark scripts,
which add their fronts with :func:`register_front`; a head file naming a front nobody added is
refused in one sentence (:class:`.command_head.ModelCorrupt`), never half read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .command_head import FRONT_MOONSHINE, CommandHead, ModelCorrupt

__all__ = [
    "MIN_SAMPLES",
    "MOONSHINE_BINS",
    "Front",
    "StreamingFront",
    "binned",
    "front_of",
    "head_features",
    "moonshine_features",
    "register_front",
    "unit_samples",
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


class StreamingFront(Protocol):
    """A front computed as the person speaks, so that at the endpoint little is left to do.

    Receives :meth:`start`, PCM16 frames through :meth:`feed`, :meth:`close` at the endpoint, then
    :meth:`finish` (which may be asked again after more is fed). Emits what the head reads."""

    @property
    def samples(self) -> int:
        """Samples of the utterance taken in so far."""
        ...

    def start(self) -> None:
        """Forget the utterance before: a new one begins."""

    def feed(self, pcm: bytes) -> None:
        """The next frame of the utterance."""

    def close(self) -> None:
        """The utterance ended: take in whatever the front held back."""

    def finish(self, leave_out: int = 0) -> np.ndarray:
        """What the head reads of the utterance, leaving out its last ``leave_out`` samples."""
        ...


WholeReader = Callable[[bytes | np.ndarray, CommandHead], np.ndarray]
"""A whole utterance, and the head that will read it -> what that head reads."""


@dataclass(frozen=True)
class Front:
    """How heads on one front are fed."""

    whole: WholeReader
    """A whole utterance as the head reads it (training, the player's takes, and the live path
    of a front without :attr:`stream`, which reads the utterance at the endpoint)."""
    stream: Callable[[CommandHead], StreamingFront] | None = None
    """A front the live path computes as the person speaks; ``None``: read whole at the end."""


_FRONTS: dict[str, Front] = {FRONT_MOONSHINE: Front(lambda pcm, head: moonshine_features(pcm))}


def register_front(name: str, front: Front) -> None:
    """Let heads that read ``name`` be fed by ``front`` (the scripts' fronts of heads not shipped)."""
    _FRONTS[name] = front


def front_of(head: CommandHead) -> Front:
    """How ``head`` is fed; :class:`.command_head.ModelCorrupt` in one sentence for a front this
    program does not have."""
    front = _FRONTS.get(head.front)
    if front is None:
        raise ModelCorrupt(f"the command model reads the {head.front!r} front, which this version "
                           f"does not ship (it reads {', '.join(sorted(_FRONTS))})")
    return front


def head_features(pcm: bytes | np.ndarray, head: CommandHead) -> np.ndarray:
    """``pcm`` as ``head`` reads it."""
    return front_of(head).whole(pcm, head)
