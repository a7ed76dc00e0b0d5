"""The same utterance as other speakers might say it: the changes the training recipe makes its
speakers up with, and that a benchmark hears the head on again.

Receives an utterance (16 kHz samples, any float or int dtype). Emits it changed as people differ:
played a little faster or slower (pitch, pace and vocal tract together, :func:`resample`), or with
a shorter or longer vocal tract alone (:func:`shift_formants`). ``scripts/augment.py`` makes the
recipe's made-up speakers with these two functions; :data:`VARIANTS` are the fixed changes
``benchmarks/bench_variants.py`` averages the head over where the live rule acted on nothing. The
live path does not use them: averaged, they heard 1-3 more of 396 commands of the training
voices' new takes (the tapes with a wrong command and a line of talk more;
``docs/voice-experiments.md``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["VARIANTS", "resample", "shift_formants", "variant"]


def resample(samples: np.ndarray, factor: float) -> np.ndarray:
    """Play ``factor`` times faster (speed and pitch together, as a tape would)."""
    count = max(1, int(len(samples) / factor))
    return np.asarray(np.interp(np.arange(count) * factor, np.arange(len(samples)), samples), dtype=np.float32)


def shift_formants(samples: np.ndarray, alpha: float) -> np.ndarray:
    """The same voice with a vocal tract ``alpha`` times shorter (formants moved up by ``alpha``,
    down when under 1), pitch and timing unchanged: a new speaker, as vocal tract length
    perturbation makes one. Each 32 ms frame's spectral envelope (its cepstrum's first
    coefficients) is warped along frequency while the harmonics (what is left) stay put; the
    phase is kept, and frames are overlapped and added back."""
    n_fft, hop = 512, 128
    if len(samples) < n_fft:
        return samples
    window = np.hanning(n_fft + 1)[:-1].astype(np.float32)
    padded = np.concatenate([np.zeros(n_fft), samples, np.zeros(n_fft)]).astype(np.float32)
    count = (len(padded) - n_fft) // hop + 1
    index = np.arange(n_fft)[None, :] + hop * np.arange(count)[:, None]
    spectrum = np.fft.rfft(padded[index] * window, axis=1)
    log_magnitude = np.log(np.abs(spectrum) + 1e-3)
    cepstrum = np.fft.irfft(log_magnitude, n_fft, axis=1)
    lifter = np.zeros(n_fft)
    lifter[:30] = 1.0
    lifter[-29:] = 1.0
    envelope = np.fft.rfft(cepstrum * lifter, axis=1).real
    bins = np.arange(envelope.shape[1], dtype=np.float64)
    warped = np.stack([np.interp(bins / alpha, bins, row) for row in envelope])
    shifted = np.exp(log_magnitude - envelope + warped) * np.exp(1j * np.angle(spectrum))
    frames = np.fft.irfft(shifted, n_fft, axis=1) * window
    out = np.zeros(len(padded))
    norm = np.zeros(len(padded))
    np.add.at(out, index, frames)
    np.add.at(norm, index, np.broadcast_to(window ** 2, frames.shape))
    out = out / np.maximum(norm, 1e-3)
    return out[n_fft:n_fft + len(samples)].astype(np.float32)


VARIANTS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tape 0.92": lambda samples: resample(samples, 0.92),
    "tape 1.08": lambda samples: resample(samples, 1.08),
    "formants 0.9": lambda samples: shift_formants(samples, 0.9),
    "formants 1.1": lambda samples: shift_formants(samples, 1.1),
}
"""Each change by name: a tape 8 % slower or faster, and the vocal tract 10 % longer or shorter
(formants down or up, pitch and pace kept)."""


def variant(samples: np.ndarray, name: str) -> np.ndarray:
    """``samples`` changed as :data:`VARIANTS` names, as 16-bit samples.

    >>> len(variant(np.zeros(16000, np.int16), "tape 1.08"))
    14814
    >>> variant(np.zeros(16000, np.int16), "formants 0.9").dtype
    dtype('int16')
    """
    changed = VARIANTS[name](np.asarray(samples, dtype=np.float32))
    return np.clip(np.round(changed), -32768, 32767).astype(np.int16)
