"""Find a sound cue in a recording of the speaker: normalised cross-correlation with the cue's
own waveform (numpy), for the sound-cue tests."""

from __future__ import annotations

import numpy as np

from voice_rang.speech.cues import cue_pcm

__all__ = ["RATE", "best_match", "cue_template", "find_cue", "ncc"]

RATE = 16000
SOURCE_RATE = 22050
"""espeak-ng's rate, which the game plays cues at; the template is made there and resampled, as
the sound server resamples what it plays."""


def cue_template(name: str) -> np.ndarray:
    """The cue as the speaker monitor records it: made at 22 050 Hz, resampled to 16 kHz."""
    source = np.frombuffer(cue_pcm(name, SOURCE_RATE), dtype=np.int16).astype(np.float64)
    times = np.arange(0, len(source) / SOURCE_RATE, 1 / RATE)
    return np.interp(times, np.arange(len(source)) / SOURCE_RATE, source)


def ncc(signal: np.ndarray, template: np.ndarray) -> np.ndarray:
    """Normalised cross-correlation of ``template`` at every offset of ``signal`` (1 = the same
    shape, whatever the loudness)."""
    signal = np.asarray(signal, dtype=np.float64)
    template = template - template.mean()
    length = len(template)
    if len(signal) < length:
        return np.zeros(0)
    size = 1 << int(np.ceil(np.log2(len(signal) + length)))
    product = np.fft.irfft(np.fft.rfft(signal, size) * np.conj(np.fft.rfft(template, size)), size)
    raw = product[: len(signal) - length + 1]
    sums = np.concatenate(([0.0], np.cumsum(signal)))
    squares = np.concatenate(([0.0], np.cumsum(signal * signal)))
    window_sum = sums[length:] - sums[:-length]
    window_energy = squares[length:] - squares[:-length] - window_sum ** 2 / length
    denominator = np.sqrt(np.maximum(window_energy, 1e-9) * float(np.sum(template * template)))
    return np.asarray(raw / denominator)


def find_cue(samples: np.ndarray, name: str, threshold: float = 0.6) -> tuple[int, float] | None:
    """The first offset (samples) where the cue is heard, with its correlation; None if never.

    The first point above ``threshold`` is refined to the best match within the cue's length."""
    template = cue_template(name)
    scores = ncc(samples, template)
    above = np.flatnonzero(scores > threshold)
    if not len(above):
        return None
    start = int(above[0])
    best = start + int(np.argmax(scores[start:start + len(template)]))
    return best, float(scores[best])


def best_match(samples: np.ndarray, at: int, names: list[str]) -> str:
    """Of ``names``, the cue that correlates best with the recording at offset ``at``."""
    scores = {}
    for name in names:
        template = cue_template(name)
        window = samples[max(at - 80, 0): at + len(template) + 80]
        score = ncc(window, template)
        scores[name] = float(score.max()) if len(score) else 0.0
    return max(scores, key=lambda name: scores[name])
