"""Small untrained command heads of the released labels, for tests of what a head is fed: one that
reads Moonshine's encoder (as the released head does), one that reads Whisper base's (or both), or
one that reads the speech embedding (as the heads before it did), through the noise suppressor or not."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from voice_rang.listen.command_head import (
    FRONT_BOTH,
    FRONT_EMBEDDING,
    FRONT_MOONSHINE,
    FRONT_WHISPER,
    HEARS_GIVEN,
    CommandHead,
)


def small_head(path: Path, front: str = FRONT_MOONSHINE, hears: str = HEARS_GIVEN) -> CommandHead:
    """A one-member convolutional head of 8 channels, written to ``path`` and loaded from it."""
    values = {FRONT_EMBEDDING: 96, FRONT_WHISPER: 512, FRONT_BOTH: 928}.get(front, 416)
    labels = CommandHead.released().labels
    rng = np.random.default_rng(5)
    shapes = {"conv1.weight": (8, values, 3), "conv1.bias": (8,), "conv2.weight": (8, 8, 3), "conv2.bias": (8,),
              "fc1.weight": (8, 16), "fc1.bias": (8,), "fc2.weight": (len(labels), 8), "fc2.bias": (len(labels),)}
    weights = {f"m0.{name}": rng.standard_normal(shape).astype(np.float32) * 0.1 for name, shape in shapes.items()}
    np.savez(path, **weights, mean=np.zeros(values, np.float32), std=np.ones(values, np.float32),
             arch=np.array("conv"), members=np.array(1), labels=np.array(labels),
             thresholds=np.array([0.9, 0.5], np.float32), front=np.array(front), hears=np.array(hears))
    return CommandHead(path)
